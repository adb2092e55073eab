# The tests of the Python package: pytest, run by CTest (`python` for the host arrays, `python_gpu`
# for CuPy and PyTorch arrays on a GPU, skipped where there is none).
import os

import numpy
import pytest


@pytest.fixture
def rng():
    """A generator whose seed is printed on failure; PPLAB_SEED replays one."""
    seed = int(os.environ.get("PPLAB_SEED", numpy.random.SeedSequence().entropy % 2**32))
    print("seed", seed)
    return numpy.random.default_rng(seed)


def host_backends():
    import pplab
    return [b for b in ("seq", "cpu", "cuda") if pplab.backends()[b]["available"]]


def rtol_for(got, rtol):
    """rtol for an answer against one in double: along an axis a float32 answer is the double
    answer rounded once (NumPy's type), within half a float32 step more."""
    single = str(getattr(got, "dtype", "")).replace("torch.", "") == "float32"
    return max(rtol, 1.2e-7) if single else rtol


def moments_oracle(op, x, axis):
    """var, std, nanvar, nanmean of float64 x along axis (or whole), exact (Fractions) and
    rounded once; numpy.var along a strided axis sums without pairs: 1e-12 off at a mean of 1e9
    and a spread of 1."""
    import math
    from fractions import Fraction

    def line(v):
        if op.startswith("nan"):
            v = v[~numpy.isnan(v)]
        if not len(v) or numpy.isnan(v).any():
            return math.nan
        vals = [Fraction(float(e)) for e in v]
        mean = sum(vals, Fraction(0)) / len(vals)
        if op.endswith("mean"):
            return float(mean)
        var = sum(((e - mean) ** 2 for e in vals), Fraction(0)) / len(vals)
        return math.sqrt(var) if op.endswith("std") else float(var)

    if axis is None:
        return line(numpy.ravel(x))
    return numpy.apply_along_axis(line, axis, x)
