#!/usr/bin/env python3
"""What a program pays for pplab before it computes: the size of each library of a build, the
objects loaded and the wall time of `pplab --version` and of a host-only call (`pplab reduce`
on the cpu backend, 1000 elements), each the median of --runs runs.

    python3 bench/startup_cost.py BUILD_DIR [BUILD_DIR ...] [--runs 30] [--json out.json]

Each BUILD_DIR is a build folder with the command line (`pplab`) and its libraries."""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path


def median_seconds(cmd, runs, env):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       env=env)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def loaded_objects(cmd, env):
    """The shared objects the dynamic loader opened for `cmd` (LD_DEBUG=files)."""
    e = dict(env, LD_DEBUG="files")
    err = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=e,
                         text=True).stderr
    names = []
    for line in err.splitlines():
        if "file=" in line and "[0];  needed by" in line or "file=" in line and "dynamically loaded by" in line:
            name = line.split("file=")[1].split()[0]
            if name not in names:
                names.append(name)
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--json")
    a = ap.parse_args()
    env = dict(os.environ, PPLAB_CHOICES="none")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    record = {"cpu": cpu, "runs": a.runs, "builds": []}
    for b in a.builds:
        d = Path(b)
        cli = str(d.resolve() / "pplab")
        libs = {p.name: p.stat().st_size for p in sorted(d.glob("libpplab*.so.*.*.*"))}
        version = [cli, "--version"]
        host = [cli, "reduce", "--op", "sum", "--n", "1000", "--backend", "cpu"]
        row = {
            "build": str(d),
            "libraries_bytes": libs,
            "version_s": median_seconds(version, a.runs, env),
            "host_reduce_s": median_seconds(host, a.runs, env),
            "objects_version": loaded_objects(version, env),
            "objects_host_reduce": loaded_objects(host, env),
        }
        record["builds"].append(row)
        print(f"{d}:")
        for name, size in libs.items():
            print(f"  {name:28} {size / 1e6:8.2f} MB")
        print(f"  pplab --version           {row['version_s'] * 1e3:8.1f} ms, "
              f"{len(row['objects_version'])} objects loaded")
        print(f"  pplab reduce --backend cpu {row['host_reduce_s'] * 1e3:7.1f} ms, "
              f"{len(row['objects_host_reduce'])} objects loaded")
        heavy = [o for o in row["objects_host_reduce"]
                 if any(k in o for k in ("cublas", "cudart", "libmpi", "nccl", "pplab_"))]
        print(f"  of them: {', '.join(Path(o).name for o in heavy) or 'no backend library'}")
    if a.json:
        Path(a.json).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
