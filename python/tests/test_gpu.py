# GPU arrays (CuPy's and PyTorch's) on the cuda backend, read where they lie: every call against
# NumPy and SciPy on a host copy, the answers in the caller's type on the caller's device, and
# arrays made on a stream other than the default one (the DLPack handshake makes pplab wait for
# it). Skipped where there is no GPU, no cuda backend or neither library.
import numpy as np
import pytest

import pplab
from conftest import moments_oracle, rtol_for

if not pplab.backends()["cuda"]["available"]:
    pytest.skip("no usable cuda backend: " + pplab.backends()["cuda"]["reason"],
                allow_module_level=True)

LIBRARIES = []
try:
    import cupy
    LIBRARIES.append("cupy")
except ImportError:
    cupy = None
try:
    import torch
    if torch.cuda.is_available():
        LIBRARIES.append("torch")
except ImportError:
    torch = None
if not LIBRARIES:
    pytest.skip("neither CuPy nor PyTorch with CUDA is installed", allow_module_level=True)


def to_gpu(lib, host):
    if lib == "cupy":
        return cupy.asarray(host)
    return torch.from_numpy(np.ascontiguousarray(host)).cuda()


def to_host(x):
    if cupy is not None and isinstance(x, cupy.ndarray):
        return x.get()
    return x.cpu().numpy()


def is_gpu_array_of(lib, x):
    if lib == "cupy":
        return isinstance(x, cupy.ndarray)
    return isinstance(x, torch.Tensor) and x.is_cuda


@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 1000, 1 << 20, 3000017])
def test_reductions_of_gpu_arrays(rng, lib, dtype, n):
    host = (rng.standard_normal(n) * 50).astype(dtype)
    x = to_gpu(lib, host)
    wide = host.astype(np.float64)
    assert pplab.sum(x) == pytest.approx(wide.sum(), rel=1e-12, abs=1e-6)
    assert pplab.min(x) == host.min() and pplab.max(x) == host.max()
    assert pplab.mean(x) == pytest.approx(wide.mean(), rel=1e-12, abs=1e-9)
    kept = pplab.max(x, keepdims=True)  # every axis kept: an array on x's device, as NumPy's
    assert is_gpu_array_of(lib, kept) and tuple(kept.shape) == (1,)
    assert to_host(kept)[0] == host.max()


