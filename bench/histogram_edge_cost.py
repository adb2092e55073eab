#!/usr/bin/env python3
"""What NumPy's float32 edges cost: the same float32 histogram with pplab's double edges
(edge_rule f64), with float32 edges rounded from double ones (f32_rounded) and with float32
edges from float32 arithmetic (f32_arithmetic), on each backend this build has, in one process.
Host data for seq and cpu (2^26 floats); on a GPU, a PyTorch CUDA tensor (2^28 floats) where
PyTorch is installed. Each figure is a median; ratios are to the f64 row of the same problem.
Usage: PYTHONPATH=<build>/python bench/histogram_edge_cost.py [--json OUT]"""
import argparse
import json
import platform

import numpy as np

import pplab
from pplab import _pplab
from python_vs import median_time  # the same timing as the Python comparison

RULES = ("f64", "f32_rounded", "f32_arithmetic")
# Ranges: one whose rounded edges float32 arithmetic gives exactly ([0, 1), and the binner then
# computes them in float), and one whose edges it does not.
PROBLEMS = [(1024, 0.0, 1.0), (1024, -3.0, 3.0), (65536, -3.0, 3.0), (1 << 20, -3.0, 3.0)]


def measure(x, backend, sync, repeats):
    rows = []
    for bins, lo, hi in PROBLEMS:
        row = {"backend": backend or "cuda (device array)", "bins": bins, "range": [lo, hi]}
        for rule in RULES:
            row[rule + "_ms"] = 1e3 * median_time(
                lambda: _pplab.histogram(x, bins, lo, hi, True, rule, backend, None), sync,
                reps=repeats, warmup=1)
        for rule in RULES[1:]:
            row[rule + "_ratio"] = row[rule + "_ms"] / row["f64_ms"]
        print("{backend}: {bins} bins over [{r[0]}, {r[1]}]: f64 edges {f64_ms:.3f} ms, "
              "f32_rounded {f32_rounded_ms:.3f} ms ({f32_rounded_ratio:.2f}x), f32_arithmetic "
              "{f32_arithmetic_ms:.3f} ms ({f32_arithmetic_ratio:.2f}x)".format(r=row["range"],
                                                                                 **row))
        rows.append(row)
    return rows


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    rows = []
    host = rng.normal(size=1 << 26).astype(np.float32)
    for backend in ("seq", "cpu"):
        rows += measure(host, backend, lambda: None, 5)
    gpu = None
    if pplab.backends()["cuda"]["available"]:
        try:
            import torch
            t = torch.from_numpy(rng.normal(size=1 << 28).astype(np.float32)).cuda()
            rows += measure(t, None, torch.cuda.synchronize, 20)
            gpu = torch.cuda.get_device_name()
        except ImportError:
            print("no PyTorch: the GPU rows are left out")
    record = {"what": "histogram float32 edges cost", "cpu": cpu_name(), "gpu": gpu,
              "numpy": np.__version__, "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
