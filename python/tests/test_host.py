# Host arrays (NumPy, and PyTorch's CPU tensors where it is installed) on every backend this build
# has, against NumPy and SciPy: every call and dtype, awkward sizes, empty and 0-d arrays, wrong
# dtypes, strided views and read-only arrays.
import warnings

import numpy as np
import pytest

import pplab

from conftest import host_backends, moments_oracle, rtol_for

BACKENDS = host_backends()
INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_TYPES = [np.float32, np.float64]


def data(rng, dtype, n):
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(dtype)



@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", INT_TYPES + FLOAT_TYPES)
@pytest.mark.parametrize("n", [1, 7, 1000, 65537, 1000003])
def test_reductions_match_numpy(rng, backend, dtype, n):
    x = data(rng, dtype, n)
    if np.issubdtype(dtype, np.floating):
        wide = x.astype(np.float64)
        assert pplab.sum(x, backend=backend) == pytest.approx(wide.sum(), rel=1e-12, abs=1e-9)
        assert pplab.mean(x, backend=backend) == pytest.approx(wide.mean(), rel=1e-12, abs=1e-12)
        assert pplab.prod(x[:20], backend=backend) == pytest.approx(np.prod(wide[:20]), rel=1e-12)
    else:
        signed = np.issubdtype(dtype, np.signedinteger)
        assert pplab.sum(x, backend=backend) == int(x.astype(np.int64 if signed else np.uint64).sum())
        assert pplab.mean(x, backend=backend) == pytest.approx(x.astype(np.float64).mean(), rel=1e-12)
        small = x[:8]
        assert pplab.prod(small, backend=backend) == int(np.prod(small.astype(np.int64 if signed else np.uint64)))
    assert pplab.min(x, backend=backend) == x.min()
    assert pplab.max(x, backend=backend) == x.max()


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_of_nothing_and_of_one(backend):
    empty = np.array([], dtype=np.float32)
    assert pplab.sum(empty, backend=backend) == 0
    assert pplab.prod(empty, backend=backend) == 1
    for call in (pplab.min, pplab.max, pplab.mean):
        with pytest.raises(ValueError):
            call(empty, backend=backend)
    zero_d = np.array(2.5)
    assert pplab.sum(zero_d, backend=backend) == 2.5
    assert pplab.max(np.array([1.0, np.nan, 3.0]), backend=backend) != pplab.max(np.array([1.0, 3.0]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint8, np.uint64, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4), (1000, 7), (7, 1000), (0, 5), (4, 0), (9,)])
def test_reductions_along_the_last_axis_match_numpy(rng, backend, dtype, shape):
    x = data(rng, dtype, int(np.prod(shape))).reshape(shape)
    floating = np.issubdtype(dtype, np.floating)
    wide = x.astype(np.float64 if floating else
                    (np.int64 if np.issubdtype(dtype, np.signedinteger) else np.uint64))
    for name, want in (("sum", wide.sum(axis=-1)), ("prod", np.prod(wide[..., :6], axis=-1)),
                       ("min", None), ("max", None), ("mean", None)):
        y = np.ascontiguousarray(x[..., :6]) if name == "prod" else x
        if name in ("min", "max") and shape[-1] == 0:
            with pytest.raises(ValueError, match="zero-size"):
                pplab.reduce(y, name, axis=-1, backend=backend)
            continue
        if name == "mean" and shape[-1] == 0 and int(np.prod(shape[:-1])) > 0:
            with pytest.raises(ValueError, match="empty"):
                pplab.mean(y, axis=-1, backend=backend)
            continue
        got = pplab.reduce(y, name, axis=len(shape) - 1 if name == "max" else -1, backend=backend)
        if want is None:
            want = getattr(np, name)(wide, axis=-1)
        if len(shape) == 1:
            assert not isinstance(got, np.ndarray)
        else:
            assert isinstance(got, np.ndarray) and got.shape == shape[:-1]
        if len(shape) > 1:  # NumPy's type: min and max keep x's, float32's answers float32
            assert got.dtype == getattr(np, name)(y, axis=-1).dtype
        if floating or name == "mean":  # the double answer, rounded once to float32 there
            np.testing.assert_allclose(got, want, rtol=rtol_for(got, 1e-12), atol=1e-12)
        else:
            assert np.array_equal(got, want)
    # Each row's answer is the whole-array call's on that row, on the same host backend (cuda's
    # rows kernel adds in another order than its whole-array rung: checked above to rounding).
    if backend != "cuda" and len(shape) > 1 and shape[-1] > 0 and int(np.prod(shape[:-1])) > 0:
        rows = x.reshape(-1, shape[-1])
        got = pplab.sum(x, axis=-1, backend=backend).reshape(-1)
        assert got.tolist() == [got.dtype.type(pplab.sum(row, backend=backend)) for row in rows]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.int16, np.uint32, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1000, 7), (3, 130), (2, 3, 67), (4, 5, 6, 3), (0, 5), (5, 0),
                                   (3, 0, 2)])
def test_reductions_along_any_axis_match_numpy(rng, backend, dtype, shape):
    x = data(rng, dtype, int(np.prod(shape))).reshape(shape)
    floating = np.issubdtype(dtype, np.floating)
    wide = x.astype(np.float64 if floating else
                    (np.int64 if np.issubdtype(dtype, np.signedinteger) else np.uint64))
    n = len(shape)
    for axis in list(range(-n, -1)) + list(range(0, n - 1)):  # every axis but the last (above)
        a = axis % n
        others = int(np.prod(shape[:a] + shape[a + 1:]))
        for name in ("sum", "min", "max", "mean"):
            if shape[a] == 0 and name in ("min", "max"):
                with pytest.raises(ValueError, match="zero-size"):
                    pplab.reduce(x, name, axis=axis, backend=backend)
                continue
            if shape[a] == 0 and name == "mean" and others > 0:
                with pytest.raises(ValueError, match="empty"):
                    pplab.mean(x, axis=axis, backend=backend)
                continue
            got = pplab.reduce(x, name, axis=axis, backend=backend)
            want = getattr(np, name)(wide, axis=axis)
            assert isinstance(got, np.ndarray) and got.shape == want.shape
            assert got.dtype == getattr(np, name)(x, axis=axis).dtype  # NumPy's type
            if floating or name == "mean":
                np.testing.assert_allclose(got, want, rtol=rtol_for(got, 1e-12), atol=1e-12)
            else:
                assert np.array_equal(got, want)
        if floating:  # dtype=float64: the double answers, not the float32 ones widened
            got = pplab.sum(x, axis=axis, dtype=np.float64, backend=backend)
            assert got.dtype == np.float64
            np.testing.assert_allclose(got, wide.sum(axis=axis), rtol=1e-12, atol=1e-12)
        # Each answer is the whole-array call's on the elements along the axis, bit for bit (in
        # the answers' type: a float32 sum is the double one rounded once); on the host backends.
        if x.size and backend != "cuda":
            got = pplab.sum(x, axis=axis, backend=backend).reshape(-1)
            lines = np.moveaxis(x, a, -1).reshape(-1, shape[a])
            assert got.tolist() == [got.dtype.type(pplab.sum(np.ascontiguousarray(v),
                                                             backend="seq")) for v in lines]


@pytest.mark.parametrize("backend", ["seq", "cpu"])
def test_keepdims_keeps_the_reduced_axis_as_numpy(rng, backend):
    x = data(rng, np.float64, 2 * 3 * 5).reshape(2, 3, 5)
    for name in ("sum", "prod", "min", "max", "mean"):
        for axis in (None, 0, 1, 2, -1, -3):
            got = getattr(pplab, name)(x, axis=axis, keepdims=True, backend=backend)
            want = getattr(np, name)(x, axis=axis, keepdims=True)
            assert isinstance(got, np.ndarray) and got.shape == want.shape, (name, axis)
            np.testing.assert_allclose(got, want, rtol=1e-12)
    assert pplab.sum(np.arange(4), keepdims=True).tolist() == [6]
    assert pplab.sum(np.arange(6).reshape(2, 3), axis=0, keepdims=True).tolist() == [[3, 5, 7]]
    with pytest.raises(TypeError, match="keepdims"):
        pplab.sum(x, keepdims=1)


def test_axis_errors_and_no_variant():
    x = np.arange(24.0).reshape(2, 3, 4)
    with pytest.raises(ValueError, match="out of bounds"):
        pplab.sum(x, axis=3)
    with pytest.raises(ValueError, match="out of bounds"):
        pplab.sum(x, axis=-4)
    with pytest.raises(TypeError, match="axis must be an int"):
        pplab.sum(x, axis=1.0)
    with pytest.raises(ValueError, match="out of bounds"):
        pplab.sum(np.array(2.0), axis=-1)
    with pytest.raises(ValueError, match="variant"):
        pplab.sum(x, axis=-1, variant="r01_sequential_loop")
    assert pplab.sum(x.transpose(0, 2, 1), axis=-1).tolist() == x.sum(axis=1).tolist()


def test_inputs_that_are_not_arrays_go_through_numpy():
    assert pplab.sum([1, 2, 3]) == 6
    assert pplab.sum(4.5) == 4.5


def test_wrong_dtypes_strided_views_and_read_only_arrays():
    with pytest.raises(TypeError, match="float16"):
        pplab.histogram(np.ones(4, dtype=np.float16))  # the reductions widen it (below)
    with pytest.raises(TypeError):
        pplab.sum(np.ones(4, dtype=np.complex64))
    assert pplab.sum(np.ones(4, dtype=bool)) == 4  # booleans count as NumPy counts them
    x = np.arange(20.0)
    assert pplab.sum(x[::2]) == 90.0  # reductions read views where they lie
    t = x.reshape(4, 5).T  # binned as NumPy bins it (a copy: the histograms read one run)
    assert pplab.histogram(t, 3)[0].tolist() == np.histogram(t, 3)[0].tolist()
    frozen = np.arange(1000, dtype=np.int32)
    frozen.setflags(write=False)
    assert pplab.sum(frozen) == int(frozen.sum())
    assert pplab.histogram(frozen, 7)[0].tolist() == np.histogram(frozen, 7)[0].tolist()
    with pytest.raises(ValueError, match="op must be"):
        pplab.reduce(x, "median")
    with pytest.raises(ValueError, match="backend"):
        pplab.sum(x, backend="quantum")
    with pytest.raises(ValueError, match="variant|rung"):
        pplab.sum(x, backend="cpu", variant="r99_nonesuch")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float64, np.float32])
@pytest.mark.parametrize("bins", [1, 10, 100, 1000, 65536])
def test_histogram_follows_numpys_rules(rng, backend, dtype, bins):
    x = data(rng, dtype, 100003)
    for rng_arg in (None, (-2.0, 3.0), (0, 0)):
        got, edges = pplab.histogram(x, bins, rng_arg, backend=backend)
        want, want_edges = np.histogram(x, bins, rng_arg)
        assert got.dtype == np.int64
        assert got.tolist() == want.tolist(), rng_arg
        assert edges.dtype == want_edges.dtype
        np.testing.assert_array_equal(edges, want_edges)
    # values on the edges themselves, and the closed last bin
    on_edges = np.linspace(-1, 1, bins + 1)
    got, _ = pplab.histogram(on_edges, bins, (-1, 1), backend=backend)
    assert got.tolist() == np.histogram(on_edges, bins, (-1, 1))[0].tolist()


