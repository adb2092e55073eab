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
