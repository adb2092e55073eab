# The Python package under mpirun with backend="mpi": each rank passes its own part of one array
# (here: the rank's slice of an array every rank can make from one seed) and every rank gets the
# whole job's answer, the same as NumPy's on the whole array. Run by CTest as
# `mpirun -n 2` and `-n 3` (python_mpi_2, python_mpi_3); a single process is a job of one rank.
import os

import numpy as np
import pytest

import pplab

RANK = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
RANKS = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))

if not pplab.backends()["mpi"]["available"] and RANKS > 1:
    pytest.fail("started by mpirun, yet the mpi backend is not usable: " +
                pplab.backends()["mpi"]["reason"])
if not pplab.backends()["mpi"]["available"]:
    pytest.skip("no mpi backend here: " + pplab.backends()["mpi"]["reason"],
                allow_module_level=True)


def mine(whole):
    """This rank's contiguous part of `whole` (the last rank's may be empty for small arrays)."""
    n = len(whole)
    return whole[n * RANK // RANKS: n * (RANK + 1) // RANKS]


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 1000, 100003])
def test_reductions_are_the_whole_arrays(dtype, n):
    rng = np.random.default_rng(n)
    whole = (rng.standard_normal(n) * 40).round().astype(dtype)
    part = mine(whole)
    wide = whole.astype(np.float64)
    assert pplab.sum(part, backend="mpi") == pytest.approx(wide.sum(), rel=1e-12, abs=1e-9)
    assert pplab.mean(part, backend="mpi") == pytest.approx(wide.mean(), rel=1e-12, abs=1e-12)
    assert pplab.min(part, backend="mpi") == whole.min()
    assert pplab.max(part, backend="mpi") == whole.max()
    assert pplab.argmax(part, backend="mpi") == np.argmax(whole)
    assert pplab.argmin(part, backend="mpi") == np.argmin(whole)
    # each rank's (count, mean, squared deviations), merged in rank order
    assert pplab.var(part, backend="mpi") == pytest.approx(wide.var(), rel=1e-12, abs=1e-12)
    assert pplab.std(part, backend="mpi") == pytest.approx(wide.std(), rel=1e-12, abs=1e-12)
    # the counts of elements that are not zero, added over the ranks (about one in three zero)
    assert pplab.count_nonzero(part, backend="mpi") == np.count_nonzero(whole)
    assert pplab.any(part, backend="mpi") == np.any(whole)
    assert pplab.all(part, backend="mpi") == np.all(whole)
    assert pplab.all(part + (1 - (part != 0)).astype(dtype), backend="mpi")  # no zero left
    # the nan ops: NaN left out of every rank's part (a rank's part may be NaN alone)
    if whole.dtype.kind == "f":
        whole[::3] = np.nan
        part = mine(whole)
        wide = whole.astype(np.float64)
        assert pplab.nansum(part, backend="mpi") == pytest.approx(np.nansum(wide), rel=1e-12,
                                                                  abs=1e-9)
        if n > 3:  # two numbers at least (ddof=1)
            assert pplab.nanmean(part, backend="mpi") == pytest.approx(np.nanmean(wide),
                                                                       rel=1e-12)
            assert pplab.nanvar(part, backend="mpi", ddof=1) == pytest.approx(
                np.nanvar(wide, ddof=1), rel=1e-12, abs=1e-12)
            assert pplab.nanmax(part, backend="mpi") == np.nanmax(whole)
            assert pplab.nanargmin(part, backend="mpi") == np.nanargmin(whole)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 1000, 100003])
def test_exact_sums_are_math_fsum_of_the_whole_array(dtype, n):
    import math
    rng = np.random.default_rng(n)
    whole = (rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))).astype(dtype)
    whole[1::3] = -whole[::3][: len(whole[1::3])]  # pairs that cancel
    part = mine(whole)
    assert pplab.sum(part, exact=True, backend="mpi") == math.fsum(whole.astype(np.float64))
    assert pplab.mean(part, exact=True, backend="mpi") == pplab.mean(whole, exact=True,
                                                                      backend="seq")


@pytest.mark.parametrize("n", [5, 100003])
def test_histograms_and_bincount_are_the_whole_arrays(n):
    rng = np.random.default_rng(7 + n)
    x = rng.standard_normal(n).astype(np.float32)
    w = rng.random(n)
    edges = np.sort(rng.standard_normal(33))
    for bins, range_, weights in ((64, (-3, 3), None), (64, None, None), (edges, None, None),
                                  (64, (-3, 3), w), (edges, None, w)):
        got, got_edges = pplab.histogram(mine(x), bins, range_,
                                         weights=None if weights is None else mine(weights),
                                         backend="mpi")
        want, want_edges = np.histogram(x, bins, range_, weights=weights)
        assert (got_edges == want_edges).all()
        if weights is None:
            assert (got == want).all()
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12)
    k = rng.integers(0, 300, n)
    assert (pplab.bincount(mine(k), backend="mpi") == np.bincount(k)).all()
    np.testing.assert_allclose(pplab.bincount(mine(k), mine(w), backend="mpi"),
                               np.bincount(k, w), rtol=1e-12)
    b = rng.integers(0, 256, n).astype(np.uint8)
    assert (pplab.bincount(mine(b), minlength=300, backend="mpi") ==
            np.bincount(b, minlength=300)).all()


def test_empty_parts_and_errors_agree_on_every_rank():
    whole = np.arange(3, dtype=np.float64)  # with 3 ranks or more, some parts are tiny
    part = whole[:0] if RANK % 2 else mine(whole)
    expected = whole[:0] if RANKS == 1 else None
    if expected is not None:  # one process with nothing: NumPy's errors
        with pytest.raises(ValueError):
            pplab.max(part, backend="mpi")
    nothing = np.zeros(0, dtype=np.int64)
    with pytest.raises(ValueError, match="zero-size"):
        pplab.min(nothing, backend="mpi")
    assert pplab.sum(nothing, backend="mpi") == 0
    assert pplab.bincount(nothing, minlength=4, backend="mpi").tolist() == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="axis=None"):
        pplab.sum(np.ones((2, 2)), axis=0, backend="mpi")
    with pytest.raises(ValueError, match="nccl"):
        pplab.sum(np.ones(2), backend="nccl")