def on_and_beside(edges, rng, n):
    """n float32 values: NumPy's edges themselves, the floats just below and above them, and a
    normal sample."""
    e = edges.astype(np.float32)
    picks = e[rng.integers(0, e.size, n // 2)]
    side = rng.integers(-1, 2, picks.size)
    near = np.where(side < 0, np.nextafter(picks, np.float32(-np.inf)),
                    np.where(side > 0, np.nextafter(picks, np.float32(np.inf)), picks))
    return np.concatenate([near, rng.normal(size=n - near.size).astype(np.float32)])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bins", [10, 100, 997, 70000, 1000000, 2**20])
def test_float32_histogram_is_numpys_bit_for_bit(rng, backend, bins):
    # numpy.histogram bins float32 data against float32 edges; NumPy 1.x rounds double edges,
    # NumPy 2 computes an inferred range's edges in float32: each against the NumPy installed.
    x = rng.normal(size=200003).astype(np.float32)
    for rng_arg in (None, (-2.0, 2.0), (-3, 3), (np.float32(-1.7), np.float32(2.3)),
                    (np.float64(-2.5), np.float64(0.1)), (-2.5, 0.1), (-4, 4)):
        _, want_edges = np.histogram(x, bins, rng_arg)
        y = on_and_beside(want_edges, rng, x.size)
        if rng_arg is None:  # the same range as x's: its minimum and maximum kept
            y[:2] = x.min(), x.max()
            y = np.clip(y, x.min(), x.max())
        want, want_edges = np.histogram(y, bins, rng_arg)
        got, edges = pplab.histogram(y, bins, rng_arg, backend=backend)
        assert edges.dtype == want_edges.dtype, rng_arg
        np.testing.assert_array_equal(edges, want_edges, err_msg=str(rng_arg))
        wrong = np.flatnonzero(got != want)
        assert wrong.size == 0, (rng_arg, wrong[:5], got[wrong[:5]], want[wrong[:5]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_histogram_of_one_value_widens_as_numpy(backend):
    for v in (np.float32(0.1), np.float32(3e3), np.float32(-1.5)):
        x = np.full(1001, v, dtype=np.float32)
        for bins in (1, 7, 10):
            got, edges = pplab.histogram(x, bins, backend=backend)
            want, want_edges = np.histogram(x, bins)
            assert got.tolist() == want.tolist()
            np.testing.assert_array_equal(edges, want_edges)
            assert edges.dtype == want_edges.dtype
    # Around 3e7, floats are 2 apart: NumPy's widened range of 1 has equal edges (NumPy 1.x) or
    # none at all (NumPy 2 widens in float32), and its index, corrected by one step, stops short
    # of them: refused, not answered differently.
    with pytest.raises(ValueError, match="too narrow for NumPy's float32|too large to widen"):
        pplab.histogram(np.full(10, np.float32(3e7)), 7, backend=backend)
    with pytest.raises(ValueError, match="too narrow for NumPy's float32"):
        pplab.histogram(np.zeros(10, np.float32), 2**22, (0.0, 1.0), backend=backend)
    assert pplab.histogram(np.zeros(10, np.float64), 2**22, (0.0, 1.0))[0][0] == 10


def test_histogram_refuses_what_numpy_refuses():
    with pytest.raises(ValueError, match="NaN"):
        pplab.histogram(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="not finite"):
        pplab.histogram(np.array([1.0, np.inf]))
    with pytest.raises(ValueError, match="larger than min"):
        pplab.histogram(np.arange(5.0), 3, (2, 1))
    with pytest.raises(ValueError, match="bins"):
        pplab.histogram(np.arange(5.0), 0)
    got, edges = pplab.histogram(np.array([], dtype=np.float64), 4)
    want, want_edges = np.histogram(np.array([], dtype=np.float64), 4)
    assert got.tolist() == want.tolist() and edges.tolist() == want_edges.tolist()
    with_nan = np.array([0.5, np.nan, 1.5])
    assert pplab.histogram(with_nan, 2, (0, 2))[0].tolist() == [1, 1]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.int64])
def test_bincount_matches_numpy(rng, backend, dtype):
    x = rng.integers(0, 200, 50001).astype(dtype)
    for minlength in (0, 10, 300):
        got = pplab.bincount(x, minlength=minlength, backend=backend)
        assert got.tolist() == np.bincount(x, minlength=minlength).tolist()
    assert pplab.bincount(np.array([], dtype=dtype)).tolist() == []
    if np.issubdtype(dtype, np.signedinteger):
        with pytest.raises(ValueError, match="non-negative"):
            pplab.bincount(np.array([1, -2, 3], dtype=dtype))
    with pytest.raises(TypeError):
        pplab.bincount(np.ones(3))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_bincount_finds_any_negative_value_of_every_width(dtype):
    # The length and the sign come from one maximum of the values read as unsigned: the most
    # negative value, -1, and the largest positive one each decide it alone.
    info = np.iinfo(dtype)
    for bad in (info.min, -1):
        x = np.zeros(1001, dtype=dtype)
        x[500] = bad
        with pytest.raises(ValueError, match="smallest here is %d" % bad):
            pplab.bincount(x)
        with pytest.raises(ValueError, match="non-negative"):
            pplab.bincount(x, np.ones(1001))
    top = min(int(info.max), 70000)
    x = np.array([0, top, 3], dtype=dtype)
    assert pplab.bincount(x).tolist() == np.bincount(x).tolist()
    assert pplab.bincount(x, [0.5, 2.0, -1.0]).tolist() == np.bincount(x, [0.5, 2.0, -1.0]).tolist()


def test_boolean_arrays_reduce_and_count_as_numpy_does(rng):
    # NumPy's meaning: sum and prod in int64, min and max booleans, mean float64; histogram and
    # bincount of the bytes (a view, whatever its strides).
    b = rng.random((37, 53)) > 0.3
    for x in (b, b[:, ::3], b.T):
        for name in ("sum", "prod", "min", "max", "mean", "argmin", "argmax"):
            for axis in (None, 0, 1):
                got = getattr(pplab, name)(x, axis=axis)
                want = getattr(np, name)(x, axis=axis)
                assert np.asarray(got).dtype == np.asarray(want).dtype, (name, axis)
                np.testing.assert_array_equal(np.asarray(got), want)
    assert pplab.sum(b, keepdims=True).shape == (1, 1)
    assert pplab.sum([True, False, True]) == 2
    assert pplab.sum(b, dtype=np.float32) == np.sum(b, dtype=np.float32)
    with pytest.warns(RuntimeWarning):  # NumPy converts booleans to uint8 and says so
        want, want_edges = np.histogram(b, bins=3)
    got, edges = pplab.histogram(b, bins=3)
    assert got.tolist() == want.tolist()
    np.testing.assert_array_equal(edges, want_edges)
    assert pplab.bincount(b.ravel()).tolist() == np.bincount(b.ravel()).tolist()
    with pytest.raises(ValueError, match="not bool"):
        pplab.sum(b, exact=True)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.float32, np.float64])
def test_ptp_matches_numpy(rng, dtype):
    x = (rng.standard_normal((29, 31)) * 50).astype(dtype)
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            got = pplab.ptp(x, axis=axis, keepdims=keepdims)
            want = np.ptp(x, axis=axis, keepdims=keepdims)
            assert np.asarray(got).dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    if dtype == np.int8:  # wraps as NumPy's
        assert pplab.ptp(np.array([-128, 127], dtype=np.int8)) == np.int8(-1)
    if dtype == np.float32:
        x[3, 4] = np.nan
        assert np.isnan(pplab.ptp(x))
        np.testing.assert_array_equal(pplab.ptp(x, axis=0), np.ptp(x, axis=0))
    out = np.empty(31, dtype=dtype)
    assert pplab.ptp(x, axis=0, out=out) is out
    with pytest.raises(TypeError):
        pplab.ptp(x > 0)


def test_dot_of_vectors_and_matrices_matches_numpy(rng):
    a = rng.standard_normal((33, 17))
    b = rng.standard_normal((17, 9))
    v = rng.standard_normal(17)
    w = rng.standard_normal(33)
    # atol: an answer near 0 after cancellation differs in its last bits with the order of the
    # sums (OpenBLAS's threads)
    np.testing.assert_allclose(pplab.dot(a, b), np.dot(a, b), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(pplab.dot(a, v), np.dot(a, v), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(pplab.dot(w, a), np.dot(w, a), rtol=1e-12, atol=1e-13)
    assert pplab.dot(v, v) == pytest.approx(np.dot(v, v), rel=1e-12)
    np.testing.assert_allclose(pplab.dot([[1.0, 2.0]], [[3.0], [4.0]]), [[11.0]])
    with pytest.raises(ValueError, match="number"):
        pplab.dot(2.0, a)
    with pytest.raises(ValueError, match="3 axes"):
        pplab.dot(np.ones((2, 3, 4)), np.ones((4, 5)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
def test_one_axis_gaussian_and_uniform_filters_match_scipy(rng, dtype):
    from scipy import ndimage
    x = (rng.standard_normal((23, 31, 7)) * 40).astype(dtype)
    for axis in (0, 1, -1):
        for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
            for sigma, order in ((1.5, 0), (0.7, 1), (3.2, 2)):
                got = pplab.gaussian_filter1d(x, sigma, axis=axis, order=order, mode=mode, cval=2.0)
                want = ndimage.gaussian_filter1d(x, sigma, axis=axis, order=order, mode=mode,
                                                 cval=2.0)
                assert got.dtype == want.dtype
                np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-3 if dtype != np.int16 else 1)
            for size, origin in ((3, 0), (4, 1), (6, -2), (1, 0)):
                got = pplab.uniform_filter1d(x, size, axis=axis, mode=mode, cval=2.0, origin=origin)
                want = ndimage.uniform_filter1d(x, size, axis=axis, mode=mode, cval=2.0,
                                                origin=origin)
                assert got.dtype == want.dtype
                np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-3 if dtype != np.int16 else 1)
    np.testing.assert_allclose(pplab.gaussian_filter1d(x[0, 0].astype(np.float64), 2.0, radius=3),
                               ndimage.gaussian_filter1d(x[0, 0].astype(np.float64), 2.0, radius=3))
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError, match="sigma"):
            pplab.gaussian_filter1d(x, bad)
    with pytest.raises(ValueError, match="out of bounds"):
        pplab.uniform_filter1d(x, 3, axis=3)
    with pytest.raises(ValueError):
        pplab.uniform_filter1d(x, 0)


def test_histogram_channels_count_each_channel(rng):
    image = rng.integers(0, 256, (37, 41, 3), endpoint=False).astype(np.uint8)
    got = pplab.histogram_channels(image)
    for c in range(3):
        assert got[c].tolist() == np.bincount(image[..., c].ravel(), minlength=256).tolist()
    assert pplab.histogram_channels(image[..., 0]).shape == (1, 256)
    with pytest.raises(TypeError):
        pplab.histogram_channels(image.astype(np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (17, 33, 5), (64, 64, 64), (130, 7, 257), (0, 4, 3)])
def test_matmul_matches_numpy(rng, backend, dtype, m, k, n):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    got = pplab.matmul(a, b, backend=backend)
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert got.dtype == dtype and got.shape == (m, n)
    eps = np.finfo(dtype).eps
    bound = 2 * (k + 2) * eps * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    assert np.all(np.abs(got - want) <= bound + np.finfo(dtype).tiny)


def test_matmul_takes_padded_rows_and_refuses_bad_shapes(rng):
    big = rng.standard_normal((20, 30))
    a, b = big[:, :7], rng.standard_normal((7, 9))  # rows padded to 30
    np.testing.assert_allclose(pplab.matmul(a, b), a @ b, rtol=1e-13)
    with pytest.raises(ValueError, match="columns must match"):
        pplab.matmul(np.ones((3, 4)), np.ones((5, 2)))
    with pytest.raises(ValueError, match="columns must match"):
        pplab.matmul(np.ones(3), np.ones(4))
    with pytest.raises(TypeError, match="float32 or float64"):
        pplab.matmul(np.ones((3, 4), dtype=np.int32), np.ones((4, 2), dtype=np.int32))
    with pytest.raises(ValueError, match="not have enough dimensions"):
        pplab.matmul(np.float64(2.0), np.ones(3))
    with pytest.raises(ValueError, match="do not broadcast"):
        pplab.matmul(np.ones((2, 3, 4)), np.ones((3, 4, 2)))
    with pytest.raises(ValueError, match="out must be float64 of shape"):
        pplab.matmul(np.ones((3, 4)), np.ones((4, 2)), out=np.empty((2, 3)))
    with pytest.raises(ValueError, match="out must be float64 of shape"):
        pplab.matmul(np.ones((3, 4)), np.ones((4, 2)), out=np.empty((3, 2), np.float32))
    # the compiled call checks its output's shape itself: never a write past it
    with pytest.raises(ValueError, match="the output is 3x3; the product is 4x4"):
        pplab._pplab.matmul(np.ones((4, 4)), np.ones((4, 4)), np.empty((3, 3)), 1.0, 0.0)
    with pytest.raises(ValueError, match="the output is 1x3; the product is 1x4"):
        pplab._pplab.matmul(np.ones(4), np.ones((4, 4)), np.empty(3), 1.0, 0.0)


# numpy.matmul's shapes: vectors (a row on the left, a column on the right, their axis dropped),
# stacks broadcast against each other, one matrix under a stack, transposed, reversed and strided
# views, float32 with float64, out=; NumPy in float64 is the oracle, within the products' bound.
MATMUL_SHAPES = [
    ((5,), (5,)), ((5,), (5, 3)), ((4, 5), (5,)), ((1, 5), (5,)), ((3, 4, 5), (5,)),
    ((6,), (2, 6, 3)), ((3, 4, 5), (5, 2)), ((2, 3, 4, 5), (5, 2)), ((3, 4, 5), (3, 5, 2)),
    ((2, 1, 4, 5), (3, 5, 2)), ((1, 4, 5), (7, 5, 3)), ((0, 4, 5), (5, 2)), ((2, 3, 0), (0, 4)),
    ((2, 4, 5), (2, 5, 0)), ((1, 1), (1, 1)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float32),
                                    (np.float32, np.float64)])
def test_matmul_takes_numpys_shapes(rng, sa, sb, dtypes):
    a = rng.standard_normal(sa).astype(dtypes[0])
    b = rng.standard_normal(sb).astype(dtypes[1])
    got = pplab.matmul(a, b)
    want = np.matmul(a, b)
    assert np.shape(got) == want.shape and np.asarray(got).dtype == want.dtype
    if want.shape == ():
        assert isinstance(got, np.floating)
    k = sa[-1]
    exact = np.matmul(a.astype(np.float64), b.astype(np.float64))
    bound = 2 * (k + 2) * np.finfo(want.dtype).eps * np.matmul(np.abs(a).astype(np.float64),
                                                               np.abs(b).astype(np.float64))
    assert np.all(np.abs(np.asarray(got, np.float64) - exact) <= bound + 1e-300)
    out = np.empty(want.shape, want.dtype)
    if want.shape:
        assert pplab.matmul(a, b, out=out) is out
        np.testing.assert_array_equal(out, got)


def test_matmul_writes_out_where_it_lies_and_overlaps_as_numpy(rng, monkeypatch):
    a, b = rng.standard_normal((40, 40)), rng.standard_normal((40, 40))
    want = a @ b
    x = a.copy()
    assert pplab.matmul(x, b, out=x) is x  # out is an operand: NumPy's answer all the same
    np.testing.assert_allclose(x, want, rtol=1e-12, atol=1e-12)
    y = b.copy()
    assert pplab.matmul(a, y, out=y) is y
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)
    strided = np.empty((40, 80))[:, ::2]
    assert pplab.matmul(a, b, out=strided) is strided
    np.testing.assert_allclose(strided, want, rtol=1e-12, atol=1e-12)
    # a C-ordered out apart from the operands is written in place: no answer made apart
    monkeypatch.setattr(pplab, "_empty", lambda *args: pytest.fail("an answer made apart"))
    for x, y in ((rng.standard_normal((100003, 3)).astype(np.float32),
                  rng.standard_normal((3, 3)).astype(np.float32)),
                 (rng.standard_normal((3, 5, 4)), rng.standard_normal((4, 2))),
                 (rng.standard_normal((7, 4)), rng.standard_normal(4))):
        out = np.empty(np.matmul(x, y).shape, x.dtype)
        assert pplab.matmul(x, y, out=out) is out
        np.testing.assert_allclose(out, np.matmul(x, y), rtol=1e-5, atol=1e-5)


