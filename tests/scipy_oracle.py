#!/usr/bin/env python3
"""pplab correlate and pplab convolve against scipy.ndimage, the oracle: odd shapes (1 x N,
N x 1, a mask larger than the image), rectangular masks, every boundary mode with a constant
value, f32 and f64, on every backend given. Each output is held to the tolerance rule of
src/convolution/rung.hpp: |got - want| <= 2 (taps + 2) eps sum |mask| |input|, plus half an ulp.
Usage: scipy_oracle.py PPLAB BACKEND... (exit 77, skipped, without NumPy and SciPy)."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import scipy.ndimage as nd
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

pplab, asked = sys.argv[1], sys.argv[2:]
backends = []
for b in asked:  # a backend this machine cannot run (no GPU) is left out, and said so
    r = subprocess.run([pplab, "correlate", "--shape", "3x3", "--mask", "box:3", "--backend", b],
                       capture_output=True, text=True)
    if r.returncode == 0:
        backends.append(b)
    elif "not usable" in r.stderr:
        print(f"backend {b} left out: {r.stderr.strip()}")
    else:
        print(f"FAIL backend {b}: {r.stderr.strip()}")
        sys.exit(1)
if not backends:
    print("skipped: no backend asked for is usable here")
    sys.exit(77)
rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
cases = [((1, 1), (1, 1)), ((1, 37), (3, 5)), ((41, 1), (5, 3)), ((5, 4), (31, 31)),
         ((37, 53), (3, 3)), ((29, 64), (7, 1)), ((64, 29), (1, 9)), ((70, 45), (15, 15)),
         ((33, 40), (7, 7))]
modes = ["reflect", "constant", "nearest", "mirror", "wrap"]
failures = 0
checked = 0
with tempfile.TemporaryDirectory() as d:
    for i, (shape, mshape) in enumerate(cases):
        for dtype in (np.float32, np.float64):
            x = rng.normal(size=shape).astype(dtype)
            if x.size > 8:  # NaN and infinity reach their outputs
                x.flat[rng.integers(x.size)] = np.nan
                x.flat[rng.integers(x.size)] = np.inf
            m = rng.normal(size=mshape)
            np.save(f"{d}/x.npy", x)
            np.save(f"{d}/m.npy", m)
            mt = m.astype(dtype)
            for mode in modes:
                for op in ("correlate", "convolve"):
                    want = getattr(nd, op)(x, mt, mode=mode, cval=0.5)
                    flip = mt if op == "correlate" else mt[::-1, ::-1]
                    scale = nd.correlate(np.abs(x.astype(np.float64)), np.abs(flip.astype(np.float64)),
                                         mode=mode, cval=0.5)
                    eps = 2.0**-23 if dtype == np.float32 else 2.0**-52
                    tol = 2 * (m.size + 2) * eps * scale + 0.5 * eps * np.abs(want)
                    for b in backends:
                        out = f"{d}/out-{b}.npy"
                        r = subprocess.run([pplab, op, "--input", f"{d}/x.npy", "--mask", f"{d}/m.npy",
                                            "--mode", mode, "--cval", "0.5", "--backend", b,
                                            "--out", out, "--json"], capture_output=True, text=True)
                        checked += 1
                        what = f"{op} {np.dtype(dtype).name} {shape} mask {mshape} {mode} on {b}"
                        if r.returncode != 0:
                            print(f"FAIL {what}: exit {r.returncode}: {r.stderr.strip()}")
                            failures += 1
                            continue
                        got = np.load(out)
                        with np.errstate(invalid="ignore"):
                          bad = ~((np.isnan(want) & np.isnan(got)) |
                                  (np.isinf(want) & (got == want)) |
                                  (np.abs(got.astype(np.float64) - want) <= tol))
                        if got.dtype != x.dtype or got.shape != x.shape or bad.any():
                            k = np.argwhere(bad)[:3].tolist() if got.shape == x.shape else []
                            print(f"FAIL {what}: dtype {got.dtype} shape {got.shape}; "
                                  f"{int(bad.sum()) if got.shape == x.shape else '-'} outputs off, e.g. {k}")
                            failures += 1
print(f"{checked} filters checked against scipy.ndimage {nd.__name__} "
      f"(SciPy {__import__('scipy').__version__}, NumPy {np.__version__}): {failures} failed")
sys.exit(1 if failures else 0)