# Exact sums and means of GPU arrays (r13_exact_windows): the bits of the host's exact sum, which
# test_host.py holds to rational arithmetic; hostile data whose tiles leave the window, and
# plain data that stays in it.
@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 1000, 1 << 20, 3000017])
def test_exact_sums_of_gpu_arrays(rng, lib, dtype, n):
    import math
    fi = np.finfo(dtype)
    plain = rng.random(n).astype(dtype) - dtype(0.25)
    wide = (rng.standard_normal(n) * np.exp2(rng.integers(-120, 120, n))).astype(dtype)
    wide[:: max(1, n // 7)] = fi.smallest_subnormal
    spiked = plain.copy()
    spiked[rng.integers(0, n, 1 + n // 100000)] = fi.max / 4
    for x in (plain, wide, spiked, np.concatenate([wide, -wide[::-1]])):
        for call in (pplab.sum, pplab.mean):
            got = call(to_gpu(lib, x), exact=True)
            want = call(x, exact=True)
            assert got == want, (call.__name__, got, want)
    specials = plain.copy()
    specials[n // 2] = np.inf
    assert pplab.sum(to_gpu(lib, specials), exact=True) == math.inf
    specials[n // 3] = -np.inf
    assert math.isnan(pplab.sum(to_gpu(lib, specials), exact=True)) or n < 3
    assert pplab.sum(to_gpu(lib, np.zeros(n, dtype)), exact=True) == 0.0
    with pytest.raises(ValueError, match="host arrays"):
        pplab.sum(to_gpu(lib, np.zeros((2, 3), dtype)), axis=0, exact=True)


@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4), (1000, 7), (7, 1000), (3, 100003), (0, 5),
                                   (4, 0)])
def test_reductions_along_the_last_axis_of_gpu_arrays(rng, lib, dtype, shape):
    values = rng.standard_normal(int(np.prod(shape))) * 50
    unsigned = np.issubdtype(dtype, np.unsignedinteger)
    host = (np.abs(values) if unsigned else values).astype(dtype).reshape(shape)
    try:
        x = to_gpu(lib, host)
        narrow = x[..., :6].contiguous() if lib == "torch" else cupy.ascontiguousarray(x[..., :6])
    except (RuntimeError, TypeError) as e:  # PyTorch's uint64 tensors have few CUDA kernels
        pytest.skip("%s cannot hold this array on the GPU: %s" % (lib, e))
    floating = np.issubdtype(dtype, np.floating)
    wide = host.astype(np.float64 if floating else
                       (np.int64 if np.issubdtype(dtype, np.signedinteger) else np.uint64))
    for name in ("sum", "prod", "min", "max", "mean"):
        y, w = (narrow, wide[..., :6]) if name == "prod" else (x, wide)
        if name in ("min", "max") and shape[-1] == 0:
            with pytest.raises(ValueError, match="zero-size"):
                pplab.reduce(y, name, axis=-1)
            continue
        if name == "mean" and shape[-1] == 0 and shape[0] > 0:
            with pytest.raises(ValueError, match="empty"):
                pplab.mean(y, axis=-1)
            continue
        got = pplab.reduce(y, name, axis=-1)
        assert is_gpu_array_of(lib, got) and tuple(got.shape) == shape[:-1]
        want = getattr(np, name)(w, axis=-1)
        assert to_host(got).dtype == getattr(np, name)(host, axis=-1).dtype  # NumPy's type
        if floating or name == "mean":
            np.testing.assert_allclose(to_host(got), want, rtol=rtol_for(got, 1e-12), atol=1e-9)
        else:
            assert np.array_equal(to_host(got), want)
        if floating and name in ("sum", "mean"):  # dtype=float64: the double answers, unrounded
            wide_got = pplab.reduce(y, name, axis=-1, dtype=np.float64)
            np.testing.assert_allclose(to_host(wide_got), want, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
def test_var_and_std_of_gpu_arrays(rng, lib, dtype):
    # r12's (count, mean, squared deviations) per thread, merged; the axes' kernels the same
    host = (np.abs(rng.normal(size=(33, 257, 65))) * 40 + 500).astype(dtype)
    x, ref = to_gpu(lib, host), host.astype(np.float64)
    for op in ("var", "std"):
        mine, theirs = getattr(pplab, op), getattr(np, op)
        assert mine(x) == pytest.approx(theirs(ref), rel=1e-10)
        assert mine(x, ddof=1) == pytest.approx(theirs(ref, ddof=1), rel=1e-10)
        for axis in (-1, 0, 1, (0, 2)):
            got = mine(x, axis=axis)
            assert is_gpu_array_of(lib, got)
            assert to_host(got).dtype == theirs(host, axis=axis).dtype
            np.testing.assert_allclose(to_host(got), theirs(ref, axis=axis),
                                       rtol=rtol_for(got, 1e-10))
    whole = to_gpu(lib, (rng.normal(size=3000017) + 1e6).astype(np.float64))
    assert pplab.var(whole) == pytest.approx(np.var(to_host(whole)), rel=1e-9)
    # a mean far from the spread: the kernels take the values less one of them (shift_for);
    # before, the whole array's variance was 7e-10 off the exact one, a column's 5e-9
    far = 1e9 + rng.normal(size=(4001, 12))
    far[0, 3] = np.nan  # nanvar's shift: the first number of the column
    for axis in (None, 0, 1):
        for op in ("var", "nanvar", "nanmean"):
            got = getattr(pplab, op)(to_gpu(lib, far), axis=axis)
            want = moments_oracle(op, far, axis)
            np.testing.assert_allclose(to_host(got) if axis is not None else got, want,
                                       rtol=1e-13, err_msg="%s %s" % (op, axis))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the NaN lines' warnings, NumPy's too
@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_nan_reductions_of_gpu_arrays(rng, lib, dtype):
    # r12 and the axes' kernels with NaN lifted to each op's identity (nanmin, nanmax: fminf)
    host = (rng.normal(size=(33, 257, 65)) * 40 + 5).astype(dtype)
    if host.dtype.kind == "f":
        host[rng.random(host.shape) < 0.2] = np.nan
        host[2, :, 5] = np.nan  # a line of NaN alone along axis 1
    x, ref = to_gpu(lib, host), host.astype(np.float64) if host.dtype.kind == "f" else host
    for op in ("nansum", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd", "nanargmin",
               "nanargmax"):
        mine, theirs = getattr(pplab, op), getattr(np, op)
        arg = op.endswith(("argmin", "argmax"))
        assert mine(x) == pytest.approx(theirs(host if arg else ref), rel=1e-10), op
        for axis in (-1, 0) if arg else (-1, 0, 1, (0, 2)):  # axis 1 holds the line of NaN
            got = mine(x, axis=axis)
            assert is_gpu_array_of(lib, got)
            want = theirs(host if arg else ref, axis=axis)
            # atol: a mean near zero of values of both signs (the data's scale ~100) differs
            # from NumPy's by the rounding of the additions, ~1e-15 (seed 485493279: 1.8e-15 at
            # a mean of 1.1e-5, 1.6e-10 relative)
            np.testing.assert_allclose(to_host(got), want, rtol=rtol_for(got, 1e-10), atol=1e-12,
                                       err_msg=op)
            assert to_host(got).dtype == theirs(host, axis=axis).dtype, op
    if host.dtype.kind == "f":
        with pytest.raises(ValueError, match="All-NaN"):
            pplab.nanargmax(x, axis=1)


@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.float32, np.float64])
def test_count_nonzero_any_and_all_of_gpu_arrays(rng, lib, dtype):
    # r12 and the axes' kernels counting x != 0 (NaN counts, -0.0 does not)
    host = rng.integers(-2, 3, size=(33, 257, 65)).astype(dtype)
    if host.dtype.kind == "f":
        host[rng.random(host.shape) < 0.1] = np.nan
        host[rng.random(host.shape) < 0.1] = -0.0
    host[3] = 0  # lines of zeros alone: any() False there
    host[4] = 1  # and lines without one: all() True there
    x = to_gpu(lib, host)
    assert pplab.count_nonzero(x) == np.count_nonzero(host)
    assert pplab.any(x) is np.True_ and pplab.all(x) is np.False_
    for axis in (-1, 0, 1, (0, 2)):
        got = pplab.count_nonzero(x, axis=axis)
        assert is_gpu_array_of(lib, got)
        np.testing.assert_array_equal(to_host(got), np.count_nonzero(host, axis=axis))
        for name in ("any", "all"):
            got = getattr(pplab, name)(x, axis=axis)
            assert is_gpu_array_of(lib, got)
            np.testing.assert_array_equal(to_host(got), getattr(np, name)(host, axis=axis))


@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("bins", [10, 1024, 65536, 2**20])
def test_histograms_of_gpu_arrays(rng, lib, bins):
    # NumPy's float32 edges, bit for bit, on the GPU binners: values on them and beside them too;
    # over [-4, 4) (torch.histc's range for normal data) every edge is a float sum taken in float
    for lo, hi in ((-3, 3), (-4, 4)):
        host = rng.standard_normal(1 << 20).astype(np.float32)
        _, on = np.histogram(host, bins, (lo, hi))
        on = on[rng.integers(0, on.size, min(on.size, host.size // 4))]
        host[: on.size] = on
        host[on.size: 2 * on.size] = np.nextafter(on, np.float32(np.inf))
        host[2 * on.size: 3 * on.size] = np.nextafter(on, np.float32(-np.inf))
        x = to_gpu(lib, host)
        got, edges = pplab.histogram(x, bins, (lo, hi))
        assert is_gpu_array_of(lib, got)
        want, want_edges = np.histogram(host, bins, (lo, hi))
        assert to_host(got).tolist() == want.tolist(), (lo, hi)
        np.testing.assert_array_equal(edges, want_edges)
    got, edges = pplab.histogram(x, bins)
    want, want_edges = np.histogram(host, bins)
    assert to_host(got).tolist() == want.tolist()
    np.testing.assert_array_equal(edges, want_edges)
    bytes_ = rng.integers(0, 256, 1 << 20).astype(np.uint8)
    assert to_host(pplab.bincount(to_gpu(lib, bytes_))).tolist() == np.bincount(bytes_).tolist()


@pytest.mark.parametrize("lib", LIBRARIES)
def test_boolean_gpu_arrays_reduce_and_count_as_numpy_does(rng, lib):
    host = rng.random((301, 257)) > 0.6
    x = to_gpu(lib, host)
    assert pplab.sum(x) == np.sum(host)
    assert bool(pplab.max(x)) and not bool(pplab.min(x))
    got = pplab.sum(x, axis=0)
    assert is_gpu_array_of(lib, got)
    assert to_host(got).tolist() == np.sum(host, axis=0).tolist()
    assert str(got.dtype).endswith("int64")
    assert to_host(pplab.max(x, axis=1)).tolist() == np.max(host, axis=1).tolist()
    assert pplab.argmax(x) == np.argmax(host)
    assert to_host(pplab.bincount(x.ravel() if lib == "cupy" else x.flatten())).tolist() == \
        np.bincount(host.ravel()).tolist()


@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.int64])
@pytest.mark.parametrize("top", [1, 200, 5000])
@pytest.mark.parametrize("minlength", [0, 7, 70000])
def test_bincount_of_gpu_arrays(rng, lib, dtype, top, minlength):
    # counts made on the GPU and returned there, numpy.bincount's length: the largest value
    # present plus one, or minlength
    top = int(min(top, np.iinfo(dtype).max))
    host = rng.integers(0, top, 100003).astype(dtype)
    got = pplab.bincount(to_gpu(lib, host), minlength=minlength)
    assert is_gpu_array_of(lib, got)
    want = np.bincount(host, minlength=minlength)
    assert to_host(got).dtype == np.int64 and to_host(got).tolist() == want.tolist()
    if dtype in (np.int32, np.int64):
        with pytest.raises(ValueError, match="non-negative"):
            pplab.bincount(to_gpu(lib, np.array([3, -1, 2], dtype=dtype)))


@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_of_gpu_arrays(rng, lib, dtype):
    a = rng.standard_normal((129, 67)).astype(dtype)
    b = rng.standard_normal((67, 255)).astype(dtype)
    c = pplab.matmul(to_gpu(lib, a), to_gpu(lib, b))
    assert is_gpu_array_of(lib, c)
    want = a.astype(np.float64) @ b.astype(np.float64)
    bound = 2 * (67 + 2) * np.finfo(dtype).eps * (np.abs(a).astype(np.float64) @ np.abs(b))
    assert np.all(np.abs(to_host(c) - want) <= bound)
    if dtype == np.float32:
        split = pplab.matmul(to_gpu(lib, a), to_gpu(lib, b), precision="split_tf32")
        assert np.all(np.abs(to_host(split) - want) <= 4 * bound)


@pytest.mark.parametrize("lib", LIBRARIES)
def test_matmul_of_gpu_arrays_takes_numpys_shapes(rng, lib):
    cases = [((67,), (67,)), ((67,), (67, 5)), ((9, 67), (67,)), ((3, 9, 67), (67, 5)),
             ((3, 9, 67), (3, 67, 5)), ((2, 1, 9, 67), (4, 67, 5)), ((0, 9, 67), (67, 5))]
    for sa, sb in cases:
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb)  # float64: the answer float64, as NumPy's
        got = pplab.matmul(to_gpu(lib, a), to_gpu(lib, b))
        assert is_gpu_array_of(lib, got)
        want = np.matmul(a.astype(np.float64), b)
        assert tuple(got.shape) == want.shape
        np.testing.assert_allclose(to_host(got), want, rtol=1e-9, atol=1e-9)
    a = rng.standard_normal((40, 30)).astype(np.float32)
    ga = to_gpu(lib, a)
    out = to_gpu(lib, np.zeros((30, 30), np.float32))
    assert pplab.matmul(ga.T, ga, out=out) is out  # a transposed view: copied, then multiplied
    want = a.T.astype(np.float64) @ a
    bound = 2 * 42 * np.finfo(np.float32).eps * (np.abs(a.T).astype(np.float64) @ np.abs(a))
    assert np.all(np.abs(to_host(out) - want) <= bound)
    # A transposed matrix by a vector, each way: read where it lies (x A, A x).
    x, y = rng.standard_normal(40).astype(np.float32), rng.standard_normal(30).astype(np.float32)
    for got, want in ((pplab.matmul(ga.T, to_gpu(lib, x)), a.T @ x),
                      (pplab.matmul(to_gpu(lib, y), ga.T), y @ a.T)):
        assert is_gpu_array_of(lib, got) and tuple(got.shape) == want.shape
        np.testing.assert_allclose(to_host(got), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("lib", LIBRARIES)
def test_filters_of_gpu_arrays(rng, lib):
    ndimage = pytest.importorskip("scipy.ndimage")
    image = rng.standard_normal((301, 517)).astype(np.float32)
    weights = rng.standard_normal((7, 7))
    for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
        got = pplab.correlate(to_gpu(lib, image), weights, mode=mode, cval=0.5)
        assert is_gpu_array_of(lib, got)
        want = ndimage.correlate(image.astype(np.float64), weights.astype(np.float32).astype(np.float64),
                                 mode=mode, cval=0.5)
        np.testing.assert_allclose(to_host(got), want, rtol=1e-4, atol=1e-4)
    rgb = rng.integers(0, 256, (97, 131, 3)).astype(np.uint8)
    got = pplab.correlate(to_gpu(lib, rgb), np.ones((5, 5)) / 25, output=np.float32)
    want = np.stack([ndimage.correlate(rgb[..., c].astype(np.float64), np.ones((5, 5)) / 25)
                     for c in range(3)], axis=-1)
    np.testing.assert_allclose(to_host(got), want, rtol=1e-5, atol=1e-3)


# SciPy's correlate and convolve of GPU arrays where pplab's rungs do not run them (any rank,
# integer types, another output type, origin=): SciPy's answers bit for bit, in the array's
# library on its GPU (pplab::correlate_in_scipys_order_device).
@pytest.mark.parametrize("lib", LIBRARIES)
def test_correlate_of_gpu_arrays_is_scipys(rng, lib):
    ndimage = pytest.importorskip("scipy.ndimage")
    cases = [((1000,), (4,), -2), ((37, 301), (5, 5), 0), ((9, 13), (2, 6), (-1, 2)),
             ((5, 33, 70), (3, 2, 4), (1, 0, -1))]
    for shape, wshape, origin in cases:
        weights = rng.standard_normal(wshape)
        weights[rng.random(wshape) < 0.2] = 0.0
        for dtype, output in ((np.uint8, None), (np.int16, None), (np.uint8, np.float32),
                              (np.float32, np.float64), (np.float64, np.float32), (np.int32, np.int16)):
            host = (rng.standard_normal(shape) * 90).astype(dtype)
            for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
                for ours, theirs in ((pplab.correlate, ndimage.correlate),
                                     (pplab.convolve, ndimage.convolve)):
                    got = ours(to_gpu(lib, host), weights, output=output, mode=mode, cval=1.5,
                               origin=origin)
                    want = theirs(host, weights, output=output, mode=mode, cval=1.5,
                                  origin=origin)
                    assert is_gpu_array_of(lib, got)
                    np.testing.assert_array_equal(to_host(got), want, err_msg=str(
                        (shape, wshape, origin, dtype, output, mode, ours.__name__)))


# precision="split_tf32": the tensor-core rungs (c09 for small masks, c12 or c11 from 11 x 11),
# within the split's bound of the reference (src/core/verify.hpp's split_tf32_tolerance): fp32's
# error of a sum of 3 K terms plus 2^-18 a term, of the sum of the terms' magnitudes.
@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("side", [3, 15, 17])
def test_split_tf32_filters_of_gpu_arrays(rng, lib, side):
    ndimage = pytest.importorskip("scipy.ndimage")
    image = rng.standard_normal((301, 517)).astype(np.float32)
    weights = rng.standard_normal((side, side))
    w32 = weights.astype(np.float32).astype(np.float64)
    per_term = 2 * (3 * side * side + 2) * 2.0 ** -23 + 2.0 ** -18

    def within_bound(got, filtered, mode, mask):
        want = filtered(image.astype(np.float64), mask, mode=mode, cval=0.5)
        scale = filtered(np.abs(image).astype(np.float64), np.abs(mask), mode=mode, cval=0.5)
        return np.all(np.abs(to_host(got) - want) <= per_term * scale + 2.0 ** -24 * np.abs(want))

    for mode in ("reflect", "constant", "wrap"):
        got = pplab.correlate(to_gpu(lib, image), weights, mode=mode, cval=0.5, precision="split_tf32")
        assert is_gpu_array_of(lib, got)
        assert within_bound(got, ndimage.correlate, mode, w32), mode
    flipped = pplab.convolve(to_gpu(lib, image), weights, mode="nearest", precision="split_tf32")
    assert within_bound(flipped, ndimage.convolve, "nearest", w32)


def test_arrays_made_on_another_stream(rng):
    if torch is None or "torch" not in LIBRARIES:
        pytest.skip("PyTorch with CUDA is not installed")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        # still being written on `side` when pplab is called: pplab runs on the current stream,
        # `side`, behind that work
        x = torch.ones(1 << 24, device="cuda")
        x.mul_(3.0)
        total = pplab.sum(x)
        columns = pplab.sum(x.reshape(4096, -1), axis=0)
        torch.cuda.current_stream().synchronize()
    assert total == 3.0 * (1 << 24)
    assert bool((columns == 3.0 * 4096).all())
    if cupy is not None:
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            y = cupy.full(1 << 24, 2, dtype=cupy.int32)
            assert pplab.sum(y) == 2 * (1 << 24)


def test_calls_run_on_the_callers_current_stream():
    # pplab enqueues on the caller's current stream: behind a kernel already queued there, and
    # not behind one on another stream (no device-wide wait). torch.cuda._sleep spins the GPU.
    if torch is None or "torch" not in LIBRARIES:
        pytest.skip("PyTorch with CUDA is not installed")
    import time
    x = torch.ones(1 << 20, device="cuda")
    torch.cuda.synchronize()
    spin = 2_000_000_000  # GPU cycles: about a second at the H100's or H200's clock
    mine, other = torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(other):
        torch.cuda._sleep(spin)
    with torch.cuda.stream(mine):
        start = time.perf_counter()
        assert pplab.sum(x) == 1 << 20
        unrelated = time.perf_counter() - start
    other.synchronize()
    with torch.cuda.stream(mine):
        torch.cuda._sleep(spin)
        start = time.perf_counter()
        assert pplab.sum(x) == 1 << 20
        behind = time.perf_counter() - start
    assert unrelated < 0.25, "pplab waited for another stream's work"
    assert behind > 0.4, "pplab did not run on the caller's current stream"
    assert behind > 2 * unrelated


def test_outputs_left_on_the_gpu_are_ordered_on_the_callers_stream(rng):
    # histogram and matmul of GPU arrays return once their work is queued on the current stream:
    # the caller's next kernels there see the outputs, with no sync between. The stream is kept
    # busy first (torch.cuda._sleep), so pplab's work is still queued when the readers are.
    if torch is None or "torch" not in LIBRARIES:
        pytest.skip("PyTorch with CUDA is not installed")
    x = rng.standard_normal(1 << 22).astype(np.float32)
    a = rng.standard_normal((300, 200)).astype(np.float32)
    b = rng.standard_normal((200, 100)).astype(np.float32)
    tx, ta, tb = (torch.from_numpy(v).cuda() for v in (x, a, b))
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # about a tenth of a second of GPU cycles
        hist, _ = pplab.histogram(tx, 1024, (-4, 4))
        c = pplab.matmul(ta, tb)
        total = hist.sum()  # queued on `side`, behind pplab's work
        doubled = c * 2
    side.synchronize()
    want, _ = np.histogram(x, 1024, (-4, 4))
    np.testing.assert_array_equal(hist.cpu().numpy(), want)
    assert int(total) == int(want.sum())
    np.testing.assert_allclose(doubled.cpu().numpy(), 2 * (a.astype(np.float64) @ b), rtol=1e-4,
                               atol=1e-3)


def test_gpu_arrays_refuse_host_backends():
    x = to_gpu(LIBRARIES[0], np.ones(10, dtype=np.float32))
    with pytest.raises(ValueError, match="GPU memory"):
        pplab.sum(x, backend="cpu")


# Arrays of edges, weights and density on GPU arrays (the sums made on the GPU in fixed point,
# the same bits on every run), against NumPy given float64 weights (test_host.py says why), on
# the caller's stream too.
@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
@pytest.mark.parametrize("n", [1, 1000, 3000017])
def test_histogram_edges_and_weights_of_gpu_arrays(rng, lib, dtype, n):
    a = (rng.normal(size=n) * 30 + 50).astype(dtype)
    edges = np.sort(rng.uniform(-20, 120, 1025))
    got, got_edges = pplab.histogram(to_gpu(lib, a), edges)
    assert is_gpu_array_of(lib, got)
    assert to_host(got).tolist() == np.histogram(a, edges)[0].tolist()
    assert (got_edges == edges).all()
    for wdtype in (np.float32, np.float64):
        w = (rng.normal(size=n) * 4).astype(wdtype)
        for bins, range_ in ((edges, None), (1024, (-10, 110))):
            got, _ = pplab.histogram(to_gpu(lib, a), bins, range=range_, weights=to_gpu(lib, w))
            again, _ = pplab.histogram(to_gpu(lib, a), bins, range=range_,
                                       weights=to_gpu(lib, w))
            assert is_gpu_array_of(lib, got)
            got, again = to_host(got), to_host(again)
            assert got.tobytes() == again.tobytes()
            want, _ = np.histogram(a, bins, range=range_, weights=w.astype(np.float64))
            rtol = 1e-6 if wdtype == np.float32 else 1e-12
            np.testing.assert_allclose(got, want.astype(wdtype), rtol=rtol,
                                       atol=rtol * np.abs(want).max())
        density, _ = pplab.histogram(to_gpu(lib, a), 64, range=(0, 100), density=True)
        want, _ = np.histogram(a, 64, range=(0, 100), density=True)
        np.testing.assert_allclose(to_host(density), want, rtol=1e-12)


@pytest.mark.parametrize("lib", LIBRARIES)
def test_bincount_with_weights_of_gpu_arrays(rng, lib):
    x = rng.integers(0, 5000, 1000003)
    w = rng.normal(size=x.size)
    got = pplab.bincount(to_gpu(lib, x), to_gpu(lib, w), minlength=6000)
    assert is_gpu_array_of(lib, got)
    np.testing.assert_allclose(to_host(got), np.bincount(x, w, minlength=6000), rtol=1e-12,
                               atol=1e-9)
    got = pplab.bincount(to_gpu(lib, x), to_gpu(lib, w))  # max(x) + 1 sums, made in place
    assert is_gpu_array_of(lib, got) and got.shape == (int(x.max()) + 1,)
    np.testing.assert_allclose(to_host(got), np.bincount(x, w), rtol=1e-12, atol=1e-9)
    with pytest.raises(ValueError, match="both"):
        pplab.bincount(to_gpu(lib, x), w)


@pytest.mark.parametrize("lib", LIBRARIES)
def test_histogram_bin_estimators_of_gpu_arrays(rng, lib):
    # NumPy's estimator (on a host copy) picks the number of bins; the GPU counts them
    a = rng.lognormal(size=300007).astype(np.float32)
    for rule in ("auto", "fd", "sturges", "scott"):
        for range_ in (None, (0.5, 4.0)):
            got, edges = pplab.histogram(to_gpu(lib, a), rule, range_)
            assert is_gpu_array_of(lib, got)
            want, want_edges = np.histogram(a, rule, range_)
            assert to_host(got).tolist() == want.tolist(), (rule, range_)
            np.testing.assert_array_equal(edges, want_edges)


# numpy.histogram2d of GPU arrays: the points' bins made on the GPU, the answer float64 there.
@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_histogram2d_of_gpu_arrays(rng, lib, dtype):
    n = 1000003
    x = (rng.normal(size=n) * 30).astype(dtype)
    y = (rng.normal(size=n) * 20).astype(dtype)
    w = rng.random(n)
    for bins, range_ in ((256, [(-100, 100), (-60, 60)]), ([10, np.linspace(-50, 50, 17)], None),
                         (64, None)):
        got, gx, gy = pplab.histogram2d(to_gpu(lib, x), to_gpu(lib, y), bins, range_)
        want, wx, wy = np.histogram2d(x, y, bins, range_)
        assert is_gpu_array_of(lib, got)
        assert (to_host(got) == want).all() and (gx == wx).all() and (gy == wy).all()
        # the slots written, then counted by a 1-D rung (counted where found by default)
        slotted, _, _ = pplab.histogram2d(to_gpu(lib, x), to_gpu(lib, y), bins, range_,
                                          variant="histogram/cuda/h03_interleaved_atomics")
        assert (to_host(slotted) == want).all()
        density, _, _ = pplab.histogram2d(to_gpu(lib, x), to_gpu(lib, y), bins, range_,
                                          density=True)
        np.testing.assert_allclose(to_host(density), np.histogram2d(x, y, bins, range_,
                                                                    density=True)[0], rtol=1e-12)
        got, _, _ = pplab.histogram2d(to_gpu(lib, x), to_gpu(lib, y), bins, range_,
                                      weights=to_gpu(lib, w))
        want, _, _ = np.histogram2d(x, y, bins, range_, weights=w)
        np.testing.assert_allclose(to_host(got), want, rtol=1e-12, atol=1e-12)


# numpy.histogramdd of GPU arrays: an (N, D) array's columns read where they lie, or D arrays;
# each point's bin over its axes made on the GPU, the answer float64 there.
@pytest.mark.parametrize("lib", LIBRARIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8])
def test_histogramdd_of_gpu_arrays(rng, lib, dtype):
    n = 1000003
    sample = (rng.normal(size=(n, 3)) * 30 + 100).astype(dtype)
    w = rng.random(n)
    for bins, range_ in ((16, [(0, 256)] * 3), ([10, np.linspace(50, 150, 17), 5], None),
                         ([64, 32, 8], [(40, 160), None, (0, 256)])):
        want, wedges = np.histogramdd(sample, bins, range_)
        strided = to_gpu(lib, np.repeat(sample, 2, axis=0))[::2]  # every other row: a copy
        for points in (to_gpu(lib, sample), [to_gpu(lib, c.copy()) for c in sample.T], strided):
            got, edges = pplab.histogramdd(points, bins, range_)
            assert is_gpu_array_of(lib, got)
            assert (to_host(got) == want).all() and all((a == b).all()
                                                        for a, b in zip(edges, wedges))
        slotted, _ = pplab.histogramdd(to_gpu(lib, sample), bins, range_,
                                       variant="histogram/cuda/h03_interleaved_atomics")
        assert (to_host(slotted) == want).all()
        got, _ = pplab.histogramdd(to_gpu(lib, sample), bins, range_, weights=to_gpu(lib, w),
                                   density=True)
        np.testing.assert_allclose(to_host(got), np.histogramdd(sample, bins, range_, weights=w,
                                                                density=True)[0], rtol=1e-12)


# float16 GPU arrays in the reductions: widened to float32 on the GPU, the same answers as the
# float32 array's (along an axis in float16, NumPy's type: the double answers rounded once).
@pytest.mark.parametrize("lib", LIBRARIES)
def test_float16_gpu_arrays_reduce_as_float32(rng, lib):
    host = (rng.standard_normal((300, 257)) * 50).astype(np.float16)
    x, wide = to_gpu(lib, host), to_gpu(lib, host.astype(np.float32))
    for name in ("sum", "mean", "max", "argmax", "var", "nansum"):
        f = getattr(pplab, name)
        assert f(x) == f(wide), name
        for axis in (0, 1):
            double = f(wide, axis=axis) if "max" in name else f(wide, axis=axis, dtype=np.float64)
            np.testing.assert_array_equal(to_host(f(x, axis=axis)),
                                          to_host(double).astype(to_host(f(x, axis=axis)).dtype))


# The double answers rounded once into float16, in each library: 2048 + 1 + 2^-14 is past the tie
# between 2048 and 2050 (so 2050), though its nearest float32 is the tie (torch's own float64 to
# float16 conversion goes through float32 and gives 2048); the exact tie gives the even 2048.
@pytest.mark.parametrize("lib", LIBRARIES)
def test_float16_answers_are_rounded_once(lib):
    host = np.array([[2048, -2048, 2048], [1, -1, 1], [2.0 ** -14, -2.0 ** -14, 0]], np.float16)
    got = pplab.sum(to_gpu(lib, host), axis=0)
    assert is_gpu_array_of(lib, got)
    np.testing.assert_array_equal(to_host(got), np.array([2050, -2050, 2048], np.float16))
    np.testing.assert_array_equal(to_host(pplab.mean(to_gpu(lib, host * 3), axis=0)),
                                  (host.astype(np.float64) * 3).mean(axis=0).astype(np.float16))


# scipy.ndimage's named filters on GPU arrays: the answer in the array's library, as SciPy's on a
# host copy.
@pytest.mark.parametrize("lib", LIBRARIES)
def test_scipy_named_filters_of_gpu_arrays(rng, lib):
    ndimage = pytest.importorskip("scipy.ndimage")
    host = rng.standard_normal((130, 257)).astype(np.float32)
    x = to_gpu(lib, host)
    for ours, theirs in ((lambda a: pplab.gaussian_filter(a, 2.0), lambda a: ndimage.gaussian_filter(a, 2.0)),
                         (lambda a: pplab.sobel(a, axis=0), lambda a: ndimage.sobel(a, axis=0)),
                         (lambda a: pplab.uniform_filter(a, 6, mode="nearest"),
                          lambda a: ndimage.uniform_filter(a, 6, mode="nearest")),
                         (lambda a: pplab.laplace(a, mode="wrap"),
                          lambda a: ndimage.laplace(a, mode="wrap")),
                         (lambda a: pplab.gaussian_laplace(a, 1.5),
                          lambda a: ndimage.gaussian_laplace(a, 1.5)),
                         (lambda a: pplab.gaussian_gradient_magnitude(a, 2.0, mode="nearest"),
                          lambda a: ndimage.gaussian_gradient_magnitude(a, 2.0, mode="nearest")),
                         (lambda a: pplab.gaussian_filter(a.T, 1.0),  # a view: copied first
                          lambda a: ndimage.gaussian_filter(a.T, 1.0))):
        got = ours(x)
        assert is_gpu_array_of(lib, got)
        np.testing.assert_allclose(to_host(got), theirs(host), rtol=2e-5, atol=2e-5)
    line = to_gpu(lib, host[0].copy())
    np.testing.assert_allclose(to_host(pplab.correlate1d(line, [1.0, 2.0, -1.0, 0.5])),
                               ndimage.correlate1d(host[0], [1.0, 2.0, -1.0, 0.5]),
                               rtol=2e-5, atol=2e-5)
    # Weights in the image's library, on its GPU (as cupyx.scipy.ndimage takes them)
    w = [1.0, 2.0, -1.0, 0.5]
    gw = to_gpu(lib, np.array(w, dtype=np.float32))
    for ours, theirs in ((lambda a: pplab.correlate1d(a, gw, axis=0),
                          lambda a: ndimage.correlate1d(a, w, axis=0)),
                         (lambda a: pplab.convolve1d(a, gw, mode="wrap"),
                          lambda a: ndimage.convolve1d(a, w, mode="wrap")),
                         (lambda a: pplab.correlate(a, to_gpu(lib, np.outer(w[:3], w[1:]))),
                          lambda a: ndimage.correlate(a, np.outer(w[:3], w[1:])))):
        np.testing.assert_allclose(to_host(ours(x)), theirs(host), rtol=2e-5, atol=2e-5)
    volume = rng.standard_normal((19, 33, 40)).astype(np.float32)  # one pass per axis
    for ours, theirs in ((lambda a: pplab.gaussian_filter(a, [1.0, 0.0, 2.0], mode="wrap"),
                          lambda a: ndimage.gaussian_filter(a, [1.0, 0.0, 2.0], mode="wrap")),
                         (lambda a: pplab.sobel(a, axis=1, mode="constant", cval=0.5),
                          lambda a: ndimage.sobel(a, axis=1, mode="constant", cval=0.5))):
        got = ours(to_gpu(lib, volume))
        assert is_gpu_array_of(lib, got) and tuple(got.shape) == volume.shape
        np.testing.assert_allclose(to_host(got), theirs(volume), rtol=2e-5, atol=2e-5)
    # The last two axes' kernels of one length: one pass over the stack of planes (their outer
    # product), after the other axes' passes; every mode, a sum-1 kernel with cval, a derivative
    # (sobel along each axis), a 4-D array, float64, and kernels of 3 and 33 taps
    wide = rng.standard_normal((3, 5, 17, 24))
    for ours, theirs, data in (
            (lambda a: pplab.gaussian_filter(a, 1.0), lambda a: ndimage.gaussian_filter(a, 1.0),
             volume),
            (lambda a: pplab.gaussian_filter(a, [2.0, 1.0, 1.0], mode="constant", cval=1.5),
             lambda a: ndimage.gaussian_filter(a, [2.0, 1.0, 1.0], mode="constant", cval=1.5),
             volume),
            (lambda a: pplab.gaussian_filter(a, [0.0, 4.0, 4.0], mode="mirror"),
             lambda a: ndimage.gaussian_filter(a, [0.0, 4.0, 4.0], mode="mirror"), volume),
            (lambda a: pplab.uniform_filter(a, 5, mode="nearest"),
             lambda a: ndimage.uniform_filter(a, 5, mode="nearest"), volume),
            (lambda a: pplab.uniform_filter(a, [4, 3, 3], mode="wrap"),
             lambda a: ndimage.uniform_filter(a, [4, 3, 3], mode="wrap"), volume),
            (lambda a: pplab.sobel(a, axis=0), lambda a: ndimage.sobel(a, axis=0), volume),
            (lambda a: pplab.sobel(a, axis=-1, mode="mirror"),
             lambda a: ndimage.sobel(a, axis=-1, mode="mirror"), volume),
            (lambda a: pplab.gaussian_filter(a, 1.5, mode="reflect"),
             lambda a: ndimage.gaussian_filter(a, 1.5, mode="reflect"), wide)):
        got = ours(to_gpu(lib, data))
        assert is_gpu_array_of(lib, got) and tuple(got.shape) == data.shape
        tol = 2e-5 if data.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(to_host(got), theirs(data), rtol=tol, atol=tol)
    # integers, as SciPy filters them: a pass at a time, each answer converted to the type
    ints = rng.integers(0, 250, size=(19, 33, 40)).astype(np.uint8)
    for ours, theirs in ((lambda a: pplab.uniform_filter(a, 3), lambda a: ndimage.uniform_filter(a, 3)),
                         (lambda a: pplab.sobel(a, axis=0), lambda a: ndimage.sobel(a, axis=0))):
        got = ours(to_gpu(lib, ints))
        assert is_gpu_array_of(lib, got)
        np.testing.assert_array_equal(to_host(got), theirs(ints))
    # SciPy's arithmetic on the GPU (correlate1d_in_scipys_order_device): flat patches whose
    # answers lie within a rounding of a whole number (43 * 0.8 + 86 * 0.1 is 43.0 in SciPy's
    # order, 42.99999999999999 left to right), every mode, each placement's order, an int16
    # input into uint8 (read as float64 first), a 1-D line and a 2-D image: SciPy's integers
    flat = np.array([3, 7, 31, 43], np.uint8)[rng.integers(0, 4, size=(9, 11, 6))]
    flat = flat.repeat(3, axis=1)
    for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
        for ours, theirs in (
                (lambda a: pplab.gaussian_filter(a, 1.5, mode=mode, cval=2),
                 lambda a: ndimage.gaussian_filter(a, 1.5, mode=mode, cval=2)),
                (lambda a: pplab.sobel(a, axis=1, mode=mode),
                 lambda a: ndimage.sobel(a, axis=1, mode=mode)),
                (lambda a: pplab.uniform_filter(a, [3, 4, 2], mode=mode),
                 lambda a: ndimage.uniform_filter(a, [3, 4, 2], mode=mode)),
                (lambda a: pplab.correlate1d(a, [0.1, 0.8, 0.1], 0, mode=mode, origin=1),
                 lambda a: ndimage.correlate1d(a, [0.1, 0.8, 0.1], 0, mode=mode, origin=1)),
                (lambda a: pplab.correlate1d(a, [0.2, 0.3, 0.1, 0.4], 2, mode=mode, cval=5),
                 lambda a: ndimage.correlate1d(a, [0.2, 0.3, 0.1, 0.4], 2, mode=mode, cval=5)),
                (lambda a: pplab.gaussian_filter(a[:, :, 0], 0.8, mode=mode),
                 lambda a: ndimage.gaussian_filter(a[:, :, 0], 0.8, mode=mode)),
                (lambda a: pplab.correlate1d(a[0, :, 0], [0.15, 0.7, 0.15], mode=mode),
                 lambda a: ndimage.correlate1d(a[0, :, 0], [0.15, 0.7, 0.15], mode=mode))):
            got = ours(to_gpu(lib, flat))
            assert is_gpu_array_of(lib, got)
            np.testing.assert_array_equal(to_host(got), theirs(flat), err_msg=mode)
    wide_ints = rng.integers(-300, 300, size=(40, 50)).astype(np.int16)
    got = pplab.gaussian_filter(to_gpu(lib, wide_ints), 2.0, output=np.uint8)
    assert is_gpu_array_of(lib, got)
    np.testing.assert_array_equal(to_host(got),
                                  ndimage.gaussian_filter(wide_ints, 2.0, output=np.uint8))
    # kernels past 31 taps: the extension made in the array's own library, on its device
    for mode in ("reflect", "constant", "mirror", "wrap"):
        for ours, theirs in ((lambda a: pplab.gaussian_filter(a, 6.0, mode=mode, cval=1.5),
                              lambda a: ndimage.gaussian_filter(a, 6.0, mode=mode, cval=1.5)),
                             (lambda a: pplab.uniform_filter(a, [40, 3, 33], mode=mode),
                              lambda a: ndimage.uniform_filter(a, [40, 3, 33], mode=mode))):
            got = ours(to_gpu(lib, volume))
            assert is_gpu_array_of(lib, got) and tuple(got.shape) == volume.shape
            np.testing.assert_allclose(to_host(got), theirs(volume), rtol=2e-5, atol=2e-5)