def test_matmul_reads_views_as_numpy_does(rng):
    a = rng.standard_normal((6, 9))
    b = rng.standard_normal((9, 4))
    views = [(a.T.T, b), (np.asfortranarray(a), b), (a, np.asfortranarray(b)),
             (a[::-1], b), (a[:, ::-1], b[::-1]), (a[::2, 1:], b[1:, ::2]),
             (b.T, a.T), (np.stack([a, a])[:, :, ::3], b[::3])]
    for x, y in views:
        np.testing.assert_allclose(pplab.matmul(x, y), np.matmul(x, y), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(pplab.matmul([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0]), [3.0, 7.0])
    # a matrix and a vector: padded, reversed, transposed and strided views on either side
    x, y = rng.standard_normal(18)[::2], rng.standard_normal(24)[::-2]
    for p, q in ((a, x), (a[::-1], x), (a[:, ::-1], x), (a.T[::-1], y[:6]), (a[::2, 1:], x[1:]),
                 (x[:6], a), (x[::-1][:6], a[:, ::-1]), (y[:9], a.T), (y[:4], b.T[:, ::-1]),
                 (np.asfortranarray(a), x), (x[:6], np.asfortranarray(a)), (a[:1], x), (x[:1], a[:1])):
        np.testing.assert_allclose(pplab.matmul(p, q), np.matmul(p, q), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_matmul_runs_a_stack_in_one_call(rng, backend, monkeypatch):
    a, b = rng.standard_normal((6, 4, 5)), rng.standard_normal((6, 5, 3))
    one, deep = rng.standard_normal((1, 5, 3)), rng.standard_normal((2, 3, 4, 5))
    # (x, y, the calls: one per sub-stack that one stride walks in both)
    cases = [(a, b, 1), (a, one, 1), (a[::2], b[1::2], 1),
             (one.transpose(0, 2, 1), a.transpose(0, 2, 1), 1),
             (deep, rng.standard_normal((2, 3, 5, 2)), 1),
             (deep, rng.standard_normal((3, 5, 2)), 2),  # y's stack repeats along deep's axis 0
             (a[::-1], b, 6)]  # a reversed stack: a call per matrix
    compiled = pplab._pplab.matmul_batched
    for x, y, calls in cases:
        made = []
        monkeypatch.setattr(pplab._pplab, "matmul_batched",
                            lambda *args: made.append(args) or compiled(*args))
        np.testing.assert_allclose(pplab.matmul(x, y, backend=backend), np.matmul(x, y),
                                   rtol=1e-12, atol=1e-12)
        assert len(made) == calls


@pytest.mark.parametrize("backend", BACKENDS)
def test_matmul_reads_a_transposed_matrix_by_a_vector_where_it_lies(rng, backend, monkeypatch):
    a = rng.standard_normal((70, 45)).astype(np.float32)
    x, y = rng.standard_normal(70).astype(np.float32), rng.standard_normal(45).astype(np.float32)
    monkeypatch.setattr(pplab, "_contiguous", lambda v: pytest.fail("an operand was copied"))
    for got, want in ((pplab.matmul(a.T, x, backend=backend), a.T @ x),
                      (pplab.matmul(y, a.T, backend=backend), y @ a.T),
                      (pplab.matmul(a, y, backend=backend), a @ y),
                      (pplab.matmul(x, a, backend=backend), x @ a)):
        assert got.shape == want.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


MODES = ["reflect", "constant", "nearest", "mirror", "wrap"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("mode", MODES)
def test_filters_match_scipy(rng, backend, dtype, mode):
    ndimage = pytest.importorskip("scipy.ndimage")
    for shape, wshape in [((1, 1), (1, 1)), ((1, 37), (3, 5)), ((41, 1), (5, 3)),
                          ((5, 4), (31, 31)), ((67, 131), (7, 7)), ((33, 65), (1, 9))]:
        image = rng.standard_normal(shape).astype(dtype)
        weights = rng.standard_normal(wshape)
        for call, ref in ((pplab.correlate, ndimage.correlate),
                          (pplab.convolve, ndimage.convolve)):
            got = call(image, weights, mode=mode, cval=1.5, backend=backend)
            want = ref(image.astype(np.float64), weights.astype(dtype).astype(np.float64),
                       mode=mode, cval=1.5)
            scale = ref(np.abs(image.astype(np.float64)), np.abs(weights), mode=mode, cval=1.5)
            taps = weights.size
            assert got.dtype == dtype and got.shape == shape
            tol = 2 * (taps + 2) * np.finfo(dtype).eps * scale + np.finfo(dtype).tiny
            assert np.all(np.abs(got - want) <= tol + np.finfo(dtype).eps * np.abs(want)), (shape, wshape)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("channels", [None, 1, 3, 4])
def test_u8_images_by_channel(rng, backend, channels):
    """uint8 images: SciPy's answers by default (2-D weights on an image of channels: each
    channel on its own, SciPy's weights[:, :, None]); variant= the image rung, rounded to nearest
    and saturated, or float32."""
    ndimage = pytest.importorskip("scipy.ndimage")
    shape = (29, 53) if channels is None else (29, 53, channels)
    image = rng.integers(0, 256, shape).astype(np.uint8)
    weights = rng.standard_normal((5, 5)) * 0.3 + 0.04
    scipys = weights if channels is None else weights[:, :, None]
    for output in (None, np.float32, np.int16):
        got = pplab.correlate(image, weights, output=output, mode="mirror", backend=backend)
        want = ndimage.correlate(image, scipys, output=output, mode="mirror")
        assert got.dtype == want.dtype and np.array_equal(got, want), output
    rung = {"seq": "c01_direct_loop", "cpu": "c04_u8_channels", "cuda": "c08_u8_channels"}[backend]
    as_f32 = pplab.correlate(image, weights, mode="mirror", output=np.float32, backend=backend,
                             variant=rung)
    rounded = pplab.correlate(image, weights, mode="mirror", backend=backend, variant=rung)
    assert as_f32.dtype == np.float32 and rounded.dtype == np.uint8
    planes = [image] if channels is None else [image[..., c] for c in range(channels)]
    for c, plane in enumerate(planes):
        want = ndimage.correlate(plane.astype(np.float64),
                                 weights.astype(np.float32).astype(np.float64), mode="mirror")
        got32 = as_f32 if channels is None else as_f32[..., c]
        got8 = rounded if channels is None else rounded[..., c]
        np.testing.assert_allclose(got32, want, rtol=1e-5, atol=1e-3)
        near = np.clip(np.rint(want), 0, 255)
        assert np.all(np.abs(got8.astype(np.int32) - near) <= (np.abs(want - np.round(want)) > 0.49))


def test_filters_refuse_bad_calls():
    image = np.ones((8, 9), dtype=np.float32)
    with pytest.raises(ValueError, match="mode must be one of"):
        pplab.correlate(image, np.ones((3, 3)), mode="same")
    with pytest.raises(RuntimeError, match="incorrect shape"):
        pplab.correlate(np.ones((4, 4, 4), dtype=np.float32), np.ones((3, 3)))
    with pytest.raises(RuntimeError, match="incorrect shape"):
        pplab.correlate(image, np.ones(3))
    with pytest.raises(RuntimeError, match="incorrect shape"):
        pplab.correlate(image, np.ones((0, 3)))
    with pytest.raises(ValueError, match="invalid origin"):
        pplab.correlate(image, np.ones((3, 4)), origin=(0, 2))
    with pytest.raises(RuntimeError, match="origin has 3 values"):
        pplab.correlate(image, np.ones((3, 3)), origin=(0, 0, 0))
    with pytest.raises(TypeError, match="origin must be an integer"):
        pplab.correlate(image, np.ones((3, 3)), origin=0.5)
    with pytest.raises(TypeError, match="give the mode by name"):
        pplab.correlate(image, np.ones((3, 3)), "nearest")
    with pytest.raises(ValueError, match="bool output"):
        pplab.correlate(image > 0, np.ones((3, 3)))
    with pytest.raises(ValueError, match="SciPy's arithmetic, which has none"):
        pplab.correlate(image, np.ones((3, 3)), origin=1, variant="c02_register_blocked")
    with pytest.raises(ValueError, match="precision must be"):
        pplab.correlate(image, np.ones((3, 3)), precision="tf32")
    with pytest.raises(ValueError, match="for float32 images, not float64"):
        pplab.convolve(image.astype(np.float64), np.ones((3, 3)), precision="split_tf32")
    with pytest.raises(ValueError, match="precision 'split_tf32' runs a 2-D float32 image"):
        pplab.convolve(image, np.ones((4, 3)), precision="split_tf32")
    with pytest.raises(RuntimeError, match="split_tf32 runs on the cuda backend"):
        pplab.correlate(image, np.ones((3, 3)), precision="split_tf32", backend="cpu")


# SciPy's correlate and convolve on every rank, type, mode and origin, bit for bit: pplab's
# rungs take 2-D float images with odd weights to 31 and origin 0; all else runs SciPy's
# arithmetic (pplab::correlate_in_scipys_order), whose answers are SciPy's to the last bit.
@pytest.mark.parametrize("backend", BACKENDS)
def test_correlate_is_scipys_on_every_rank_type_and_origin(rng, backend):
    ndimage = pytest.importorskip("scipy.ndimage")
    cases = [((37,), (4,), 0), ((1,), (3,), 1), ((3,), (7,), -3), ((9, 13), (2, 4), (-1, 1)),
             ((9, 13), (3, 3), 1), ((6, 40), (33, 3), 0), ((5, 7, 11), (3, 2, 5), (0, -1, 2)),
             ((2, 3, 4, 5), (2, 1, 3, 2), 0)]
    for shape, wshape, origin in cases:
        weights = rng.standard_normal(wshape)
        weights[rng.random(wshape) < 0.2] = 0.0
        for dtype in (np.uint8, np.int8, np.int16, np.uint32, np.int64, np.float32, np.float64):
            x = (rng.standard_normal(shape) * 90).astype(dtype)
            outputs = (None, np.float64, np.int32) if x.ndim != 2 or dtype != np.float32 else \
                (np.float64, np.int32)
            for mode in ("reflect", "constant", "nearest", "mirror", "wrap", "grid-wrap"):
                for output in outputs:
                    for call, ref in ((pplab.correlate, ndimage.correlate),
                                      (pplab.convolve, ndimage.convolve)):
                        got = call(x, weights, output=output, mode=mode, cval=-2.5,
                                   origin=origin, backend=backend)
                        want = ref(x, weights, output=output, mode=mode, cval=-2.5,
                                   origin=origin)
                        assert got.dtype == want.dtype and got.shape == want.shape
                        assert np.array_equal(got, want, equal_nan=True), (
                            shape, wshape, origin, dtype, mode, output, call.__name__)
    # a 0-d number, bool read as 0 and 1, float16 through float64, views, output= an array
    # sharing the input's memory (SciPy filters into a new array and copies)
    assert pplab.correlate(np.float64(3.0), np.float64(2.0)) == 6.0
    flags = rng.random((6, 7)) < 0.5
    np.testing.assert_array_equal(pplab.correlate(flags, np.ones((3, 3)), output=np.uint8),
                                  ndimage.correlate(flags, np.ones((3, 3)), output=np.uint8))
    half = rng.standard_normal((6, 7, 3)).astype(np.float16)
    w3 = rng.standard_normal((3, 3, 3))
    got = pplab.correlate(half, w3, backend=backend)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, ndimage.correlate(half.astype(np.float64), w3)
                                  .astype(np.float16))
    volume = (rng.standard_normal((8, 9, 10)) * 50).astype(np.int16)
    view = volume[::-1, :, ::2]
    np.testing.assert_array_equal(pplab.correlate(view, w3, backend=backend),
                                  ndimage.correlate(view, w3))
    inplace = volume.copy()
    assert pplab.correlate(inplace, w3, output=inplace, backend=backend) is inplace
    np.testing.assert_array_equal(inplace, ndimage.correlate(volume, w3))


def test_listing_and_the_lab(tmp_path):
    assert {"seq", "cpu", "cuda", "nccl", "mpi"} == set(pplab.backends())
    assert pplab.backends()["cpu"]["available"]
    ids = [r["id"] for r in pplab.rungs("convolution")]
    assert "convolution/cpu/c02_register_blocked" in ids
    chart = tmp_path / "lab.svg"
    record = pplab.lab("reduce", backend="cpu", size="tiny", chart=str(chart))
    rows = record["rows"]
    assert rows and all(r["pattern"] == "reduce" and r["backend"] in ("seq", "cpu") for r in rows)
    assert all(r["verified"] for r in rows if not r.get("racy"))
    assert chart.read_text().startswith("<svg") or "<svg" in chart.read_text()[:200]




def test_torch_cpu_tensors_through_dlpack(rng):
    torch = pytest.importorskip("torch")
    x = torch.from_numpy(rng.standard_normal(1001).astype(np.float32))
    assert pplab.sum(x) == pytest.approx(float(x.double().sum()), rel=1e-12)
    a = torch.randn(12, 7, dtype=torch.float64, requires_grad=True)
    b = torch.randn(7, 5, dtype=torch.float64)
    c = pplab.matmul(a, b)
    assert isinstance(c, torch.Tensor) and torch.allclose(c, (a @ b).detach())
    h, _ = pplab.histogram(x, 10)
    assert isinstance(h, torch.Tensor)


def test_host_calls_load_no_backend_module():
    """Importing pplab and calling it on NumPy arrays loads neither the CUDA libraries nor Open
    MPI: libpplab loads a backend's module when that backend is asked for."""
    import subprocess
    import sys

    probe = (
        "import numpy, pplab\n"
        "x = numpy.arange(1000, dtype=numpy.float32)\n"
        "pplab.sum(x); pplab.histogram(x, 10); pplab.matmul(x[:16].reshape(4, 4), x[:16].reshape(4, 4))\n"
        "print(open('/proc/self/maps').read())\n"
    )
    maps = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    if "libpplab.so" not in maps:
        pytest.skip("libpplab is linked into the module (a static build): its modules with it")
    for lib in ("libpplab_cuda", "libpplab_mpi", "libpplab_nccl", "libcudart", "libcublas", "libmpi"):
        assert lib not in maps, f"{lib} was loaded by host calls"


def test_row_answer_types_are_numpys():
    # The type the engines write a GPU array's row answers in (int64, uint64 or float64; every
    # mean float64; the Python layer casts them to NumPy's type, as a host array's answers), and
    # an unknown type refused with pplab's list.
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64"):
        x = np.ones((2, 3), dtype=name)
        engine = "uint64" if name.startswith("u") else "int64" if name.startswith("i") \
            else "float64"
        assert pplab._pplab.row_answer_type(name, "sum") == engine
        assert pplab._pplab.row_answer_type(name, "mean") == "float64"
        for op in ("sum", "min", "mean", "argmax"):
            assert getattr(pplab, op)(x, axis=-1).dtype == getattr(np, op)(x, axis=-1).dtype
    with pytest.raises(TypeError, match="float16"):
        pplab._pplab.row_answer_type("float16", "sum")


def test_the_readmes_example_runs_and_is_right():
    # The README's first Python block, run as written, its answers checked.
    import pathlib
    import re

    readme = (pathlib.Path(__file__).parents[2] / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    names = {}
    exec(block, names)
    x, s, hist, edges, out = (names[k] for k in ("x", "s", "hist", "edges", "out"))
    assert s == float(x.astype(np.float64).sum())
    want, want_edges = np.histogram(x, 64, (0.0, 1.0))
    np.testing.assert_array_equal(hist, want)
    np.testing.assert_array_equal(edges, want_edges)
    scipy_ndimage = pytest.importorskip("scipy.ndimage")
    image = np.ones((512, 512), np.float32)
    np.testing.assert_allclose(out, scipy_ndimage.correlate(image, np.full((5, 5), 1 / 25, np.float32)),
                               rtol=1e-6)


# Every wrong argument is a TypeError or ValueError in pplab's words that names the argument,
# never pybind's "incompatible function arguments", a cast error, or a silent answer.
@pytest.mark.parametrize("call, error, words", [
    (lambda: pplab.sum(np.ones(3), backend=3), TypeError, "backend must be"),
    (lambda: pplab.sum(np.ones(3), backend="gpu"), ValueError, "backend must be"),
    (lambda: pplab.sum(np.ones(3), variant=3), TypeError, "variant must be"),
    (lambda: pplab.sum(np.ones(3), variant="nope"), ValueError, r"pplab.rungs\('reduce'\)"),
    (lambda: pplab.correlate(np.ones((4, 4)), np.ones((3, 3)), mode=None), ValueError, "mode must"),
    (lambda: pplab.correlate(np.ones((4, 4)), np.ones((3, 3)), cval="a"), TypeError, "cval must"),
    (lambda: pplab.correlate(np.ones((4, 4)), np.ones((3, 3)), output=np.empty((3, 3))),
     ValueError, "output has shape"),
    (lambda: pplab.correlate(np.ones((4, 4)), np.ones((3, 3)), output=[1]), TypeError,
     "output must be an array or a dtype"),
    (lambda: pplab.histogram(np.ones(3), bins=2**64), ValueError, "bins must be between"),
    (lambda: pplab.histogram(np.ones(3), bins=2.5), TypeError, "bins must be an integer"),
    (lambda: pplab.histogram(np.ones(3), 4, range=("1", "10")), TypeError, "range's min"),
    (lambda: pplab.histogram(np.ones(3), 4, range=(1, 2, 3)), ValueError, "range must be"),
    (lambda: pplab.histogram(np.array([1.0, np.nan])), ValueError, r"range=\(lo, hi\)"),
    (lambda: pplab.bincount(np.array([1]), minlength="a"), TypeError, "minlength must"),
    (lambda: pplab.bincount(np.array([1]), minlength=-1), ValueError, "minlength must"),
    (lambda: pplab.bincount(np.array([2**24])), ValueError, "2\\*\\*24"),
    (lambda: pplab.bincount(np.array([2**64 - 1], dtype=np.uint64)), ValueError, "2\\*\\*24"),
    (lambda: pplab.rungs("nope"), ValueError, "unknown pattern"),
    (lambda: pplab.rungs(3), TypeError, "pattern must"),
    (lambda: pplab.lab("reduce", size="tiny", rungs=["zzz"]), ValueError, "zzz"),
    (lambda: pplab.lab("reduce", size="tiny", budget_s=-1), ValueError, "budget_s"),
    (lambda: pplab.lab("reduce", size="tiny", budget_s=float("nan")), ValueError, "budget_s"),
    (lambda: pplab.lab("reduce", size="tiny", budget_s="1"), TypeError, "budget_s"),
])
def test_wrong_arguments_are_named(call, error, words):
    with pytest.raises(error, match=words):
        call()


# A malformed __cuda_array_interface__ is a ValueError that says what the interface needs.
@pytest.mark.parametrize("cai", [
    {"shape": ("a",), "typestr": "<f4", "data": (0, False), "version": 3},
    {"shape": (3,), "typestr": "<fx", "data": (0, False), "version": 3},
    {"shape": (3,), "data": (0, False), "version": 3},
    {"shape": (-3,), "typestr": "<f4", "data": (0, False), "version": 3},
])
def test_a_malformed_cuda_array_interface_is_a_value_error(cai):
    fake = type("Fake", (), {"__cuda_array_interface__": cai})()
    with pytest.raises((ValueError, TypeError), match="__cuda_array_interface__|typestr|type"):
        pplab.sum(fake)


# Complex inputs and weights as SciPy filters them: the real and imaginary parts apart, combined
# (correlate conjugates the weights), each part SciPy's bits; a complex cval for a real input
# and a real output array refused as SciPy refuses them.
@pytest.mark.parametrize("backend", BACKENDS)
def test_complex_correlate_is_scipys(rng, backend):
    ndimage = pytest.importorskip("scipy.ndimage")
    for shape, wshape in (((17, 23), (3, 4)), ((5, 6, 7), (3, 3, 2)), ((40,), (5,))):
        z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        for x in (z.astype(np.complex64), z, (z.real * 50).astype(np.int16)):
            for complex_weights in (False, True):
                w = rng.standard_normal(wshape) + (1j * rng.standard_normal(wshape)
                                                   if complex_weights else 0)
                if not complex_weights and x.dtype.kind != "c":
                    continue
                cval = 1.5 + 0.5j if x.dtype.kind == "c" else 1.5
                for call, ref in ((pplab.correlate, ndimage.correlate),
                                  (pplab.convolve, ndimage.convolve)):
                    got = call(x, w, mode="constant", cval=cval, backend=backend)
                    want = ref(x, w, mode="constant", cval=cval)
                    assert got.dtype == want.dtype
                    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="complex-valued cval"):
        pplab.correlate(np.ones((4, 4)), np.ones((3, 3)) * 1j, cval=1j)
    with pytest.raises(RuntimeError, match="complex dtype"):
        pplab.correlate(np.ones((4, 4)), np.ones((3, 3)) * 1j, output=np.empty((4, 4)))
    with pytest.warns(UserWarning, match="promoting"):
        got = pplab.correlate(np.ones((4, 4)), np.ones((3, 3)) * 1j, output=np.float32)
    assert got.dtype == np.complex64


# What pplab would read wrongly is refused: masked arrays (their masked values).
def test_masked_arrays_are_refused():
    masked = np.ma.masked_array([1, 2, 3], mask=[0, 0, 1])
    for call in (pplab.sum, pplab.max, lambda x: pplab.histogram(x, 3)):
        with pytest.raises(TypeError, match="masked array"):
            call(masked)
    assert pplab.sum(masked.compressed()) == 3


# output= an array: written in place and returned, as scipy.ndimage does.
def test_filter_output_array_is_written_and_returned():
    scipy_ndimage = pytest.importorskip("scipy.ndimage")
    image = np.arange(30, dtype=np.float64).reshape(5, 6)
    weights = np.arange(9, dtype=np.float64).reshape(3, 3)
    out = np.full((5, 6), np.nan)
    got = pplab.correlate(image, weights, output=out)
    assert got is out
    np.testing.assert_allclose(out, scipy_ndimage.correlate(image, weights), rtol=1e-12)


# Ctrl-C while pplab works (the GIL released) stops the call between its pieces with the
# KeyboardInterrupt Python raised, rather than when it returns: a full lab of the seq reductions
# would run for minutes; it stops within a row of the signal.
def test_ctrl_c_stops_a_long_call():
    import _thread
    import threading
    import time
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            pplab.lab("reduce", backend="seq", size="full", budget_s=2.0)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 60
    assert pplab.sum(np.ones(10)) == 10  # and pplab answers again


# A product past 2^33 multiply-adds runs in bands of K on the host (so that Ctrl-C is taken
# between them): the same product, to the float64 product's rounding.
def test_a_long_host_product_in_bands_is_the_product(rng):
    a = rng.standard_normal((2048, 2048))
    b = rng.standard_normal((2048, 2048))
    got = pplab.matmul(a, b, backend="cpu")
    np.testing.assert_allclose(got, a @ b, rtol=1e-9, atol=1e-9)


# numpy.histogram's bins as an array of edges, weights= and density=, and numpy.bincount's
# weights=, against NumPy. NumPy sums float32 weights in float32 (in blocks, or by a float32
# cumulative sum for edges, whose error grows with the running total) where pplab sums in
# double: the oracle for weights is NumPy given the weights in float64, its sums then cast to
# the weights' dtype, as NumPy casts them.
def _weighted_oracle(a, bins, range_, w, density):
    want, _ = np.histogram(a, bins, range=range_, weights=w.astype(np.float64))
    want = want.astype(w.dtype)
    if density:
        _, edges = np.histogram(a, bins, range=range_)
        want = want / np.array(np.diff(edges), float) / want.sum()
    return want


def _close(got, want, dtype, scale=1.0):
    """got within the rounding of the weights' type of want; `scale`: how much a sum's
    cancellation magnifies a difference in its order of addition (a density's normalizer)."""
    rtol = (1e-6 if np.dtype(dtype) == np.float32 else 1e-12) * max(scale, 1.0)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.nanmax(np.abs(want),
                                                                              initial=1))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.int64, np.uint8])
