#!/usr/bin/env python3
"""`pplab histogram --numpy` against numpy.histogram, the oracle, bit for bit: float32 data (whose
edges NumPy computes as float32 numbers), float64 and integers, with a range given and inferred,
from 10 to a million bins, with values on NumPy's edges and a float step either side of them.
The NumPy running this script is the oracle, asked for by its major version (`--numpy=1` or
`--numpy=2`). NumPy 2 computes an inferred range's float32 edges in float32 (NumPy 1.x in double):
under NumPy 1.x those cases also run `--numpy=2`, held to NumPy 2's edges computed here as NumPy
2's linspace does, and counted by NumPy itself.
Usage: numpy_histogram_oracle.py PPLAB BACKEND... (exit 77, skipped, without NumPy)."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

pplab, asked = sys.argv[1], sys.argv[2:]
NUMPY_MAJOR = 2 if int(np.__version__.split(".")[0]) >= 2 else 1


def command(backend):
    if backend.startswith("mpi"):  # mpi:N runs N ranks
        ranks = backend.partition(":")[2] or "2"
        return ["mpirun", "--oversubscribe", "-np", ranks, pplab], "mpi"
    return [pplab], backend


backends = []
for b in asked:  # a backend this machine cannot run (no GPU) is left out, and said so
    pre, name = command(b)
    r = subprocess.run(pre + ["histogram", "--n", "10", "--backend", name], capture_output=True,
                       text=True)
    if r.returncode == 0:
        backends.append(b)
    elif "not usable" in r.stderr or "mpirun" in r.stderr:
        print(f"backend {b} left out: {r.stderr.strip()[:200]}")
    else:
        print(f"FAIL backend {b}: {r.stderr.strip()}")
        sys.exit(1)
if not backends:
    print("skipped: no backend asked for is usable here")
    sys.exit(77)


def numpy2_inferred(x, bins):
    """numpy.histogram(x, bins) as NumPy 2 computes it for float32 x: its edges in float32
    arithmetic (linspace over the float32 minimum and maximum), then the same binning."""
    lo, hi = x.min(), x.max()
    if lo == hi:
        lo, hi = lo - np.float32(0.5), hi + np.float32(0.5)
    edges = np.arange(bins + 1, dtype=np.float32) * ((hi - lo) / np.float32(bins)) + lo
    edges[-1] = hi
    counts, _ = np.histogram(x, edges)  # explicit edges: searched, last bin closed
    return counts, edges


seed = int.from_bytes(os.urandom(4), "little")
rng = np.random.default_rng(seed)
print("seed", seed)
failures = checked = 0
with tempfile.TemporaryDirectory() as d:
    for dtype in (np.float32, np.float64, np.int32, np.uint8):
        for bins in (10, 100, 997, 70000):
            for rng_arg in (None, (-3.0, 3.0), (-2.5, 0.1)):
                if dtype == np.uint8 and rng_arg is not None:
                    rng_arg = (3.0, 200.0)
                x = rng.normal(size=100003)
                if dtype == np.uint8:
                    x = rng.integers(0, 256, 100003)
                elif dtype == np.int32:
                    x = rng.integers(-5, 5, 100003)
                x = x.astype(dtype)
                _, edges = np.histogram(x, bins, rng_arg)
                if dtype == np.float32:  # values on the edges and a float step either side
                    picks = edges[rng.integers(0, edges.size, x.size // 2)].astype(np.float32)
                    side = rng.integers(-1, 2, picks.size)
                    up = np.nextafter(picks, np.float32(np.inf))
                    down = np.nextafter(picks, np.float32(-np.inf))
                    x[: picks.size] = np.where(side < 0, down, np.where(side > 0, up, picks))
                oracles = [(NUMPY_MAJOR, np.histogram(x, bins, rng_arg))]
                if dtype == np.float32 and rng_arg is None and NUMPY_MAJOR == 1:
                    oracles.append((2, numpy2_inferred(x, bins)))
                np.save(f"{d}/x.npy", x)
                for b, (major, (want, want_edges)) in (
                        (b, o) for b in backends for o in oracles):
                    # mpi starts a job per case: float32 alone there, the point of the rules
                    if b.startswith("mpi") and dtype != np.float32:
                        continue
                    pre, name = command(b)
                    args = pre + ["histogram", "--input", f"{d}/x.npy", "--bins", str(bins),
                                  f"--numpy={major}", "--json", "--backend", name]
                    if rng_arg is not None:
                        args += ["--range", f"{rng_arg[0]!r}:{rng_arg[1]!r}"]
                    r = subprocess.run(args, capture_output=True, text=True)
                    checked += 1
                    what = (f"{b} {np.dtype(dtype).name} bins {bins} range {rng_arg} "
                            f"as NumPy {major}")
                    if r.returncode != 0:
                        print(f"FAIL {what}: {r.stderr.strip()}")
                        failures += 1
                        continue
                    out = json.loads(r.stdout)
                    got = np.array(out["counts"])
                    got_edges = np.array(out["edges"])
                    wrong = np.flatnonzero(got != want)
                    wrong_edges = np.flatnonzero(got_edges != want_edges.astype(np.float64))
                    if wrong.size or wrong_edges.size:
                        print(f"FAIL {what}: {wrong.size} bins and {wrong_edges.size} edges "
                              f"differ (first bins {wrong[:5]})")
                        failures += 1
print(f"{checked} histograms against NumPy {np.__version__}, {failures} failed")
sys.exit(1 if failures else 0)
