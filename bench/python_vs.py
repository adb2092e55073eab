#!/usr/bin/env python3
"""pplab's Python calls against what a Python user calls today, in one process on the same arrays:
NumPy on the host; CuPy and PyTorch on the GPU (where installed). Each figure is the median of
several calls, the GPU's work waited for; ratios are the other call's time over pplab's.

    PYTHONPATH=build/release/python python3 bench/python_vs.py [--quick] [--json out.json]
        [--sections host,torch,cupy,filters,stacks]
"""
import argparse
import json
import math
import statistics
import sys
import time

import numpy as np

import pplab


def median_time(call, sync=None, reps=15, warmup=2):
    """The median of `reps` timed calls after `warmup` untimed ones. A host call (no sync given)
    starts 0.3 s after whatever ran before: OpenBLAS's threads spin for a while after each call
    (numpy's matmul, gemv) and take the cores from the next call's threads (on a 16-core Xeon,
    pplab's matrix times vector took 6.2 ms right after numpy's gemv, 1.9 ms with a pause;
    bench/results/h200-2026-11-29-argmax-axes-abdb009.txt)."""
    if sync is None:
        sync = lambda: None  # noqa: E731
        time.sleep(0.3)
    for _ in range(warmup):
        call()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def warm_up(call, sync, seconds=1.0):
    """Keeps the GPU busy for a while before the first timing, so that its clocks are up: the
    first rows of a run were slower for whichever side was timed first."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        call()
        sync()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small arrays, a few seconds")
    ap.add_argument("--json", help="write the rows here too")
    ap.add_argument("--sections", default="host,torch,cupy,filters,stacks",
                    help="which rows, comma-separated: host (NumPy, SciPy), torch and cupy (the "
                         "reductions, histograms and vector products on the GPU), filters "
                         "(SciPy's named filters against cupyx.scipy.ndimage), stacks (stacks of "
                         "products against torch.bmm); default all")
    args = ap.parse_args()
    q = args.quick
    sections = set(args.sections.split(","))
    unknown = sections - {"host", "torch", "cupy", "filters", "stacks"}
    if unknown:
        ap.error("unknown sections: %s" % ", ".join(sorted(unknown)))
    rows = []

    def row(what, other, t_pplab, t_other, note=None):
        rows.append({"call": what, "against": other, "pplab_ms": t_pplab * 1e3,
                     "other_ms": t_other * 1e3, "ratio": t_other / t_pplab})
        if note:
            rows[-1]["note"] = note
        print("%-46s %-28s pplab %9.3f ms  %9.3f ms  %6.2fx%s" %
              (what, other, t_pplab * 1e3, t_other * 1e3, t_other / t_pplab,
               "  " + note if note else ""), flush=True)

    rng = np.random.default_rng(1)
    edges = np.sort(np.random.default_rng(3).standard_normal(1025))  # where normal data's quantiles fall
    if "host" in sections:
        # Host: the per-call overhead, and NumPy's own calls.
        small = rng.standard_normal(1000).astype(np.float32)
        row("sum of 1000 f32 (host)", "numpy.sum", median_time(lambda: pplab.sum(small), reps=2001),
            median_time(lambda: np.sum(small), reps=2001))
        n = 1 << (20 if q else 26)
        x = rng.standard_normal(n).astype(np.float32)
        row("sum of 2^%d f32 (host)" % (n.bit_length() - 1), "numpy.sum", median_time(lambda: pplab.sum(x)),
            median_time(lambda: np.sum(x)))
        # The exact sum against NumPy's pairwise one (what a user gives up for exactness) and
        # against math.fsum, the exact sum Python has (on a slice: it takes seconds on the whole).
        time.sleep(0.3)
        row("exact sum of 2^%d f32 (host)" % (n.bit_length() - 1), "numpy.sum",
            median_time(lambda: pplab.sum(x, exact=True)), median_time(lambda: np.sum(x)))
        xs = x[: n // 64].astype(np.float64)
        row("exact sum of 2^%d f64 (host)" % (xs.size.bit_length() - 1), "math.fsum",
            median_time(lambda: pplab.sum(xs, exact=True)),
            median_time(lambda: math.fsum(xs), reps=3))
        row("histogram 2^%d f32, 1024 bins (host)" % (n.bit_length() - 1), "numpy.histogram",
            median_time(lambda: pplab.histogram(x, 1024, (-4, 4))),
            median_time(lambda: np.histogram(x, 1024, (-4, 4)), reps=3))
        # numpy.histogram's array of edges (1025 of them, where normal data's quantiles fall) and
        # weights=, and numpy.bincount's weights=.
        wx = rng.random(n).astype(np.float32)
        row("histogram 2^%d f32, 1024 edges (host)" % (n.bit_length() - 1), "numpy.histogram",
            median_time(lambda: pplab.histogram(x, edges)),
            median_time(lambda: np.histogram(x, edges), reps=3))
        row("histogram 2^%d f32, 1024 bins, f32 weights (host)" % (n.bit_length() - 1),
            "numpy.histogram", median_time(lambda: pplab.histogram(x, 1024, (-4, 4), weights=wx)),
            median_time(lambda: np.histogram(x, 1024, (-4, 4), weights=wx), reps=3))
        hy = rng.standard_normal(n).astype(np.float32)
        row("histogram2d 2^%d f32 points, 256x256 bins (host)" % (n.bit_length() - 1),
            "numpy.histogram2d", median_time(lambda: pplab.histogram2d(x, hy, 256, [[-4, 4], [-4, 4]])),
            median_time(lambda: np.histogram2d(x, hy, 256, [[-4, 4], [-4, 4]]), reps=3))
        # numpy.histogramdd: the joint colour histogram of an RGB image, 16 bins a channel
        rgb = rng.integers(0, 256, (n // 4, 3), dtype=np.uint8)
        cube = [(0, 256)] * 3
        row("histogramdd 2^%d RGB u8 pixels, 16^3 bins (host)" % ((n // 4).bit_length() - 1),
            "numpy.histogramdd", median_time(lambda: pplab.histogramdd(rgb, 16, cube)),
            median_time(lambda: np.histogramdd(rgb, 16, cube), reps=3))
        del rgb
        ix = rng.integers(0, 65536, n)
        row("bincount 2^%d i64, 65536 bins, f32 weights (host)" % (n.bit_length() - 1),
            "numpy.bincount", median_time(lambda: pplab.bincount(ix, wx)),
            median_time(lambda: np.bincount(ix, wx), reps=3))
        row("argmax of 2^%d f32 (host)" % (n.bit_length() - 1), "numpy.argmax",
            median_time(lambda: pplab.argmax(x)), median_time(lambda: np.argmax(x)))
        row("var of 2^%d f32 (host)" % (n.bit_length() - 1), "numpy.var",
            median_time(lambda: pplab.var(x)), median_time(lambda: np.var(x), reps=5))
        # the nan reductions, on data with one NaN in 17
        xn = x.copy()
        xn[5::17] = np.nan
        for op in ("nansum", "nanmean", "nanmax"):
            row("%s of 2^%d f32 (host)" % (op, n.bit_length() - 1), "numpy." + op,
                median_time(lambda: getattr(pplab, op)(xn)),
                median_time(lambda: getattr(np, op)(xn), reps=5))
        del xn
        # numpy.count_nonzero (about 38% zeros), and numpy.any of a mask whose one True is its
        # last element (every element read by both)
        xz = np.round(x)
        row("count_nonzero of 2^%d f32 (host)" % (n.bit_length() - 1), "numpy.count_nonzero",
            median_time(lambda: pplab.count_nonzero(xz)),
            median_time(lambda: np.count_nonzero(xz), reps=5))
        mask = np.full(n, False)
        mask[-1] = True
        row("any of 2^%d bool, True last (host)" % (n.bit_length() - 1), "numpy.any",
            median_time(lambda: pplab.any(mask)), median_time(lambda: np.any(mask)))
        del xz, mask
        # numpy.sum along each axis of a matrix, and along the middle axis of a 3-D array.
        side = 1024 if q else 8192
        xm = x[:side * side].reshape(side, side) if side * side <= n else \
            rng.standard_normal((side, side)).astype(np.float32)
        for axis in (0, 1):
            row("sum axis=%d of %d^2 f32 (host)" % (axis, side), "numpy.sum(axis=%d)" % axis,
                median_time(lambda: pplab.sum(xm, axis=axis)), median_time(lambda: xm.sum(axis=axis)))
        x3 = x[:n].reshape(64, -1, 1024)
        row("sum axis=1 of %dx%dx%d f32 (host)" % x3.shape, "numpy.sum(axis=1)",
            median_time(lambda: pplab.sum(x3, axis=1)), median_time(lambda: x3.sum(axis=1)))
        m = 256 if q else 1024
        a, b = rng.standard_normal((m, m)).astype(np.float32), rng.standard_normal((m, m)).astype(np.float32)
        row("matmul %dx%d f32 (host)" % (m, m), "numpy.matmul", median_time(lambda: pplab.matmul(a, b)),
            median_time(lambda: a @ b))
        # Stacks of small products (numpy.matmul of 3-D operands).
        for count, side in ((256, 32), (1024, 16), (64, 128)):
            sa = rng.standard_normal((count, side, side)).astype(np.float32)
            sb = rng.standard_normal((count, side, side)).astype(np.float32)
            row("matmul %d x %d^3 f32 (host)" % (count, side), "numpy.matmul",
                median_time(lambda: pplab.matmul(sa, sb)), median_time(lambda: sa @ sb))
        # A matrix times a vector and a vector times a matrix (the matrix read once: NumPy's gemv).
        mv = 1024 if q else 8192
        av = xm if side == mv else rng.standard_normal((mv, mv)).astype(np.float32)
        v = rng.standard_normal(mv).astype(np.float32)
        row("matmul %dx%d @ vector f32 (host)" % (mv, mv), "numpy.matmul",
            median_time(lambda: pplab.matmul(av, v)), median_time(lambda: av @ v))
        row("matmul vector @ %dx%d f32 (host)" % (mv, mv), "numpy.matmul",
            median_time(lambda: pplab.matmul(v, av)), median_time(lambda: v @ av))
        try:
            import scipy.ndimage as ndimage
            img = rng.standard_normal((512, 512) if q else (2048, 2048)).astype(np.float32)
            w = rng.standard_normal((7, 7)).astype(np.float32)
            row("correlate %dx%d f32 7x7 (host)" % img.shape, "scipy.ndimage.correlate",
                median_time(lambda: pplab.correlate(img, w)),
                median_time(lambda: ndimage.correlate(img, w), reps=3))
        except ImportError:
            pass

    if pplab.backends()["cuda"]["available"]:
        try:
            import torch
        except ImportError:
            torch = None
        try:
            import cupy
        except ImportError:
            cupy = None
        n = 1 << (22 if q else 28)
        if "torch" in sections and torch is not None and torch.cuda.is_available():
            sync = torch.cuda.synchronize
            torch.backends.cuda.matmul.allow_tf32 = False
            t = torch.randn(n, device="cuda")
            warm_up(lambda: t.sum(), sync)
            # the fixed cost of a call, where the kernels take microseconds
            ts, tsm = t[:1024], t[:4096].reshape(64, 64)
            row("sum of 1024 f32 (torch)", "torch.sum", median_time(lambda: pplab.sum(ts), sync, reps=201),
                median_time(lambda: ts.sum().item(), sync, reps=201))
            row("sum axis=0 of 64x64 f32 (torch)", "torch.sum(dim=0)",
                median_time(lambda: pplab.sum(tsm, axis=0), sync, reps=201),
                median_time(lambda: tsm.sum(dim=0), sync, reps=201))
            row("sum of 2^%d f32 (torch)" % (n.bit_length() - 1), "torch.sum",
                median_time(lambda: pplab.sum(t), sync), median_time(lambda: t.sum().item(), sync))
            row("  its compiled call alone", "torch.sum",
                median_time(lambda: pplab._pplab.reduce(t, "sum"), sync),
                median_time(lambda: t.sum().item(), sync))
            row("exact sum of 2^%d f32 (torch)" % (n.bit_length() - 1), "torch.sum",
                median_time(lambda: pplab.sum(t, exact=True), sync),
                median_time(lambda: t.sum().item(), sync))
            td = t.double()
            row("exact sum of 2^%d f64 (torch)" % (n.bit_length() - 1), "torch.sum",
                median_time(lambda: pplab.sum(td, exact=True), sync),
                median_time(lambda: td.sum().item(), sync))
            del td
            row("argmax of 2^%d f32 (torch)" % (n.bit_length() - 1), "torch.argmax",
                median_time(lambda: pplab.argmax(t), sync),
                median_time(lambda: t.argmax().item(), sync))
            # torch.var accumulates float32 data in float32 (Welford); pplab in double
            row("var of 2^%d f32 (torch)" % (n.bit_length() - 1), "torch.var",
                median_time(lambda: pplab.var(t), sync),
                median_time(lambda: t.var(correction=0).item(), sync))
            tn = t.clone()
            tn[5::17] = float("nan")  # one NaN in 17
            for op in ("nansum", "nanmean"):
                row("%s of 2^%d f32 (torch)" % (op, n.bit_length() - 1), "torch." + op,
                    median_time(lambda: getattr(pplab, op)(tn), sync),
                    median_time(lambda: getattr(tn, op)().item(), sync))
            del tn
            tz = t.round()  # about 38% zeros
            row("count_nonzero of 2^%d f32 (torch)" % (n.bit_length() - 1), "torch.count_nonzero",
                median_time(lambda: pplab.count_nonzero(tz), sync),
                median_time(lambda: torch.count_nonzero(tz).item(), sync))
            tb = tz != 0
            row("any of 2^%d bool (torch)" % (n.bit_length() - 1), "torch.any",
                median_time(lambda: pplab.any(tb), sync), median_time(lambda: tb.any().item(), sync))
            del tz, tb
            # torch.sum(dim=) along each axis of a 16384^2 matrix and the middle of a 3-D array:
            # the answers stay on the GPU in both.
            tm = t[:1 << 28].reshape(16384, 16384) if n >= 1 << 28 else t.reshape(2048, -1)
            for axis in (0, 1):
                row("sum axis=%d of %dx%d f32 (torch)" % ((axis,) + tuple(tm.shape)),
                    "torch.sum(dim=%d)" % axis, median_time(lambda: pplab.sum(tm, axis=axis), sync),
                    median_time(lambda: tm.sum(dim=axis), sync))
            t3 = t.reshape(64, 1024, -1) if n >= 1 << 28 else t.reshape(64, 256, -1)
            row("sum axis=1 of %dx%dx%d f32 (torch)" % tuple(t3.shape), "torch.sum(dim=1)",
                median_time(lambda: pplab.sum(t3, axis=1), sync),
                median_time(lambda: t3.sum(dim=1), sync))
            for bins in (1024, 65536, 1 << 20):
                row("histogram 2^%d f32, %d bins (torch)" % (n.bit_length() - 1, bins), "torch.histc",
                    median_time(lambda: pplab.histogram(t, bins, (-4, 4)), sync),
                    median_time(lambda: torch.histc(t, bins, -4, 4), sync))
                # where the time goes: the compiled call alone (counts to a host array)
                row("  its compiled call alone, %d bins" % bins, "torch.histc",
                    median_time(lambda: pplab._pplab.histogram(t, bins, -4.0, 4.0, True), sync),
                    median_time(lambda: torch.histc(t, bins, -4, 4), sync))
            ti = torch.randint(0, 65536, (n,), device="cuda")
            tw = torch.rand(n, device="cuda")
            row("bincount 2^%d i64, 65536 bins, f32 weights (torch)" % (n.bit_length() - 1),
                "torch.bincount", median_time(lambda: pplab.bincount(ti, tw), sync),
                median_time(lambda: torch.bincount(ti, tw, minlength=65536), sync))
            del ti, tw
            nb = 1 << (24 if q else 30)
            u8 = torch.randint(0, 256, (nb,), dtype=torch.uint8, device="cuda")
            row("bincount 2^%d u8 (torch)" % (nb.bit_length() - 1), "torch.bincount",
                median_time(lambda: pplab.bincount(u8), sync),
                median_time(lambda: torch.bincount(u8, minlength=256), sync))
            # torch.mv and a vector times a matrix, on the 16384^2 matrix above
            tv = torch.randn(tm.shape[1], device="cuda")
            row("matmul %dx%d @ vector f32 (torch)" % tuple(tm.shape), "torch.mv",
                median_time(lambda: pplab.matmul(tm, tv), sync),
                median_time(lambda: torch.mv(tm, tv), sync))
            tu = torch.randn(tm.shape[0], device="cuda")
            row("matmul vector @ %dx%d f32 (torch)" % tuple(tm.shape), "torch.matmul",
                median_time(lambda: pplab.matmul(tu, tm), sync),
                median_time(lambda: tu @ tm, sync))
            row("matmul %dx%d.T @ vector f32 (torch)" % tuple(tm.shape), "torch.mv",
                median_time(lambda: pplab.matmul(tm.T, tu), sync),
                median_time(lambda: torch.mv(tm.T, tu), sync))
            m = 1024 if q else 8192
            ta, tb = torch.randn(m, m, device="cuda"), torch.randn(m, m, device="cuda")
            row("matmul %dx%d f32 strict (torch)" % (m, m), "torch.matmul, TF32 off",
                median_time(lambda: pplab.matmul(ta, tb), sync, reps=5),
                median_time(lambda: ta @ tb, sync, reps=5))
            # split-TF32 with its error beside the strict product's: the largest difference from
            # the float64 product, over the largest element of that product
            exact = ta.double() @ tb.double()

            def error(c):
                return ((c.double() - exact).abs().max() / exact.abs().max()).item()

            row("matmul %dx%d f32 split_tf32 (torch)" % (m, m), "torch.matmul, TF32 off",
                median_time(lambda: pplab.matmul(ta, tb, precision="split_tf32"), sync, reps=5),
                median_time(lambda: ta @ tb, sync, reps=5),
                "error %.2e (torch.matmul's %.2e)" % (
                    error(pplab.matmul(ta, tb, precision="split_tf32")), error(ta @ tb)))
            del exact
            side = 1024 if q else 8192
            img = torch.randn(side, side, device="cuda")
            # Strict fp32 for cuDNN too (PyTorch lets its convolutions use TF32 by default), with
            # cuDNN's own choice of algorithm and with its autotuner (benchmark mode; the warm-up
            # calls of median_time tune the shape).
            torch.backends.cudnn.allow_tf32 = False
            for k in (3, 7, 15):
                w = torch.randn(k, k, device="cuda")
                wn = w.cpu().numpy().astype(np.float64)
                t_pplab = median_time(lambda: pplab.correlate(img, wn, mode="constant"), sync)
                for tuned in (False, True):
                    torch.backends.cudnn.benchmark = tuned
                    row("correlate %dx%d f32 %dx%d (torch)" % (side, side, k, k),
                        "conv2d (cuDNN%s, fp32, padded)" % (" autotuned" if tuned else ""),
                        t_pplab, median_time(lambda: torch.nn.functional.conv2d(
                            img[None, None], w[None, None], padding=k // 2), sync))
                torch.backends.cudnn.benchmark = False
        if "cupy" in sections and cupy is not None:
            sync = cupy.cuda.Device().synchronize
            c = cupy.random.standard_normal(n, dtype=cupy.float32)
            warm_up(lambda: c.sum(), sync)
            row("sum of 2^%d f32 (cupy)" % (n.bit_length() - 1), "cupy.sum",
                median_time(lambda: pplab.sum(c), sync), median_time(lambda: float(c.sum()), sync))
            row("argmax of 2^%d f32 (cupy)" % (n.bit_length() - 1), "cupy.argmax",
                median_time(lambda: pplab.argmax(c), sync),
                median_time(lambda: int(c.argmax()), sync))
            row("var of 2^%d f32 (cupy)" % (n.bit_length() - 1), "cupy.var",
                median_time(lambda: pplab.var(c), sync), median_time(lambda: float(c.var()), sync))
            cz = cupy.around(c)  # about 38% zeros
            row("count_nonzero of 2^%d f32 (cupy)" % (n.bit_length() - 1), "cupy.count_nonzero",
                median_time(lambda: pplab.count_nonzero(cz), sync),
                median_time(lambda: int(cupy.count_nonzero(cz)), sync))
            row("all of 2^%d f32 (cupy)" % (n.bit_length() - 1), "cupy.all",
                median_time(lambda: pplab.all(cz), sync), median_time(lambda: bool(cz.all()), sync))
            del cz
            cn = c.copy()
            cn[5::17] = cupy.nan  # one NaN in 17
            for op in ("nansum", "nanmean", "nanmax", "nanvar", "nanargmax"):
                row("%s of 2^%d f32 (cupy)" % (op, n.bit_length() - 1), "cupy." + op,
                    median_time(lambda: getattr(pplab, op)(cn), sync),
                    median_time(lambda: float(getattr(cupy, op)(cn)), sync))
            del cn
            row("histogram 2^%d f32, 1024 bins (cupy)" % (n.bit_length() - 1), "cupy.histogram",
                median_time(lambda: pplab.histogram(c, 1024, (-4, 4)), sync),
                median_time(lambda: cupy.histogram(c, 1024, (-4, 4)), sync))
            cw = cupy.random.random(n, dtype=cupy.float32)
            row("histogram 2^%d f32, 1024 bins, f32 weights (cupy)" % (n.bit_length() - 1),
                "cupy.histogram",
                median_time(lambda: pplab.histogram(c, 1024, (-4, 4), weights=cw), sync),
                median_time(lambda: cupy.histogram(c, 1024, (-4, 4), weights=cw), sync))
            n2 = 1 << (22 if q else 26)
            px = cupy.random.standard_normal(n2, dtype=cupy.float32)
            py = cupy.random.standard_normal(n2, dtype=cupy.float32)
            square = [[-4, 4], [-4, 4]]
            row("histogram2d 2^%d f32 points, 256x256 bins (cupy)" % (n2.bit_length() - 1),
                "cupy.histogram2d",
                median_time(lambda: pplab.histogram2d(px, py, 256, square), sync),
                median_time(lambda: cupy.histogram2d(px, py, 256, square), sync))
            del px, py
            rgb = cupy.random.randint(0, 256, (n2, 3), dtype=cupy.uint8)
            cube = [(0, 256)] * 3
            row("histogramdd 2^%d RGB u8 pixels, 16^3 bins (cupy)" % (n2.bit_length() - 1),
                "cupy.histogramdd",
                median_time(lambda: pplab.histogramdd(rgb, 16, cube), sync),
                median_time(lambda: cupy.histogramdd(rgb, 16, cube), sync))
            del rgb
            edges_gpu = cupy.asarray(edges)
            row("histogram 2^%d f32, 1024 edges (cupy)" % (n.bit_length() - 1), "cupy.histogram",
                median_time(lambda: pplab.histogram(c, edges), sync),
                median_time(lambda: cupy.histogram(c, edges_gpu), sync))
            del cw
            try:
                import cupyx.scipy.ndimage as cndimage
                side = 1024 if q else 8192
                img = cupy.random.standard_normal((side, side), dtype=cupy.float32)
                w = np.random.default_rng(2).standard_normal((7, 7))
                row("correlate %dx%d f32 7x7 (cupy)" % (side, side), "cupyx.scipy.ndimage.correlate",
                    median_time(lambda: pplab.correlate(img, w), sync),
                    median_time(lambda: cndimage.correlate(img, cupy.asarray(w, dtype=cupy.float32)), sync))
            except ImportError:
                pass
            del c
        if "filters" in sections and cupy is not None:
            gpu_filters(row, q, cupy)
        if "stacks" in sections and torch is not None and torch.cuda.is_available():
            gpu_stacks(row, q, torch)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "numpy": np.__version__, "python": sys.version}, f, indent=1)


def gpu_filters(row, q, cupy):
    """SciPy's named filters on a CuPy image and volume against cupyx.scipy.ndimage's, both
    answers float32 (the issue's rows: 8192^2 f32, sigma 1, 2 and 4; 512^3 at sigma 1)."""
    try:
        import cupyx.scipy.ndimage as cnd
    except ImportError:
        return
    sync = cupy.cuda.Device().synchronize
    side = 1024 if q else 8192
    img = cupy.random.standard_normal((side, side), dtype=cupy.float32)
    warm_up(lambda: cnd.uniform_filter(img, 3), sync)
    name = "%dx%d f32 (cupy)" % (side, side)

    def named_filters(img, name, sigmas):  # gaussian, uniform (size 7) and sobel, both libraries
        for sigma in sigmas:
            row("gaussian_filter sigma %g %s" % (sigma, name), "cupyx gaussian_filter",
                median_time(lambda: pplab.gaussian_filter(img, sigma), sync),
                median_time(lambda: cnd.gaussian_filter(img, sigma), sync))
        row("uniform_filter size 7 %s" % name, "cupyx uniform_filter",
            median_time(lambda: pplab.uniform_filter(img, 7), sync),
            median_time(lambda: cnd.uniform_filter(img, 7), sync))
        row("sobel %s" % name, "cupyx sobel", median_time(lambda: pplab.sobel(img), sync),
            median_time(lambda: cnd.sobel(img), sync))

    named_filters(img, name, (1, 2, 4))
    w15 = np.random.default_rng(4).standard_normal(15)
    w15_gpu = cupy.asarray(w15, dtype=cupy.float32)
    for axis in (-1, 0):
        row("correlate1d 15 taps axis %d %s" % (axis, name), "cupyx correlate1d",
            median_time(lambda: pplab.correlate1d(img, w15, axis=axis), sync),
            median_time(lambda: cnd.correlate1d(img, w15_gpu, axis=axis), sync))
    del img
    edge = 128 if q else 512
    vol = cupy.random.standard_normal((edge,) * 3, dtype=cupy.float32)
    row("gaussian_filter sigma 1 %d^3 f32 (cupy)" % edge, "cupyx gaussian_filter",
        median_time(lambda: pplab.gaussian_filter(vol, 1), sync),
        median_time(lambda: cnd.gaussian_filter(vol, 1), sync))
    del vol
    # correlate where SciPy's arithmetic runs (integer images, 3-D volumes, origin=, another
    # output type: pplab::correlate_in_scipys_order_device), pplab's answers SciPy's bits
    rng = np.random.default_rng(5)
    side, edge = (1024, 64) if q else (4096, 256)
    u8 = cupy.asarray(rng.integers(0, 256, (side, side), dtype=np.uint8))
    i16 = cupy.asarray(rng.integers(-3000, 3000, (side, side), dtype=np.int16))
    f32 = cupy.random.standard_normal((side, side), dtype=cupy.float32)
    vol = cupy.random.standard_normal((edge,) * 3, dtype=cupy.float32)
    sobel = np.array([[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]])
    # SciPy's named filters on integer images: a pass an axis in SciPy's arithmetic
    # (pplab::correlate1d_in_scipys_order_device), SciPy's integers
    named_filters(u8, "u8 %d^2 (cupy)" % side, (1.5, 4))
    for what, x, w, kw in (("u8 %d^2 5x5 box", u8, np.full((5, 5), 1 / 25), {}),
                           ("u8 %d^2 3x3 sobel", u8, sobel, {}),
                           ("i16 %d^2 7x7", i16, rng.standard_normal((7, 7)), {}),
                           ("f32 %d^3 3x3x3", vol, rng.standard_normal((3, 3, 3)), {}),
                           ("f32 %d^3 5x5x5", vol, rng.standard_normal((5, 5, 5)), {}),
                           ("f32 %d^2 4x4 origin", f32, rng.standard_normal((4, 4)),
                            {"origin": -1}),
                           ("u8 %d^2 5x5 to f32", u8, rng.standard_normal((5, 5)),
                            {"output": cupy.float32})):
        wg = cupy.asarray(w, dtype=cupy.float32 if x.dtype == cupy.float32 else cupy.float64)
        row("correlate " + what % (edge if x.ndim == 3 else side) + " (cupy)",
            "cupyx correlate", median_time(lambda: pplab.correlate(x, w, **kw), sync),
            median_time(lambda: cnd.correlate(x, wg, **kw), sync))


def gpu_stacks(row, q, torch):
    """Stacks of products (numpy.matmul's 3-D operands) on torch tensors against torch.bmm with
    TF32 off, strict and split_tf32; the note gives both rates in TFLOP/s."""
    sync = torch.cuda.synchronize
    torch.backends.cuda.matmul.allow_tf32 = False
    for count, m in ((16, 256), (64, 128)) if q else ((256, 512), (4096, 128)):
        a = torch.randn(count, m, m, device="cuda")
        b = torch.randn(count, m, m, device="cuda")
        flops = 2.0 * count * m ** 3
        warm_up(lambda: torch.bmm(a, b), sync)
        t_bmm = median_time(lambda: torch.bmm(a, b), sync)
        for precision in ("strict", "split_tf32"):
            t = median_time(lambda: pplab.matmul(a, b, precision=precision), sync)
            row("matmul %d x %d^3 f32 %s (torch)" % (count, m, precision), "torch.bmm, TF32 off",
                t, t_bmm, "%.1f / %.1f TFLOP/s" % (flops / t / 1e12, flops / t_bmm / 1e12))
        del a, b


if __name__ == "__main__":
    main()