@pytest.mark.parametrize("n", [0, 1, 1000, 70001])
def test_histogram_with_edges_weights_and_density_matches_numpy(rng, backend, dtype, n):
    a = (rng.normal(size=n) * 30 + 50).astype(dtype)
    if np.dtype(dtype).kind == "f" and n > 10:
        a[::97] = np.nan
        a[1] = np.inf
    edges = np.sort(rng.uniform(-20, 120, 40))
    edges[7] = edges[8]  # an empty bin
    if n > 10:
        a[2:12] = edges[:10].astype(dtype)  # values on edges
    for bins in (edges, edges.astype(np.float32), [0, 10, 20.5, 100], np.arange(0, 101, 5)):
        got, got_edges = pplab.histogram(a, bins, backend=backend)
        want, want_edges = np.histogram(a, bins)
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
        assert got_edges.dtype == want_edges.dtype and (got_edges == want_edges).all()
    for wdtype in (np.float32, np.float64, np.int32):
        w = (rng.normal(size=n) * 4).astype(wdtype)
        for bins, rng_ in ((edges, None), (17, (-10, 110))):
            got, _ = pplab.histogram(a, bins, range=rng_, weights=w, backend=backend)
            assert got.dtype == np.histogram(a, bins, range=rng_, weights=w)[0].dtype
            _close(got, _weighted_oracle(a, bins, rng_, w, False), wdtype)
            if n > 10:
                with np.errstate(invalid="ignore", divide="ignore"):
                    got, _ = pplab.histogram(a, bins, range=rng_, weights=w, density=True,
                                             backend=backend)
                    want = _weighted_oracle(a, bins, rng_, w, True)
                assert got.dtype == np.float64
                # Each density is divided by the bins' total, a sum of weights of both signs:
                # added in another order its rounding is magnified by sum |bin| / |sum bin|
                sums = _weighted_oracle(a, bins, rng_, w, False).astype(np.float64)
                _close(got, want, wdtype, np.sum(np.abs(sums)) / abs(np.sum(sums)))
    if n > 10:
        with np.errstate(invalid="ignore", divide="ignore"):
            got, _ = pplab.histogram(a, edges, density=True, backend=backend)
            want, _ = np.histogram(a, edges, density=True)
        np.testing.assert_allclose(got, want, rtol=1e-14)


def test_histogram_edges_and_weights_are_checked():
    a = np.arange(10.0)
    for call, error, match in [
            (lambda: pplab.histogram(a, [3, 1, 2]), ValueError, "monotonically"),
            (lambda: pplab.histogram(a, [0, np.nan, 2]), ValueError, "NaN"),
            (lambda: pplab.histogram(a, [[0, 1], [2, 3]]), ValueError, "1d"),
            (lambda: pplab.histogram(a, [1]), ValueError, "at least two"),
            (lambda: pplab.histogram(a, "automatic"), ValueError, "not a valid estimator"),
            (lambda: pplab.histogram(a, "auto", weights=a), TypeError, "weighted data"),
            (lambda: pplab.histogram(np.array([1.0, np.nan]), "fd"), ValueError, "not finite"),
            (lambda: pplab.histogram(a, 4, weights=np.ones(9)), ValueError, "same shape"),
            (lambda: pplab.histogram(a, 4, weights=np.ones(10, np.complex64)), TypeError,
             "complex"),
            (lambda: pplab.bincount(np.arange(4), weights=np.ones(3)), ValueError, "same shape"),
            (lambda: pplab.bincount(np.ones((2, 2), np.int64)), ValueError, "1-D")]:
        with pytest.raises(error, match=match):
            call()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rule", ["auto", "fd", "doane", "scott", "stone", "rice", "sturges",
                                  "sqrt"])
def test_histogram_bin_estimators_match_numpy(rng, backend, rule):
    # NumPy's estimator picks the number of equal bins; the counts and edges are then pplab's,
    # bit for bit NumPy's: float32 and float64 data, integers, a range that drops values, a
    # constant array (one bin), a tiny and an empty one, booleans (binned as uint8)
    cases = [(rng.normal(size=100003).astype(np.float32), None),
             (rng.lognormal(size=50001), None),
             (rng.lognormal(size=50001), (0.5, 4.0)),
             (rng.integers(-300, 300, 20001), None),
             (np.full(100, 2.5), None),
             (np.array([3.0]), None),
             (np.array([], dtype=np.float64), None),
             (rng.random(1000) < 0.3, None)]
    for a, range_ in cases:
        got, got_edges = pplab.histogram(a, rule, range_, backend=backend)
        want, want_edges = np.histogram(a, rule, range_)
        assert got.tolist() == want.tolist(), (rule, a.dtype, a.size, range_)
        assert got_edges.dtype == want_edges.dtype and got_edges.tolist() == want_edges.tolist()
    density, _ = pplab.histogram(cases[1][0], rule, density=True, backend=backend)
    np.testing.assert_allclose(density, np.histogram(cases[1][0], rule, density=True)[0],
                               rtol=1e-13)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.int64])
