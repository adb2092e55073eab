#!/usr/bin/env python3
"""pplab correlate and pplab convolve against scipy.ndimage, the oracle: odd shapes (1 x N,
N x 1, a mask larger than the image), rectangular masks, every boundary mode with a constant
value, f32 and f64, on every backend given; then pplab filter NAME against scipy.ndimage's
gaussian_filter, uniform_filter, sobel, prewitt and laplace (per-axis sigmas and sizes, even sizes). Each output is held to the tolerance rule of
src/convolution/rung.hpp: |got - want| <= 2 (taps + 2) eps sum |mask| |input|, plus half an ulp.
Last, arrays that take SciPy's own arithmetic (other ranks and dtypes, even masks, --origin), on
seq and cpu, held to SciPy's answers bit for bit.
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


def check(command, out, x, want, tol, what):
    """Runs pplab `command` (writing `out`) and holds its output to want within tol (NaN where
    want is NaN, an infinity where want is it); prints what failed. 1 for a failure, else 0."""
    r = subprocess.run([pplab, *command, "--out", out], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL {what}: exit {r.returncode}: {r.stderr.strip()}")
        return 1
    got = np.load(out)
    with np.errstate(invalid="ignore"):
        bad = ~((np.isnan(want) & np.isnan(got)) |
                (np.isinf(want) & (got == want)) |
                (np.abs(got.astype(np.float64) - want) <= tol))
    if got.dtype != x.dtype or got.shape != x.shape or bad.any():
        k = np.argwhere(bad)[:3].tolist() if got.shape == x.shape else []
        print(f"FAIL {what}: dtype {got.dtype} shape {got.shape}; "
              f"{int(bad.sum()) if got.shape == x.shape else '-'} outputs off, e.g. {k}")
        return 1
    return 0


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
                        checked += 1
                        failures += check([op, "--input", f"{d}/x.npy", "--mask", f"{d}/m.npy",
                                           "--mode", mode, "--cval", "0.5", "--backend", b,
                                           "--json"], f"{d}/out-{b}.npy", x, want, tol,
                                          f"{op} {np.dtype(dtype).name} {shape} mask {mshape} "
                                          f"{mode} on {b}")
    # pplab filter NAME: scipy.ndimage's named filters, their masks made by the CLI.
    named = [
        (["gaussian", "--sigma", "1.5"], lambda x, **k: nd.gaussian_filter(x, 1.5, **k), 13),
        (["gaussian", "--sigma", "2,0.7", "--truncate", "3"],
         lambda x, **k: nd.gaussian_filter(x, (2, 0.7), truncate=3, **k), 13 * 5),
        (["uniform", "--size", "4,3"], lambda x, **k: nd.uniform_filter(x, (4, 3), **k), 15),
        (["uniform"], lambda x, **k: nd.uniform_filter(x, 3, **k), 9),
        (["sobel"], lambda x, **k: nd.sobel(x, -1, **k), 9),
        (["sobel", "--axis", "0"], lambda x, **k: nd.sobel(x, 0, **k), 9),
        (["prewitt", "--axis", "-2"], lambda x, **k: nd.prewitt(x, 0, **k), 9),
        (["laplace"], lambda x, **k: nd.laplace(x, **k), 5),
    ]
    for shape in ((1, 23), (17, 1), (37, 53)):
        for dtype in (np.float32, np.float64):
            x = rng.normal(size=shape).astype(dtype)
            np.save(f"{d}/x.npy", x)
            for args, scipy_call, taps in named:
                for mode in modes:
                    want = scipy_call(x.astype(np.float64), mode=mode, cval=0.5)
                    scale = np.abs(scipy_call(np.abs(x.astype(np.float64)), mode=mode, cval=0.5))
                    eps = 2.0**-23 if dtype == np.float32 else 2.0**-52
                    # the masks' taps are SciPy's within a few ulps: a Gaussian's sum of |mask|
                    # is 1, a derivative's 8, so scale bounds sum |mask| |input| within 8x
                    tol = 16 * (taps + 2) * eps * (scale + np.abs(x).max()) + 0.5 * eps * np.abs(want)
                    for b in backends:
                        checked += 1
                        failures += check(["filter", *args, "--input", f"{d}/x.npy", "--mode",
                                           mode, "--cval", "0.5", "--backend", b],
                                          f"{d}/out-{b}.npy", x, want, tol,
                                          f"filter {' '.join(args)} {np.dtype(dtype).name} "
                                          f"{shape} {mode} on {b}")
    # Arrays the rungs do not take (other ranks and dtypes, even or long masks, --origin): SciPy's
    # own arithmetic on seq, cpu and cuda, each answer SciPy's to the last bit (tolerance 0).
    exact = [((6, 7, 8), np.float64, (3, 2, 3), "0"), ((30, 41), np.int16, (3, 3), "1,-1"),
             ((30, 41), np.float32, (4, 3), "0"), ((50,), np.uint8, (5,), "-2"),
             ((9, 10), np.float64, (1, 40), "0"),
             ((3, 4, 5, 6), np.int32, (2, 1, 3, 2), "0,0,-1,0")]
    for shape, dtype, mshape, origin in exact:
        x = (rng.normal(size=shape) * 40).astype(dtype)
        m = rng.normal(size=mshape)
        np.save(f"{d}/x.npy", x)
        np.save(f"{d}/m.npy", m)
        org = [int(k) for k in origin.split(",")]
        org = org if len(org) > 1 else org[0]
        for mode in modes:
            for op in ("correlate", "convolve"):
                want = getattr(nd, op)(x, m, mode=mode, cval=1.5, origin=org)
                for b in (b for b in backends if b in ("seq", "cpu", "cuda")):
                    checked += 1
                    failures += check([op, "--input", f"{d}/x.npy", "--mask", f"{d}/m.npy",
                                       "--origin", origin, "--mode", mode, "--cval", "1.5",
                                       "--backend", b], f"{d}/out-{b}.npy", x, want, 0,
                                      f"{op} {np.dtype(dtype).name} {shape} mask {mshape} origin "
                                      f"{origin} {mode} on {b} (SciPy's arithmetic)")
print(f"{checked} filters checked against scipy.ndimage {nd.__name__} "
      f"(SciPy {__import__('scipy').__version__}, NumPy {np.__version__}): {failures} failed")
sys.exit(1 if failures else 0)