def test_bincount_with_weights_matches_numpy(rng, backend, dtype):
    x = rng.integers(0, 200, 50001).astype(dtype)
    for wdtype in (np.float32, np.float64, np.int64, np.bool_):
        w = (rng.normal(size=x.size) * 3).astype(wdtype)
        for minlength in (0, 10, 300):
            got = pplab.bincount(x, w, minlength=minlength, backend=backend)
            want = np.bincount(x, w, minlength=minlength)
            assert got.dtype == want.dtype == np.float64 and got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    assert pplab.bincount(np.array([], dtype=dtype), np.array([])).dtype == np.float64


# numpy.sum's other arguments: a tuple of axes (each reduced in turn), dtype= (the answer's
# type; float data to integers cast element by element first, as NumPy) and out=.
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean"])
@pytest.mark.parametrize("axis", [(0, 1), (0, 2), (1, 2), (0, 1, 2), (-1, 0), 1])
def test_tuple_axes_dtype_and_out_match_numpy(rng, op, axis):
    x = rng.normal(size=(4, 5, 6))
    got, want = getattr(pplab, op)(x, axis=axis), getattr(np, op)(x, axis=axis)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    kept = getattr(pplab, op)(x, axis=axis, keepdims=True)
    assert kept.shape == getattr(np, op)(x, axis=axis, keepdims=True).shape
    if op in ("sum", "prod", "mean"):
        got32 = getattr(pplab, op)(x, axis=axis, dtype=np.float32)
        assert np.asarray(got32).dtype == np.float32
        np.testing.assert_allclose(got32, want.astype(np.float32), rtol=1e-6)
    out = np.empty(np.shape(want))
    if out.ndim:
        assert getattr(pplab, op)(x, axis=axis, out=out) is out
        np.testing.assert_allclose(out, want, rtol=1e-12)


# numpy.var and numpy.std: one pass of (count, mean, squared deviations) triples, against NumPy's
# two passes in float64; data far from zero (where a sum of squares would cancel), integers,
# views, every axis and tuples of them, ddof, keepdims, dtype, out, NaN and inf, empty.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.int64, np.uint8])
def test_var_and_std_match_numpy(rng, backend, dtype):
    x = (rng.normal(size=(37, 29, 53)) * 3 + 1000).astype(dtype)
    ref = x.astype(np.float64)
    for op in ("var", "std"):
        mine, theirs = getattr(pplab, op), getattr(np, op)
        for axis in (None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2)):
            for ddof in (0, 1):
                got = mine(x, axis=axis, ddof=ddof, backend=backend)
                want = theirs(ref, axis=axis, ddof=ddof)
                assert np.asarray(got).dtype == theirs(x, axis=axis, ddof=ddof).dtype or \
                    isinstance(got, float)  # NumPy's type; every axis: a Python float
                np.testing.assert_allclose(got, want, rtol=rtol_for(got, 1e-9),
                                           err_msg="%s %s" % (op, axis))
        got = mine(x[::-3, :, 1::2], axis=1, backend=backend)
        np.testing.assert_allclose(got, theirs(ref[::-3, :, 1::2], axis=1),
                                   rtol=rtol_for(got, 1e-9))
        kept = mine(x, axis=(0, 2), keepdims=True, backend=backend)
        assert kept.shape == (1, 29, 1)
        assert np.asarray(mine(x, axis=1, dtype=np.float32, backend=backend)).dtype == np.float32
        out = np.empty((37, 53))
        assert mine(x, axis=1, out=out, backend=backend) is out
        np.testing.assert_allclose(out, theirs(ref, axis=1), rtol=1e-9)
    big = np.full(100001, 1e9) + rng.normal(size=100001)  # a sum of squares would lose it all
    np.testing.assert_allclose(pplab.var(big, backend=backend), np.var(big), rtol=1e-7)
    flags = np.array([True, False, True, True])
    assert pplab.var(flags, backend=backend) == pytest.approx(np.var(flags), rel=1e-15)


# Data whose mean is far from its spread (1e9 and 1): every walk takes its moments of the values
# less one of them, so its merges round at the spread's scale (element-by-element merges had
# left the variance along an axis 4e-9 off the exact one).
@pytest.mark.parametrize("backend", BACKENDS)
def test_var_along_axes_of_data_far_from_zero(rng, backend):
    x = 1e9 + rng.normal(size=(1001, 24))
    x[0, 3] = np.nan  # nanvar's shift: the first number of the column
    for axis in (None, 0, 1):
        for view in (x, x.T, x[::-1]):
            for op in ("var", "nanvar", "nanmean", "std"):
                got = getattr(pplab, op)(view, axis=axis, backend=backend)
                want = moments_oracle(op, view, axis)  # numpy.var: 1e-12 off along axis 0
                np.testing.assert_allclose(got, want, rtol=1e-13, err_msg="%s %s" % (op, axis))


# dtype=float64 on float32 data: the spread computed in double, as NumPy's, not float32's answers
# widened (which are ~1e-7 off), along an axis and with ddof.
@pytest.mark.parametrize("backend", BACKENDS)
def test_var_with_a_float64_dtype_is_computed_in_double(rng, backend):
    x = (rng.standard_normal((999, 5)) * 50).astype(np.float32)
    for op in ("var", "std", "nanvar", "nanstd"):
        for ddof in (0, 1):
            got = getattr(pplab, op)(x, axis=0, dtype=np.float64, ddof=ddof, backend=backend)
            want = getattr(np, op)(x.astype(np.float64), axis=0, ddof=ddof)
            assert got.dtype == np.float64
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg="%s %d" % (op, ddof))


def test_var_and_std_of_nan_inf_and_nothing_answer_as_numpy():
    assert np.isnan(pplab.var(np.array([1.0, np.nan, 2.0])))
    assert np.isnan(pplab.std(np.array([1.0, np.inf])))
    assert np.isnan(pplab.var(np.array([np.inf])))
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        assert np.isnan(pplab.var(np.array([], dtype=np.float32)))
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        assert np.isnan(pplab.std(np.array([3.0]), ddof=1))
    got = pplab.var(np.array([[1.0, 2.0], [3.0, np.nan]]), axis=0)
    assert got[0] == 1.0 and np.isnan(got[1])
    with pytest.raises(TypeError, match="ddof"):
        pplab.var(np.ones(3), ddof="1")


# NumPy's nan reductions: NaN left out in the engines' pass, against NumPy over dtypes, every
# axis and tuples, views, keepdims, out, ddof; slices of NaN alone with NumPy's warnings and errors.
NAN_OPS = ("nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd", "nanargmin",
           "nanargmax")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's and pplab's, for the NaN lines
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
def test_nan_reductions_match_numpy(rng, backend, dtype):
    x = (rng.normal(size=(23, 31, 47)) * 3 + 5).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[rng.random(x.shape) < 0.15] = np.nan
        x[3, :, 7] = np.nan  # a line of NaN alone along axis 1, but not along the others
        x[4, 2, 9] = np.inf
    # floats against NumPy's answers in double; integers in their own (int64 sums and products)
    ref = x.astype(np.float64) if np.dtype(dtype).kind == "f" else x
    for op in NAN_OPS:
        mine, theirs = getattr(pplab, op), getattr(np, op)
        arg = op.endswith(("argmin", "argmax"))
        for axis in (None, 0, 2, -1) if arg else (None, 0, 1, 2, -1, (0, 2), (0, 1, 2)):
            if op == "nanprod" and axis in (None, (0, 2), (0, 1, 2)):
                continue  # thousands of factors: an overflow, in NumPy's order or pplab's
            got = mine(x, axis=axis, backend=backend)
            want = theirs(x if arg else ref, axis=axis)
            msg = "%s axis %s" % (op, axis)
            if arg:
                np.testing.assert_array_equal(got, want, err_msg=msg)
            elif op in ("nanmin", "nanmax"):
                np.testing.assert_array_equal(np.asarray(got, np.float64),
                                              theirs(x, axis=axis).astype(np.float64), msg)
            else:
                np.testing.assert_allclose(got, want, rtol=rtol_for(got, 1e-9), atol=1e-9,
                                           err_msg=msg)
            if not isinstance(got, (int, float)):  # NumPy's type
                assert got.dtype == theirs(x, axis=axis).dtype, msg
    for op in ("nanvar", "nanstd"):
        for axis in (None, 0, (1, 2)):
            got = getattr(pplab, op)(x, axis=axis, ddof=1, backend=backend)
            np.testing.assert_allclose(got, getattr(np, op)(ref, axis=axis, ddof=1),
                                       rtol=rtol_for(got, 1e-9))
    view = x[::-2, 1::3, :]
    got = pplab.nansum(view, axis=1, backend=backend)
    np.testing.assert_allclose(got, np.nansum(view.astype(np.float64), axis=1),
                               rtol=rtol_for(got, 1e-9))
    assert pplab.nanmean(x, axis=(0, 2), keepdims=True, backend=backend).shape == (1, 31, 1)
    out = np.empty((23, 47))
    assert pplab.nanmax(x, axis=1, out=out, backend=backend) is out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64,
                                   np.float16, np.float32, np.float64])
def test_count_nonzero_any_and_all_match_numpy(rng, backend, dtype):
    x = rng.integers(-2, 3, size=(23, 31, 47)).astype(dtype)  # about one in five zero
    if np.dtype(dtype).kind == "f":
        x[rng.random(x.shape) < 0.1] = np.nan  # NaN is not zero
        x[rng.random(x.shape) < 0.1] = -0.0  # -0.0 is
        x[4, 2, 9] = np.inf
    x[5] = 0  # a plane of zeros: any() False along the axes within it
    x[6] = 1  # and one without: all() True there
    views = (x, x[::-2, 1::3, :], np.transpose(x, (2, 0, 1)), x[:, :, 0])
    for v in views:
        for axis in (None, 0, 1, -1, (0, 1), (0, -1)):
            for keepdims in (False, True):
                msg = "axis %s keepdims %s shape %s" % (axis, keepdims, v.shape)
                got = pplab.count_nonzero(v, axis=axis, keepdims=keepdims, backend=backend)
                want = np.count_nonzero(v, axis=axis, keepdims=keepdims)
                np.testing.assert_array_equal(got, want, err_msg=msg)
                assert np.asarray(got).dtype == np.asarray(want).dtype, msg
                assert type(got) is type(want), msg
                for name in ("any", "all"):
                    got = getattr(pplab, name)(v, axis=axis, keepdims=keepdims, backend=backend)
                    want = getattr(np, name)(v, axis=axis, keepdims=keepdims)
                    np.testing.assert_array_equal(got, want, err_msg=name + " " + msg)
                    assert type(got) is type(want), name + " " + msg
                    assert np.asarray(got).dtype == np.bool_, name + " " + msg
    out = np.empty((23, 47), np.bool_)
    assert pplab.any(x, axis=1, out=out, backend=backend) is out
    np.testing.assert_array_equal(out, np.any(x, axis=1))
    for empty in (np.zeros(0, dtype), np.zeros((3, 0), dtype)):
        assert pplab.count_nonzero(empty, backend=backend) == 0
        assert pplab.any(empty, backend=backend) is np.False_
        assert pplab.all(empty, backend=backend) is np.True_
        np.testing.assert_array_equal(pplab.all(empty, axis=-1, backend=backend),
                                      np.all(empty, axis=-1))
    # a large array counted in parts that stop at the first part that decides: the one element
    # that decides in each part, at its edges, and nowhere
    for size in (65536, 65537, (1 << 20) + (1 << 16) + 3):
        for at in (None, 0, 65535, 65536, size - 1, (1 << 20) + (1 << 16) - 1):
            if at is not None and at >= size:
                continue
            zeros, ones = np.zeros(size, dtype), np.ones(size, dtype)
            if at is not None:
                zeros[at], ones[at] = 1, 0
            for v in (zeros, ones, zeros.reshape(-1, 1), ones[::-1]):
                for name in ("any", "all"):
                    msg = "%s size %d at %s" % (name, size, at)
                    assert getattr(pplab, name)(v, backend=backend) is getattr(np, name)(v), msg
                    np.testing.assert_array_equal(
                        getattr(pplab, name)(v, keepdims=True, backend=backend),
                        getattr(np, name)(v, keepdims=True), err_msg=msg)
    with pytest.raises(ValueError, match="out of bounds"):
        pplab.count_nonzero(x, axis=3)
    with pytest.raises(TypeError, match="axis"):
        pplab.any(x, axis=1.0)


def test_nan_reductions_of_nan_alone_warn_or_raise_as_numpy():
    alone = np.full(5, np.nan, np.float32)
    assert pplab.nansum(alone) == 0.0 and pplab.nanprod(alone) == 1.0
    for op, message in (("nanmin", "All-NaN"), ("nanmax", "All-NaN"), ("nanmean", "empty slice"),
                        ("nanvar", "Degrees of freedom"), ("nanstd", "Degrees of freedom")):
        with pytest.warns(RuntimeWarning, match=message):
            assert np.isnan(getattr(pplab, op)(alone))
    for op in ("nanargmin", "nanargmax"):
        with pytest.raises(ValueError, match="All-NaN slice"):
            getattr(pplab, op)(alone)
        with pytest.raises(ValueError, match="All-NaN slice"):
            getattr(pplab, op)(np.array([[1.0, np.nan], [2.0, np.nan]]), axis=0)
    with pytest.warns(RuntimeWarning, match="empty slice"):
        assert np.isnan(pplab.nanmean(np.array([], np.float64)))
    with pytest.raises(ValueError, match="zero-size"):
        pplab.nanmax(np.array([], np.float32))
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        got = pplab.nanvar(np.array([[1.0, 2.0], [np.nan, 3.0]]), axis=0, ddof=1)
    assert np.isnan(got[0]) and got[1] == 0.5
    mixed = np.array([np.nan, np.inf, 1.0, -np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NaN from inf - inf: no slice is empty, no warning
        assert np.isnan(pplab.nansum(mixed)) and np.isnan(pplab.nanmean(mixed))
    assert pplab.nanmax(mixed) == np.inf and pplab.nanargmin(mixed) == 3
    assert pplab.nanmean(np.array([np.inf, 2.0, np.nan])) == np.inf
    flags = np.array([True, False, True])
    assert pplab.nansum(flags) == 2 and pplab.nanmax(flags) == np.nanmax(flags)
    assert pplab.nanmean(np.arange(5)) == 2.0  # integers: the plain ops


def test_dtype_casts_as_numpy_and_bad_axes_are_refused():
    halves = np.array([1.5, 1.5, 2.5])
    assert pplab.sum(halves, dtype=np.int64) == np.sum(halves, dtype=np.int64) == 4
    assert pplab.sum(np.arange(6).reshape(2, 3), axis=0, dtype=np.int8).dtype == np.int8
    assert type(pplab.sum(np.ones(3, np.float32), dtype=np.float32)) is np.float32
    for axis, error in (((0, 0), ValueError), ((0, 5), ValueError), ((0, 1.0), TypeError),
                        ((), ValueError)):
        with pytest.raises(error):
            pplab.sum(np.ones((2, 3)), axis=axis)


# numpy.histogram2d: bins an int, a pair, edges or a pair of either; ranges given or from the
# data (NumPy's linspace, its dtype's); NaN points, points on edges; weights and density.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8])
def test_histogram2d_matches_numpy(rng, backend, dtype):
    n = 50001
    x = (rng.normal(size=n) * 3 + 10).astype(dtype)
    y = (rng.normal(size=n) * 2 + 12).astype(dtype)
    w = rng.random(n)
    nan = np.dtype(dtype).kind == "f"
    # NumPy 1.x compares float32 points with the last edge in float32 (value-based casting), so a
    # point within half a float32 step below it moves one bin left there; pplab compares in
    # double, as NumPy 2 does (docs/python.md): on NumPy 1 the oracle gets the points in float64.
    oracle = np.float64 if dtype == np.float32 and np.__version__.split(".")[0] == "1" else dtype
    for bins in (10, [7, 13], [np.linspace(5, 15, 9), 6], np.sort(rng.normal(size=20)) + 10):
        for range_ in (None, [(6, 14), (8, 16)]):
            xs = x.copy()
            if nan and range_ is not None:
                xs[::101] = np.nan
            got, gx, gy = pplab.histogram2d(xs, y, bins, range_, backend=backend)
            want, wx, wy = np.histogram2d(xs.astype(oracle), y.astype(oracle), bins, range_)
            assert got.dtype == want.dtype and (got == want).all()
            assert gx.dtype == wx.dtype and (gx == wx).all() and (gy == wy).all()
            with np.errstate(invalid="ignore", divide="ignore"):
                got, _, _ = pplab.histogram2d(xs, y, bins, range_, weights=w, density=True,
                                              backend=backend)
                want, _, _ = np.histogram2d(xs.astype(oracle), y.astype(oracle), bins, range_,
                                            weights=w, density=True)
            np.testing.assert_allclose(got, want, rtol=1e-12)
    if nan:
        x[3] = np.nan
        with pytest.raises(ValueError, match="not finite"):
            pplab.histogram2d(x, y)
    with pytest.raises(ValueError, match="one length"):
        pplab.histogram2d(x, y[:-1])
    with pytest.raises(ValueError, match="monotonically"):
        pplab.histogram2d(x, y, [[3, 1, 2], 4])


# float16 in the reductions: widened to float32 (exactly), so each answer is float32 data's, of
# the same numbers (along an axis in float16, NumPy's type: the double answer rounded once); ptp
# answers in float16, as NumPy's; the histograms refuse it with the way out.
def test_float16_reductions_answer_for_the_same_numbers_as_float32(rng):
    x = (rng.standard_normal((37, 129)) * 100).astype(np.float16)
    x[3, 5] = np.nan
    wide = x.astype(np.float32)
    for name in ("sum", "mean", "min", "max", "argmin", "argmax", "var", "std", "nansum",
                 "nanmean", "nanmin", "nanmax", "nanargmax", "nanvar", "prod"):
        f = getattr(pplab, name)
        for axis in (None, 0, 1):
            got = f(x, axis=axis)
            if axis is None or "arg" in name:
                np.testing.assert_array_equal(got, f(wide, axis=axis), err_msg=name)
                continue
            assert got.dtype == getattr(np, name)(x, axis=axis).dtype, name
            double = f(wide, axis=axis) if "min" in name or "max" in name else \
                f(wide, axis=axis, dtype=np.float64)
            np.testing.assert_array_equal(got, double.astype(np.float16), err_msg=name)
    np.testing.assert_allclose(pplab.nansum(x, axis=0),
                               np.nansum(x.astype(np.float64), axis=0).astype(np.float16))
    for axis in (None, 1):
        got = pplab.ptp(x[:, 6:], axis=axis)
        assert np.asarray(got).dtype == np.float16
        np.testing.assert_array_equal(got, np.ptp(x[:, 6:], axis=axis))
    with pytest.raises(TypeError, match="float16"):
        pplab.histogram(x)


# numpy.histogramdd: an (N, D) array (its columns read where they lie) or a sequence of D arrays;
# bins an int, one per axis, edges; ranges given, None, or from the data; NaN points, points on
# edges; weights and density; an RGB image's joint colour histogram.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8])
def test_histogramdd_matches_numpy(rng, backend, dtype):
    n = 20011
    oracle = np.float64 if dtype == np.float32 and np.__version__.split(".")[0] == "1" else dtype
    for D in (1, 2, 3, 5):
        sample = (rng.normal(size=(n, D)) * 3 + 10).astype(dtype)
        w = rng.random(n).astype(np.float32)
        per_axis = [[4, 7, 3, 2, 5][:D], [np.linspace(5, 15, 9)] + [6] * (D - 1)]
        for bins in [10] + per_axis:
            for range_ in (None, [(6, 14)] + [None] * (D - 1)):
                s = sample.copy()
                if np.dtype(dtype).kind == "f" and range_ is not None:
                    s[::101, 0] = np.nan
                    s[5, 0] = 14  # a point on a last edge: in the last bin
                for points in (s, list(s.T.copy()), np.asfortranarray(s),
                               np.repeat(s, 2, axis=0)[::2]):
                    got, edges = pplab.histogramdd(points, bins, range_, backend=backend)
                    want, wedges = np.histogramdd(s.astype(oracle), bins, range_)
                    assert got.dtype == want.dtype and got.shape == want.shape
                    assert (got == want).all(), (D, bins, range_)
                    assert all(a.dtype == b.dtype and (a == b).all()
                               for a, b in zip(edges, wedges))
                with np.errstate(invalid="ignore", divide="ignore"):
                    got, _ = pplab.histogramdd(s, bins, range_, density=True, weights=w,
                                               backend=backend)
                    want, _ = np.histogramdd(s.astype(oracle), bins, range_, density=True,
                                             weights=w)
                np.testing.assert_allclose(got, want, rtol=1e-12)
    rgb = rng.integers(0, 256, (64, 48, 3), dtype=np.uint8).reshape(-1, 3)
    got, _ = pplab.histogramdd(rgb, 8, [(0, 256)] * 3, backend=backend)
    assert (got == np.histogramdd(rgb, 8, [(0, 256)] * 3)[0]).all() and got.sum() == 64 * 48
    empty, _ = pplab.histogramdd(np.empty((0, 3)), 4, backend=backend)
    assert empty.shape == (4, 4, 4) and not empty.any()


def test_histogramdd_refuses_what_numpy_refuses():
    s = np.ones((10, 3))
    for args, error, words in (((s, [2, 3]), ValueError, "dimension of bins"),
                               ((s, [2, [3, 1, 2], 2]), ValueError, "monotonically"),
                               ((s, [2, 0, 2]), ValueError, "bins"),
                               ((s, 4, [(0, 1), (1, 0), None]), ValueError, "max must be larger"),
                               ((np.ones((2, 2, 2)),), ValueError, "an \\(N, D\\) array"),
                               (([np.ones(3), np.ones(4)],), ValueError, "one length"),
                               ((s, 300), ValueError, "2\\^24"),
                               ((np.ones((3, 33)), 1), ValueError, "1 to 32 axes")):
        with pytest.raises(error, match=words):
            pplab.histogramdd(*args)
    with pytest.raises(ValueError, match="weights"):
        pplab.histogramdd(s, weights=np.ones(9))
    with pytest.raises(TypeError, match="numbers"):
        pplab.histogramdd(np.array([["a", "b"]]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", INT_TYPES + FLOAT_TYPES)
@pytest.mark.parametrize("shape", [(1,), (1000,), (65537,), (7, 130), (3, 4, 67), (5, 1)])
def test_argmin_argmax_match_numpy(rng, backend, dtype, shape):
    n = int(np.prod(shape))
    if np.issubdtype(dtype, np.floating):
        x = np.round(rng.standard_normal(n) * 4).astype(dtype)  # ties
    else:
        x = rng.integers(0, 20, n).astype(dtype)  # ties
    x = x.reshape(shape)
    for name in ("argmin", "argmax"):
        ours, theirs = getattr(pplab, name), getattr(np, name)
        got = ours(x, backend=backend)
        assert isinstance(got, int) and got == theirs(x), name
        for axis in range(-len(shape), len(shape)):
            if backend not in ("seq", "cpu"):
                continue  # other backends: host arrays whole (above); an axis on the host
            got = ours(x, axis=axis, backend=backend)
            want = theirs(x, axis=axis)
            if np.ndim(want) == 0:
                assert got == want
            else:
                assert got.dtype == np.int64 and np.array_equal(got, want), (name, axis)
    if np.issubdtype(dtype, np.floating) and n > 3:
        y = x.reshape(-1).copy()
        y[n // 2], y[n - 1] = np.nan, np.nan
        assert pplab.argmax(y, backend=backend) == np.argmax(y) == n // 2
        assert pplab.argmin(y, backend=backend) == np.argmin(y) == n // 2


def test_argmin_argmax_errors_keepdims_and_out(rng):
    x = rng.standard_normal((4, 6))
    for name in ("argmin", "argmax"):
        ours, theirs = getattr(pplab, name), getattr(np, name)
        with pytest.raises(ValueError, match="empty"):
            ours(np.array([], dtype=np.float32))
        with pytest.raises(ValueError, match="empty"):
            ours(np.zeros((3, 0)), axis=1)
        with pytest.raises(TypeError, match="axis must be an int"):
            ours(x, axis=(0, 1))
        for axis in (None, 0, 1):
            got = ours(x, axis=axis, keepdims=True)
            want = theirs(x, axis=axis, keepdims=True)
            assert got.shape == want.shape and np.array_equal(got, want)
        out = np.empty(6, dtype=np.int64)
        assert ours(x, axis=0, out=out) is out and np.array_equal(out, theirs(x, axis=0))
        assert pplab.reduce(x, name) == theirs(x)
    assert pplab.argmax(np.array([-np.inf, -np.inf])) == 0
    assert pplab.argmin(np.array([0.0, -0.0])) == 0  # equal values: the first


# Transposed, reversed and sliced views are reduced where they lie (reduce_view), whole and along
# every axis, every op and argmin/argmax (indices in the view's own C order), as NumPy on them.
@pytest.mark.parametrize("backend", ["seq", "cpu"])
@pytest.mark.parametrize("dtype", [np.int16, np.uint32, np.float32, np.float64])
def test_reductions_of_strided_views_match_numpy(rng, backend, dtype):
    base = np.round(rng.standard_normal((37, 53, 11)) * 3).astype(dtype)  # ties
    if not np.issubdtype(dtype, np.signedinteger) and not np.issubdtype(dtype, np.floating):
        base = np.abs(base).astype(dtype)
    views = [base.T, base[::-1], base[:, ::2, 1:], base.transpose(1, 0, 2)[::-1, :, ::3],
             base[:, 7, ::-1], base[3, ::-5], base[:, :0, ::2]]
    for v in views:
        assert not v.flags.c_contiguous or not v.size
        wide = v.astype(np.float64)
        if v.size:
            assert pplab.argmax(v, backend=backend) == np.argmax(v)
            assert pplab.argmin(v, backend=backend) == np.argmin(v)
            assert pplab.max(v, backend=backend) == v.max()
            assert pplab.mean(v, backend=backend) == pytest.approx(wide.mean(), rel=1e-12)
        assert pplab.sum(v, backend=backend) == pytest.approx(wide.sum(), rel=1e-12, abs=1e-9)
        for axis in range(v.ndim):
            for name in ("sum", "min", "max", "mean", "argmin", "argmax"):
                if v.shape[axis] == 0 and name != "sum":
                    continue
                got = getattr(pplab, name)(v, axis=axis, backend=backend)
                want = getattr(np, name)(wide if name in ("sum", "mean") else v, axis=axis)
                assert got.shape == want.shape, (name, axis, v.strides)
                assert got.dtype == getattr(np, name)(v, axis=axis).dtype, (name, axis)
                np.testing.assert_allclose(got, want, rtol=rtol_for(got, 1e-12),
                                           err_msg="%s %d" % (name, axis))
    # A float sum of a view is the same on every run and thread count.
    v = rng.standard_normal((2000, 300)).astype(np.float32).T[::-1]
    assert len({pplab.sum(v, backend=backend) for _ in range(3)}) == 1
    with pytest.raises(ValueError, match="variant"):
        pplab.sum(v, variant="r01_sequential_loop")


# scipy.ndimage's named filters on 1-D and 2-D float arrays, against SciPy, every mode: the
# kernels SciPy builds (Gaussian radius, even sizes, origin=), run as one separable filter.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(301,), (67, 45), (1, 9)])
def test_scipy_named_filters_match_scipy(rng, backend, dtype, shape):
    ndimage = pytest.importorskip("scipy.ndimage")
    x = rng.standard_normal(shape).astype(dtype)
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    last = len(shape) - 1
    for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
        calls = [
            (lambda a: pplab.gaussian_filter(a, 1.5, mode=mode, cval=0.5, backend=backend),
             lambda a: ndimage.gaussian_filter(a, 1.5, mode=mode, cval=0.5)),
            (lambda a: pplab.gaussian_filter(a, [0.0, 2.0][-len(shape):], mode=mode, truncate=3.0,
                                             backend=backend),
             lambda a: ndimage.gaussian_filter(a, [0.0, 2.0][-len(shape):], mode=mode,
                                               truncate=3.0)),
            (lambda a: pplab.uniform_filter(a, 4, mode=mode, backend=backend),
             lambda a: ndimage.uniform_filter(a, 4, mode=mode)),
            (lambda a: pplab.uniform_filter(a, 5, mode=mode, origin=1, backend=backend),
             lambda a: ndimage.uniform_filter(a, 5, mode=mode, origin=1)),
            (lambda a: pplab.sobel(a, axis=last, mode=mode, backend=backend),
             lambda a: ndimage.sobel(a, axis=last, mode=mode)),
            (lambda a: pplab.sobel(a, axis=0, mode=mode, backend=backend),
             lambda a: ndimage.sobel(a, axis=0, mode=mode)),
            (lambda a: pplab.prewitt(a, mode=mode, backend=backend),
             lambda a: ndimage.prewitt(a, mode=mode)),
            (lambda a: pplab.sobel(a, axis=0, mode=mode, cval=0.5, backend=backend),
             lambda a: ndimage.sobel(a, axis=0, mode=mode, cval=0.5)),
            (lambda a: pplab.prewitt(a, axis=last, mode=mode, cval=-2.0, backend=backend),
             lambda a: ndimage.prewitt(a, axis=last, mode=mode, cval=-2.0)),
            (lambda a: pplab.correlate1d(a, [1.0, -2.0, 0.5, 3.0], axis=0, mode=mode, origin=-1,
                                         backend=backend),
             lambda a: ndimage.correlate1d(a, [1.0, -2.0, 0.5, 3.0], axis=0, mode=mode,
                                           origin=-1)),
            (lambda a: pplab.convolve1d(a, [1.0, -2.0, 0.5, 3.0], mode=mode, cval=2.0,
                                        backend=backend),
             lambda a: ndimage.convolve1d(a, [1.0, -2.0, 0.5, 3.0], mode=mode, cval=2.0)),
            (lambda a: pplab.convolve1d(a, [2.0, 1.0, -1.0], mode=mode, origin=1, backend=backend),
             lambda a: ndimage.convolve1d(a, [2.0, 1.0, -1.0], mode=mode, origin=1)),
        ]
        for k, (ours, theirs) in enumerate(calls):
            got = ours(x)
            assert got.shape == x.shape and got.dtype == x.dtype, k
            np.testing.assert_allclose(got, theirs(x), err_msg="%s call %d" % (mode, k), **tol)
    out = np.empty_like(x)
    assert pplab.gaussian_filter(x, 1.0, output=out, backend=backend) is out
    np.testing.assert_allclose(out, ndimage.gaussian_filter(x, 1.0), **tol)


# The named filters on volumes (3-D and 4-D), one pass per axis as SciPy runs them: against SciPy
# in every mode, per-axis arguments, axes of one element, a view, output=; (4, 40, 60) has planes
# the host filters where they lie (_HOST_PLANE), each pass into the array of the pass before last.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(9, 13, 17), (1, 20, 3), (5, 1, 1), (3, 4, 5, 6), (4, 40, 60)])
def test_scipy_named_filters_on_volumes_match_scipy(rng, backend, dtype, shape):
    ndimage = pytest.importorskip("scipy.ndimage")
    x = rng.standard_normal(shape).astype(dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    n = len(shape)
    sigmas = [1.0, 0.0, 2.0, 0.7][:n]
    for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
        calls = [
            (lambda a: pplab.gaussian_filter(a, 1.2, mode=mode, cval=0.5, backend=backend),
             lambda a: ndimage.gaussian_filter(a, 1.2, mode=mode, cval=0.5)),
            (lambda a: pplab.gaussian_filter(a, sigmas, mode=mode, backend=backend),
             lambda a: ndimage.gaussian_filter(a, sigmas, mode=mode)),
            (lambda a: pplab.uniform_filter(a, [3, 4, 2, 5][:n], mode=mode, cval=-1.0,
                                            backend=backend),
             lambda a: ndimage.uniform_filter(a, [3, 4, 2, 5][:n], mode=mode, cval=-1.0)),
            (lambda a: pplab.sobel(a, axis=1, mode=mode, cval=0.5, backend=backend),
             lambda a: ndimage.sobel(a, axis=1, mode=mode, cval=0.5)),
            (lambda a: pplab.prewitt(a, axis=-1, mode=mode, backend=backend),
             lambda a: ndimage.prewitt(a, axis=-1, mode=mode)),
            (lambda a: pplab.correlate1d(a, [1.0, -2.0, 0.5, 3.0], axis=1, mode=mode,
                                         backend=backend),
             lambda a: ndimage.correlate1d(a, [1.0, -2.0, 0.5, 3.0], axis=1, mode=mode)),
        ]
        for k, (ours, theirs) in enumerate(calls):
            got = ours(x)
            assert got.shape == x.shape and got.dtype == x.dtype, k
            np.testing.assert_allclose(got, theirs(x), err_msg="%s call %d" % (mode, k), **tol)
    view = np.swapaxes(x, 0, -1)  # read through its strides
    np.testing.assert_allclose(pplab.gaussian_filter(view, 1.0, backend=backend),
                               ndimage.gaussian_filter(view, 1.0), **tol)
    out = np.empty_like(x)
    assert pplab.uniform_filter(x, 3, output=out, backend=backend) is out
    np.testing.assert_allclose(out, ndimage.uniform_filter(x, 3), **tol)
    assert pplab.gaussian_filter(x[:0], 1.0).shape == (0,) + shape[1:]


# Kernels longer than a mask's side (31 taps): a Gaussian of sigma 5 and 9 (41 and 73 taps), a
# long uniform filter, correlate1d of 45 weights moved by origin=, on lines shorter than the
# kernel too, in every mode: SciPy's answers.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scipy_named_filters_take_kernels_past_31_taps(rng, backend, dtype):
    ndimage = pytest.importorskip("scipy.ndimage")
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    w = rng.standard_normal(45)
    for shape in [(5,), (70,), (3, 7), (50, 61), (4, 5, 6), (1, 80)]:
        x = rng.standard_normal(shape).astype(dtype)
        for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
            calls = [
                (lambda a: pplab.gaussian_filter(a, 5.0, mode=mode, cval=1.5, backend=backend),
                 lambda a: ndimage.gaussian_filter(a, 5.0, mode=mode, cval=1.5)),
                (lambda a: pplab.gaussian_filter(a, 9.0, mode=mode, backend=backend),
                 lambda a: ndimage.gaussian_filter(a, 9.0, mode=mode)),
                (lambda a: pplab.uniform_filter(a, 34, mode=mode, cval=-1.0, backend=backend),
                 lambda a: ndimage.uniform_filter(a, 34, mode=mode, cval=-1.0)),
                (lambda a: pplab.correlate1d(a, w, axis=0, mode=mode, cval=-2.0, origin=3,
                                             backend=backend),
                 lambda a: ndimage.correlate1d(a, w, axis=0, mode=mode, cval=-2.0, origin=3)),
            ]
            for k, (ours, theirs) in enumerate(calls):
                got = ours(x)
                assert got.shape == x.shape and got.dtype == x.dtype, k
                np.testing.assert_allclose(got, theirs(x.astype(np.float64)),
                                           err_msg="%s %s call %d" % (shape, mode, k), **tol)


# gaussian_filter's derivatives (order=, a number or one per axis), long kernels and constant
# mode with a cval (SciPy's passes) included: SciPy's answers.
@pytest.mark.parametrize("backend", BACKENDS)
def test_gaussian_filter_derivatives_match_scipy(rng, backend):
    ndimage = pytest.importorskip("scipy.ndimage")
    for shape in [(40,), (23, 29), (6, 7, 8)]:
        x = rng.standard_normal(shape)
        n = len(shape)
        for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
            for sigma, order in [(1.0, 1), (2.0, 2), (1.5, 3), (3.0, [0, 1, 2][:n]), (6.0, 1),
                                 ([1.0, 0.0, 2.0][:n], 1)]:
                got = pplab.gaussian_filter(x, sigma, order=order, mode=mode, cval=0.5,
                                            backend=backend)
                want = ndimage.gaussian_filter(x, sigma, order=order, mode=mode, cval=0.5)
                np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-11 * np.abs(want).max(),
                                           err_msg="%s %s %s %s" % (shape, mode, sigma, order))


# Integer arrays as SciPy filters them: each axis's pass in float64, its answer converted to the
# input's type (toward zero, wrapping) before the next: the same integers as SciPy's.
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.int64])
def test_scipy_named_filters_of_integers_are_scipys(rng, backend, dtype):
    ndimage = pytest.importorskip("scipy.ndimage")
    info = np.iinfo(dtype)
    for shape in [(50,), (37, 41), (5, 6, 7)]:
        x = rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(dtype)
        for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
            calls = [
                (lambda a: pplab.gaussian_filter(a, 1.5, mode=mode, cval=3, backend=backend),
                 lambda a: ndimage.gaussian_filter(a, 1.5, mode=mode, cval=3)),
                (lambda a: pplab.gaussian_filter(a, 5.0, mode=mode, backend=backend),
                 lambda a: ndimage.gaussian_filter(a, 5.0, mode=mode)),
                (lambda a: pplab.uniform_filter(a, 4, mode=mode, backend=backend),
                 lambda a: ndimage.uniform_filter(a, 4, mode=mode)),
                (lambda a: pplab.uniform_filter(a, 3, mode=mode, cval=7, backend=backend),
                 lambda a: ndimage.uniform_filter(a, 3, mode=mode, cval=7)),  # whole means
                (lambda a: pplab.sobel(a, axis=0, mode=mode, backend=backend),
                 lambda a: ndimage.sobel(a, axis=0, mode=mode)),
                (lambda a: pplab.prewitt(a, mode=mode, cval=2.5, backend=backend),
                 lambda a: ndimage.prewitt(a, mode=mode, cval=2.5)),
                (lambda a: pplab.correlate1d(a, [1, 2, -3, 0.5], mode=mode, backend=backend),
                 lambda a: ndimage.correlate1d(a, [1, 2, -3, 0.5], mode=mode)),
            ]
            for k, (ours, theirs) in enumerate(calls):
                got, want = ours(x), theirs(x)
                assert got.dtype == want.dtype and got.shape == want.shape, k
                np.testing.assert_array_equal(got, want, err_msg="%s %s call %d" % (shape, mode, k))
    # output= of another type: SciPy computes in it (floats: no conversion between the passes)
    x = rng.integers(0, 200, size=(37, 41)).astype(dtype)
    out = np.empty((37, 41), np.float64)
    assert pplab.gaussian_filter(x, 1.5, output=out, backend=backend) is out
    np.testing.assert_allclose(out, ndimage.gaussian_filter(x, 1.5, output=np.float64),
                               rtol=1e-12, atol=1e-12)
    got = pplab.uniform_filter(x.astype(np.float64) + 0.5, 3, output=dtype, backend=backend)
    np.testing.assert_array_equal(got, ndimage.uniform_filter(x + 0.5, 3, output=dtype))


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_filters_truncate_as_scipys_order_of_adds(backend):
    # A pass's answer within an ulp of a whole number truncates as SciPy's order of the adds
    # makes it: this array's Gaussian had one answer 127 where SciPy's is 128 (128.0 in SciPy's
    # order, 127.99999999999997 in another)
    ndimage = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(1446211902)
    for shape in [(50,), (37, 41), (5, 6, 7)]:
        x = rng.integers(0, 255, size=shape).astype(np.uint8)
    got = pplab.gaussian_filter(x, 1.5, mode="wrap", backend=backend)
    np.testing.assert_array_equal(got, ndimage.gaussian_filter(x, 1.5, mode="wrap"))
    for _ in range(20):  # flat patches: many answers a whole number, in every mode
        x = (rng.integers(0, 4, size=(9, 11, 6)) * 60).astype(np.uint8)
        # values whose flat sums truncate one apart in two orders (43 * 0.8 + 86 * 0.1 is 43.0,
        # 43 * 0.1 + 43 * 0.8 + 43 * 0.1 is 42.99999999999999)
        y = np.array([3, 7, 31, 43], np.uint8)[rng.integers(0, 4, size=(9, 11, 6))]
        for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
            for sigma in (0.8, 1.5, 3.0):
                np.testing.assert_array_equal(
                    pplab.gaussian_filter(x, sigma, mode=mode, cval=2, backend=backend),
                    ndimage.gaussian_filter(x, sigma, mode=mode, cval=2), err_msg=mode)
            np.testing.assert_array_equal(pplab.sobel(x, mode=mode, backend=backend),
                                          ndimage.sobel(x, mode=mode))
            # correlate1d's other orders: even lengths, origins, weights neither symmetric nor
            # antisymmetric (the last weight's product first), along every axis
            for w, origin in (([0.1, 0.8, 0.1], 1), ([0.15, 0.7, 0.15], -1),
                              ([0.2, 0.3, 0.1, 0.4], 0), ([0.3, 0.1, 0.6], 0),
                              ([0.05, 0.45, 0.45, 0.05], -2)):
                for axis in range(3):
                    np.testing.assert_array_equal(
                        pplab.correlate1d(y, w, axis, mode=mode, cval=5, origin=origin,
                                          backend=backend),
                        ndimage.correlate1d(y, w, axis, mode=mode, cval=5, origin=origin),
                        err_msg="%s %s %d %d" % (mode, w, origin, axis))


def test_scipy_named_filters_refuse_what_they_do_not_take_yet():
    x = np.ones((8, 8), dtype=np.float32)
    with pytest.raises(ValueError, match="order must be at least 0"):
        pplab.gaussian_filter(x, 1.0, order=-1)
    with pytest.raises(ValueError, match="no axis"):
        pplab.uniform_filter(np.float64(1.0))
    with pytest.raises(ValueError, match="float and integer arrays"):
        pplab.sobel(np.ones((4, 4), dtype=np.complex64))
    with pytest.raises(ValueError, match="invalid origin"):
        pplab.correlate1d(x, [1.0, 2.0, 3.0], origin=2)
    with pytest.raises(ValueError, match="out of bounds"):
        pplab.sobel(x, axis=2)
    with pytest.raises(ValueError, match="sigma"):
        pplab.gaussian_filter(x, -1.0)
    with pytest.raises(ValueError, match="no rungs"):  # integers run SciPy's arithmetic
        pplab.gaussian_filter(x.astype(np.uint8), 1.0, variant="c03")


# Exact sums and means: the real sum of the values rounded once (the oracle: Fractions, whose
# division into a float rounds correctly; math.fsum where it does not overflow), over hostile
# data: cancellation, exponents over the whole range, subnormals, ties, infinities and NaN; the
# same bits for a permutation and on either backend.
def _exact_oracle(x, mean=False):
    import math
    from fractions import Fraction
    vals = x.astype(np.float64).tolist()
    if any(math.isnan(v) for v in vals) or (math.inf in vals and -math.inf in vals):
        return math.nan
    if math.inf in vals or -math.inf in vals:
        return math.inf if math.inf in vals else -math.inf
    total = sum((Fraction(v) for v in vals), Fraction(0))
    if mean:
        total /= len(vals)
    try:
        return total.numerator / total.denominator
    except OverflowError:
        return math.inf if total > 0 else -math.inf


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exact_sum_and_mean_are_the_real_sum_rounded_once(rng, backend, dtype):
    import math
    fi = np.finfo(dtype)
    e = 53 if dtype == np.float64 else 24
    wide = (rng.standard_normal(5000) * np.exp2(rng.integers(-60, 60, 5000))).astype(dtype)
    cancel = np.concatenate([wide, -wide[::-1], np.array([fi.eps / 4], dtype)])
    rng.shuffle(cancel)
    cases = [rng.standard_normal(70001).astype(dtype), wide, cancel,
             np.array([fi.max, fi.max, -fi.max], dtype), np.array([fi.max, fi.max], dtype),
             np.array([fi.tiny / 2, fi.tiny / 4, -fi.tiny / 8] + [fi.smallest_subnormal] * 7, dtype),
             np.array([1.0, 2.0 ** -e], dtype), np.array([1.0, 2.0 ** -e, 2.0 ** (-2 * e)], dtype),
             np.array([1.0 + 2.0 ** (1 - e), 2.0 ** -e], dtype), np.array([-0.0, -0.0], dtype),
             np.array([np.inf, 1.0], dtype), np.array([np.inf, -np.inf], dtype),
             np.array([np.nan, 1.0], dtype), np.array([fi.smallest_subnormal, 0, 0], dtype),
             rng.standard_normal(7).astype(dtype)]
    for k, x in enumerate(cases):
        for op, call in (("sum", pplab.sum), ("mean", pplab.mean)):
            got = call(x, exact=True, backend=backend)
            want = _exact_oracle(x, op == "mean")
            assert isinstance(got, float), (k, op)
            if math.isnan(want):
                assert math.isnan(got), (k, op)
            else:
                assert got == want and math.copysign(1, got) == math.copysign(1, want), \
                    (k, op, got, want)
    x = cases[1]
    assert pplab.sum(x, exact=True, backend=backend) == math.fsum(x.astype(np.float64).tolist())
    assert pplab.sum(x[::-1].copy(), exact=True, backend=backend) == pplab.sum(x, exact=True)
    assert pplab.sum(x[::3], exact=True) == _exact_oracle(x[::3])  # a view: copied, then summed
    assert pplab.sum(np.array([], dtype), exact=True) == 0.0
    with pytest.raises(ValueError, match="empty"):
        pplab.mean(np.array([], dtype), exact=True)
    with pytest.raises(ValueError, match="float32 and float64"):
        pplab.sum(np.arange(4), exact=True)
    # Along axes: each line's exact sum (rows short and long, keepdims, a tuple, a mean), on the
    # host backends, as the plain sums along axes
    grid = (rng.standard_normal((3, 2500, 4)) * np.exp2(rng.integers(-50, 50, (3, 2500, 4)))).astype(dtype)
    if backend not in ("seq", "cpu"):
        with pytest.raises(RuntimeError, match="host backends"):
            pplab.sum(grid, axis=1, exact=True, backend=backend)
        return
    for axis in (0, 1, -1, (0, 2), (1, 2)):
        got = pplab.sum(grid, axis=axis, exact=True, backend=backend)
        lines = np.moveaxis(grid, axis, -1) if isinstance(axis, int) else \
            np.moveaxis(grid, axis, (-2, -1)).reshape(grid.shape[[0, 1, 2].index(
                [d for d in range(3) if d not in [a % 3 for a in axis]][0])], -1)
        want = np.apply_along_axis(lambda r: math.fsum(r.astype(np.float64)), -1, lines)
        assert got.shape == want.shape and got.dtype == np.float64 and (got == want).all(), axis
    means = pplab.mean(grid[:, :7], axis=1, exact=True, keepdims=True, backend=backend)
    assert means.shape == (3, 1, 4)
    for i in range(3):
        for j in range(4):
            assert means[i, 0, j] == _exact_oracle(grid[i, :7, j], mean=True)
    with pytest.raises(ValueError, match="empty"):
        pplab.mean(np.ones((2, 0), dtype), axis=1, exact=True)
    assert pplab.sum(np.ones((2, 0), dtype), axis=1, exact=True).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="sum and mean"):
        pplab.reduce(np.ones(3, dtype), "max", exact=True)


def test_views_of_every_layout_are_taken_as_numpy_and_scipy_take_them():
    """Transposes, reversed axes, every other value, one channel of an image, Fortran order: the
    histograms, bincount and the filters answer for them as NumPy and SciPy do (a copy where
    pplab cannot read the view where it lies), the crops and row steps read in place."""
    from scipy import ndimage
    rng = np.random.default_rng(11)
    m = rng.random((24, 30), dtype=np.float32)
    image = (rng.random((20, 30, 3)) * 255).astype(np.uint8)
    views = {"transpose": m.T, "reversed rows": m[::-1], "reversed columns": m[:, ::-1],
             "every other column": m[:, ::2], "every other row": m[::2], "crop": m[3:17, 5:21],
             "fortran": np.asfortranarray(m), "a channel": image[:, :, 1].astype(np.float32),
             "reversed 1-D": m.ravel()[::-1], "every third value": m.ravel()[::3]}
    for name, v in views.items():
        w = v[::-1] if v.ndim == 1 else v.T[::-1].T  # weights of another layout again
        assert pplab.histogram(v, 7)[0].tolist() == np.histogram(v, 7)[0].tolist(), name
        np.testing.assert_allclose(pplab.histogram(v, 7, weights=w)[0],
                                   np.histogram(v, 7, weights=w)[0], rtol=1e-5, err_msg=name)
        flat, wflat = v.ravel() if v.ndim > 1 else v, w.ravel() if w.ndim > 1 else w
        counts = (flat * 20).astype(np.int64)[::-1]
        assert pplab.bincount(counts).tolist() == np.bincount(counts).tolist(), name
        np.testing.assert_allclose(pplab.bincount(counts, weights=wflat[::-1]),
                                   np.bincount(counts, weights=wflat[::-1]), rtol=1e-5,
                                   err_msg=name)
        if v.ndim == 2:
            a, b = v[0], v[1]  # strided when v is a transpose or a column's view
            np.testing.assert_allclose(pplab.histogram2d(a, b, 4, weights=b)[0],
                                       np.histogram2d(a, b, 4, weights=b)[0], rtol=1e-5,
                                       err_msg=name)
            np.testing.assert_allclose(pplab.correlate(v, np.arange(9.0).reshape(3, 3)),
                                       ndimage.correlate(v, np.arange(9.0).reshape(3, 3)),
                                       rtol=1e-5, atol=1e-4, err_msg=name)
        for axis in range(v.ndim):
            np.testing.assert_allclose(pplab.correlate1d(v, [1.0, -2.0, 4.0], axis=axis),
                                       ndimage.correlate1d(v, [1.0, -2.0, 4.0], axis=axis),
                                       rtol=1e-5, atol=1e-4, err_msg=name)
        np.testing.assert_allclose(pplab.gaussian_filter(v, 1.5), ndimage.gaussian_filter(v, 1.5),
                                   rtol=1e-5, atol=1e-5, err_msg=name)
    # A u8 image's views filtered as the same pixels made contiguous (rounded as pplab rounds)
    mask = np.ones((3, 3)) / 9
    for v in (image[::-1], image[:, ::2], image[2:15, 4:25], image[:, :, 1]):
        packed = np.ascontiguousarray(v)
        assert np.array_equal(pplab.correlate(v, mask), pplab.correlate(packed, mask))


def test_big_endian_arrays_are_read_as_numpy_reads_them():
    """Numbers in the other byte order (read from a file or a network) are taken as NumPy takes
    them (a copy in the machine's order); dates and durations are refused by name."""
    from scipy import ndimage
    rng = np.random.default_rng(12)
    for dtype in (">f4", ">f8", ">i2", ">i4", ">i8", ">u2", ">u4"):
        x = (rng.random(600) * 100).astype(dtype)
        for op in ("sum", "min", "max", "mean", "argmax", "var"):
            assert np.isclose(getattr(pplab, op)(x), getattr(np, op)(x), rtol=1e-6), (op, dtype)
        m = x.reshape(20, 30)
        np.testing.assert_allclose(pplab.sum(m, axis=0), np.sum(m, axis=0), rtol=1e-6)
        assert pplab.histogram(x, 9)[0].tolist() == np.histogram(x, 9)[0].tolist(), dtype
        np.testing.assert_allclose(pplab.histogram2d(x, x[::-1], 5, weights=x)[0],
                                   np.histogram2d(x, x[::-1], 5, weights=x)[0], rtol=1e-6)
        assert (pplab.histogramdd([x, x], 4)[0].tolist()
                == np.histogramdd([x, x], 4)[0].tolist()), dtype
        if dtype[1] in "iu":
            assert pplab.bincount(x).tolist() == np.bincount(x.astype(np.int64)).tolist()
        else:
            np.testing.assert_allclose(pplab.matmul(m, m.T), np.matmul(m, m.T), rtol=1e-5)
            np.testing.assert_allclose(pplab.correlate1d(m, [1, 2, 3]),
                                       ndimage.correlate1d(m, [1, 2, 3]), rtol=1e-5)
            np.testing.assert_allclose(pplab.gaussian_filter(m, 1), ndimage.gaussian_filter(m, 1),
                                       rtol=1e-5)
    with pytest.raises(TypeError, match="dates or durations"):
        pplab.sum(np.array(["2020-01-01"], dtype="datetime64[D]"))
    with pytest.raises(TypeError, match="dates or durations"):
        pplab.histogram(np.array([1, 2], dtype="timedelta64[s]"))


def test_laplace_gaussian_laplace_and_gradient_magnitude_match_scipy():
    """scipy.ndimage.laplace, gaussian_laplace and gaussian_gradient_magnitude: a pass an axis
    added in the output's type (integers converted and wrapped as SciPy's), every mode, 1-D to
    3-D, an output of another type or an array."""
    from scipy import ndimage
    rng = np.random.default_rng(13)
    for dtype in (np.float32, np.float64, np.uint8, np.int16):
        for shape in ((50,), (30, 41), (9, 10, 11), (1, 7)):
            x = (rng.random(shape) * 200).astype(dtype)
            for mode in ("reflect", "constant", "nearest", "mirror", "wrap"):
                for name, args in (("laplace", ()), ("gaussian_laplace", (1.5,)),
                                   ("gaussian_gradient_magnitude", (1.0,))):
                    for output in (None, np.float64):
                        got = getattr(pplab, name)(x, *args, output=output, mode=mode, cval=3.0)
                        want = getattr(ndimage, name)(x, *args, output=output, mode=mode,
                                                      cval=3.0)
                        assert got.dtype == want.dtype and got.shape == want.shape
                        if want.dtype.kind in "iu":
                            # a pass's float may round across an integer (its last bit is the
                            # C library's exp's): one off a pass, and squares of uint8 wrap
                            diff = np.abs(got.astype(np.int64) - want)
                            if name == "gaussian_gradient_magnitude":
                                assert (diff == 0).mean() >= 0.8
                            else:
                                assert diff.max() <= x.ndim
                        else:
                            tol = 1e-4 if want.dtype == np.float32 else 1e-10
                            np.testing.assert_allclose(got, want, rtol=tol,
                                                       atol=tol * np.abs(want).max())
    x = rng.random((30, 41)).astype(np.float32)
    out = np.empty((30, 41), np.float64)
    assert pplab.laplace(x, output=out) is out
    np.testing.assert_allclose(out, ndimage.laplace(x, output=np.float64), rtol=1e-10)
    np.testing.assert_allclose(pplab.gaussian_filter(x.astype(np.float64), 2, output=np.float32),
                               ndimage.gaussian_filter(x.astype(np.float64), 2,
                                                       output=np.float32), rtol=1e-6)


def test_numpy_arrays_read_from_their_fields_as_their_buffers_give_them():
    """NumPy arrays are read from the array's own fields (not a buffer request): contiguous ones
    with the canonical strides (an axis of one element or an empty array may hold any stride),
    views with their own, other types through the buffer's formats (float16 refused by name)."""
    rng = np.random.default_rng(3)
    m = rng.random((6, 5)).astype(np.float32)
    row, column = m[2:3], m[:, 1:2]  # (1, 5) contiguous; (6, 1) strided
    odd = np.lib.stride_tricks.as_strided(m[:1], shape=(1, 5), strides=(999 * 4, 4))
    empty = np.empty((0, 5), "f4")
    for v in (row, column, odd, m.T, np.asfortranarray(m), m[::2, ::-1], empty):
        assert np.isclose(pplab.sum(v), np.sum(v, dtype=np.float64), rtol=1e-6)
        np.testing.assert_allclose(pplab.sum(v, axis=0), np.sum(v, axis=0), rtol=1e-6)
    np.testing.assert_allclose(pplab.matmul(odd, m.T), odd @ m.T, rtol=1e-6)
    np.testing.assert_allclose(pplab.matmul(column.T, column), column.T @ column, rtol=1e-6)
    assert pplab.matmul(empty, m.T).shape == (0, 6)
    for kind, name in ((np.float16, "float16"), (np.bool_, "bool"), (np.complex64, "complex64")):
        with pytest.raises(TypeError, match="type " + name):
            pplab._pplab.reduce(np.ones(4, kind), "sum", None, None)
