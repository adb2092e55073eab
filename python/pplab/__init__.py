"""pplab: reduction, histograms, matrix multiplication and 2-D filters on all CPU cores or a GPU.

The calls take NumPy, CuPy and PyTorch arrays (anything with the buffer protocol, ``__dlpack__``
or ``__cuda_array_interface__``) where they lie and copy none: host arrays run on the ``cpu``
backend (or ``seq``), GPU arrays on ``cuda``. Arrays come back in the caller's type on the
caller's device. The names and arguments are NumPy's and SciPy's; ``docs/python.md`` says where
pplab differs.

Inputs must be C-contiguous (2-D inputs may have padded rows): a strided view is refused with a
``ValueError`` saying so, never copied behind the caller's back. The GIL is released while pplab
works.
"""

import builtins
import functools
import itertools
import operator

from . import _pplab

__all__ = [
    "sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax", "ptp", "reduce",
    "nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd", "nanargmin",
    "nanargmax", "count_nonzero", "any", "all",
    "histogram",
    "histogram2d", "histogramdd", "bincount",
    "histogram_channels", "matmul", "dot", "correlate", "convolve", "correlate1d", "convolve1d",
    "gaussian_filter", "uniform_filter", "gaussian_filter1d", "uniform_filter1d", "sobel",
    "prewitt", "laplace", "gaussian_laplace", "gaussian_gradient_magnitude", "lab", "backends",
    "rungs",
]

_OPS = {"sum": "sum", "prod": "product", "product": "product", "min": "min", "max": "max",
        "mean": "mean", "argmin": "argmin", "argmax": "argmax", "var": "var", "std": "std",
        "nansum": "nansum", "nanprod": "nanprod", "nanmin": "nanmin", "nanmax": "nanmax",
        "nanmean": "nanmean", "nanargmin": "nanargmin", "nanargmax": "nanargmax",
        "nanvar": "nanvar", "nanstd": "nanstd", "count_nonzero": "count_nonzero"}


def _plain(op):
    """The op a nan op leaves NaN out of ('nansum': 'sum'); any other op itself."""
    return op[3:] if op.startswith("nan") else op


# numpy.ndarray and the NumPy dtypes of the engines' element types (native byte order), once the
# first NumPy array is met (import pplab does not import NumPy).
_NDARRAY, _ENGINE_DTYPES = None, frozenset()


def _numpy_types():
    global _NDARRAY, _ENGINE_DTYPES
    import numpy
    _ENGINE_DTYPES = frozenset(numpy.dtype(t) for t in (
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
        "float64"))
    _NDARRAY = numpy.ndarray


_BACKENDS = tuple(_pplab.backend_names())  # pplab::backend_table's names, in its order
_MODES = ("reflect", "constant", "nearest", "mirror", "wrap", "grid-mirror", "grid-constant",
          "grid-wrap")
_MAX_BINS = 1 << 24  # pplab's histograms: 1 to 2**24 bins
_NUMBER_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64")  # the element types pplab reads


def _type_name(value):
    return type(value).__name__


def _check_backend(backend):
    """backend=: None (cpu for host arrays, cuda for GPU arrays) or a backend's name."""
    if backend is None:
        return None
    if not isinstance(backend, str):
        raise TypeError("backend must be one of %s or None, not %s"
                        % (", ".join(repr(b) for b in _BACKENDS), _type_name(backend)))
    if backend not in _BACKENDS:
        raise ValueError("backend must be one of %s or None (cpu for host arrays, cuda for GPU "
                         "arrays), not %r" % (", ".join(repr(b) for b in _BACKENDS), backend))
    return backend


def _check_variant(variant):
    """variant=: None (the backend's pick) or a rung's id, as pplab.rungs() lists them."""
    if variant is not None and not isinstance(variant, str):
        raise TypeError("variant must be a rung's id (a str; pplab.rungs() lists them) or None, "
                        "not %s" % _type_name(variant))
    return variant


def _check_pattern(pattern):
    """pattern=: None (all) or a pattern's name; the compiled call says which names there are."""
    if pattern is not None and not isinstance(pattern, str):
        raise TypeError("pattern must be a pattern's name (a str) or None, not %s"
                        % _type_name(pattern))


def _check_integer(value, name, lowest, highest=None):
    """An integer argument (a Python or NumPy integer, not a bool) within [lowest, highest]."""
    import numbers
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an integer, not %s" % (name, _type_name(value)))
    value = int(value)
    if value < lowest or (highest is not None and value > highest):
        within = ("at least %d" % lowest if highest is None
                  else "between %d and %d" % (lowest, highest))
        raise ValueError("%s must be %s; got %d" % (name, within, value))
    return value


def _check_number(value, name):
    """A real number argument (a Python or NumPy number, not a str or a bool), as given."""
    import numbers
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a real number, not %s" % (name, _type_name(value)))
    return value


_LIBRARY_OF_TYPE = {}


def _library(x):
    """'numpy', 'cupy', 'torch' or None: whose array x is (remembered per type: every call asks
    it many times)."""
    kind = type(x)
    try:
        return _LIBRARY_OF_TYPE[kind]
    except KeyError:
        pass
    root = kind.__module__.split(".")[0]
    lib = _LIBRARY_OF_TYPE[kind] = root if root in ("numpy", "cupy", "torch") else None
    return lib


def _on_gpu(x):
    """Whether x is a PyTorch or CuPy array on a GPU."""
    lib = _library(x)
    return lib == "cupy" or (lib == "torch" and x.is_cuda)


def _current_stream(x):
    """The caller's current CUDA stream for a GPU array x (PyTorch's or CuPy's), as an integer
    (0: the legacy default stream), or None for a host array."""
    lib = _library(x)
    if lib == "torch" and x.is_cuda:
        import torch
        # The raw handle without a Stream object (what Triton asks PyTorch for), where this
        # PyTorch has it: a few microseconds less per call (docs/python.md).
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return raw(x.get_device())
        return torch.cuda.current_stream(x.device).cuda_stream
    if lib == "cupy":
        import cupy
        return cupy.cuda.get_current_stream().ptr
    return None


def _run(call, x, *args):
    """call(x, *args) on the caller's current stream when x is a PyTorch or CuPy GPU array: pplab
    enqueues after the caller's earlier work there and waits for that stream alone."""
    return _run_for(x, call, x, *args)


def _run_for(x, call, *args):
    """call(*args) on the current stream of x's library, as _run (x: the array the call reads)."""
    stream = _current_stream(x)
    if stream is None:
        return call(*args)
    _pplab.set_stream(stream, _library(x))
    try:
        return call(*args)
    finally:
        _pplab.set_stream(None)


def _array(x):
    """x itself when pplab can read it in place; anything else through numpy.asarray (a list, a
    scalar: one copy, as NumPy would make). A masked array is refused: its masked values are
    still in its data, and pplab would count them."""
    if type(x).__module__.startswith("numpy.ma"):
        raise TypeError("a masked array (numpy.ma): pplab reads every value, masked ones too; "
                        "pass x.compressed() for the unmasked values, or x.filled(v)")
    if hasattr(x, "__dlpack__") or hasattr(x, "__cuda_array_interface__"):
        return _native(x)
    try:
        memoryview(x)
        return x
    except TypeError:
        import numpy
        return _native(numpy.asarray(x))


def _native(x):
    """x, or for a NumPy array whose numbers are in the other byte order (big-endian data read
    from a file or a network, dtype '>f4' on this machine) a copy in the machine's order, as NumPy
    computes on it (the engines read native numbers). Dates and durations are refused by name."""
    if _library(x) != "numpy":
        return x
    dt = x.dtype
    if dt.kind in "Mm":
        raise TypeError("the array holds %s (dates or durations); pplab takes numbers: pass "
                        "x.view('int64') for their counts of its unit" % dt)
    if not dt.isnative:
        return x.astype(dt.newbyteorder("="))
    return x


def _for_pplab(x):
    """A tensor that asks for gradients, detached: pplab only reads it."""
    if _library(x) == "torch" and x.requires_grad:
        return x.detach()
    return x


_HALF_TYPES = ("float16", "bfloat16")


def _widened(x):
    """A float16 (or PyTorch bfloat16) array as float32, a copy in its library: the engines read
    32- and 64-bit floats, and every half value is a float32 exactly, so the reductions answer
    for the same numbers, as float32 data's answers (docs/python.md). Other arrays as they are."""
    return _astype(x, "float32") if _dtype_name(x) in _HALF_TYPES else x


def _bytes_of_bool(x):
    """(x's bytes, True) for a boolean NumPy, CuPy or PyTorch array (False is 0 and True 1, one byte
    each: NumPy sums, counts and bins booleans as those integers), a view, no copy; else (x,
    False)."""
    if _dtype_name(x) != "bool":
        return x, False
    lib = _library(x)
    if lib == "torch":
        import torch
        return x.view(torch.uint8), True
    if lib in ("numpy", "cupy"):
        import numpy
        return x.view(numpy.uint8), True
    return x, False


def _empty(like, shape, dtype):
    """An uninitialized array of `shape` and `dtype` (a NumPy dtype name) in like's library, on
    like's device."""
    lib = _library(like)
    if lib == "numpy":
        import numpy
        return numpy.empty(shape, dtype=dtype)
    if lib == "torch":
        import torch
        return like.new_empty(shape, dtype=getattr(torch, dtype))  # like's device
    if lib == "cupy":
        import cupy
        with like.device:
            return cupy.empty(shape, dtype=dtype)
    if _pplab.is_gpu_array(like):
        raise TypeError("a GPU array of type %s: pplab makes its outputs with CuPy or PyTorch; "
                        "pass one of theirs" % type(like).__name__)
    import numpy
    return numpy.empty(shape, dtype=dtype)


def _like(like, host_array):
    """A small host result (NumPy) as like's library's array, on like's device."""
    lib = _library(like)
    if lib == "torch":
        import torch
        return torch.from_numpy(host_array).to(like.device)
    if lib == "cupy":
        import cupy
        with like.device:
            return cupy.asarray(host_array)
    return host_array


_DTYPE_NAMES = {}


def _dtype_name(x):
    """The NumPy name of x's element type ('float32', 'uint8', ...), remembered per dtype."""
    t = getattr(x, "dtype", None)
    try:
        return _DTYPE_NAMES[t]
    except (KeyError, TypeError):
        pass
    if _library(x) == "torch":
        name = str(x.dtype).replace("torch.", "")
    else:
        import numpy
        name = numpy.dtype(t).name if t is not None else numpy.asarray(x).dtype.name
    if t is not None:
        _DTYPE_NAMES[t] = name
    return name


def reduce(x, op, *, axis=None, dtype=None, out=None, keepdims=False, backend=None,
           variant=None, exact=False):
    """The reduction of x by op (_reduce, below). axis: None, an int or a tuple of ints (each
    axis reduced in turn, from the last; any axis of a host or GPU array). dtype: NumPy's answer
    type: the answer, accumulated as always (64-bit integers, double), cast to it (float data to
    an integer type is cast element by element first, as NumPy sums it). Without it, answers
    along axes come in NumPy's type (min and max keep x's; float32 and half data's answers are
    of their type, each the double answer rounded once; integer sums int64 or uint64, their
    means float64). out: an array of the answer's shape that the answer is written into (from
    double, in out's type, as NumPy computes in it) and returned. keepdims=True keeps the axes
    reduced with length one, as NumPy's keepdims, so that the answer broadcasts against x: an
    array in x's library (with every axis a NumPy array, for host arrays only). exact=True (sum
    and mean of float32 or float64 arrays: host or GPU arrays whole, host arrays along axes
    too): the exact sum of the values rounded once to a float (math.fsum's answer; the mean:
    that sum over n, rounded once), the same bits for any order of the data, thread count or
    backend (pplab::sum_exact; along axes pplab::reduce_rows_exact, after a copy that makes the
    axes reduced the last, unless they are)."""
    # The everyday host call in a few steps: a whole, non-empty, C-ordered NumPy array of one of
    # the engines' types, nothing else asked. It makes the compiled call the path below makes for
    # it (the compiled call takes 1.8 us of the 3.6 a 1000-value sum took through this function
    # on the 2-core EPYC); booleans, halves, empty arrays and every other argument take that path.
    if _NDARRAY is None and type(x).__module__ == "numpy":
        _numpy_types()
    if (type(x) is _NDARRAY and axis is None and dtype is None and out is None
            and keepdims is False and exact is False and backend is None and variant is None
            and x.dtype in _ENGINE_DTYPES and x.size and x.flags.c_contiguous
            and type(op) is str and op in _OPS):
        return _pplab.reduce(x, _OPS[op], None, None)[0]
    # The same for one axis of a C-ordered PyTorch CUDA tensor of two axes or more and of an
    # engine's type, nothing else asked: the answers made on its device and the compiled call
    # on its stream, as _reduced makes them (a GPU call's host work before its launch adds to
    # its time).
    if (type(axis) is int and _library(x) == "torch" and dtype is None and out is None
            and keepdims is False and exact is False and backend is None and variant is None
            and type(op) is str and op in _OPS and x.is_cuda and not x.requires_grad
            and _dtype_name(x) in _NUMBER_TYPES and x.is_contiguous()):
        shape = tuple(x.shape)
        if len(shape) >= 2 and -len(shape) <= axis < len(shape) and 0 not in shape:
            return _gpu_axis(x, op, axis % len(shape), shape, None, True)
    if not isinstance(keepdims, bool):
        raise TypeError("keepdims must be True or False, not %s" % _type_name(keepdims))
    if not isinstance(exact, bool):
        raise TypeError("exact must be True or False, not %s" % _type_name(exact))
    _check_op(op)
    backend, variant = _check_backend(backend), _check_variant(variant)
    import numpy
    arr = _for_pplab(_array(x))
    data_type = _dtype_name(arr)  # the answers' type follows it (a half's too)
    arr = _widened(arr)
    # Booleans as NumPy reduces them: sum and prod count in its default integer (int64), min
    # and max answer booleans, mean and the arg ops as of 0 and 1.
    arr, boolean = _bytes_of_bool(arr)
    if boolean and exact:
        raise ValueError("exact=True is for float32 and float64 arrays, not bool")
    if boolean and dtype is None and _plain(op) in ("sum", "prod"):
        dtype = "int64"
    if boolean and dtype is None and _plain(op) in ("min", "max"):
        dtype = "bool"
    shape = _shape(arr) if axis is not None or keepdims else None  # the whole array: not asked
    axes = None if axis is None else _axes(axis, len(shape))
    if exact:
        if op not in ("sum", "mean"):
            raise ValueError("exact=True is for sum and mean, not %s" % op)
        if _dtype_name(arr) not in ("float32", "float64"):
            raise ValueError("exact=True is for float32 and float64 arrays (integer sums are "
                             "exact already), not %s" % _dtype_name(arr))
        # Under mpi the parts' sizes are the job's to check (a rank's part may be empty).
        if op == "mean" and _size(arr) == 0 and backend != "mpi":
            raise ValueError("the mean of an empty array is undefined")
        if axes is not None and len(axes) != len(shape):
            # Along axes (host arrays): those axes moved last and made rows (a copy, unless they
            # are the last already), each row summed exactly on its own.
            if _on_gpu(arr):
                raise ValueError("exact=True with axis= sums host arrays so far; on a GPU array "
                                 "exact=True takes the whole array")
            kept = [d for d in range(len(shape)) if d not in axes]
            rows = numpy.ascontiguousarray(numpy.transpose(arr, kept + list(axes)))
            count = 1
            for a in axes:
                count *= shape[a]
            if op == "mean" and count == 0:
                raise ValueError("mean of an empty axis")
            lines = 1
            for d in kept:
                lines *= shape[d]
            got = _pplab.exact_rows(rows.reshape(lines, count), op, backend).reshape(
                tuple(shape[d] for d in kept))
            if dtype is not None:  # else float64: the exact sums rounded once, to double
                got = got.astype(dtype)
            if keepdims:
                got = got.reshape(tuple(1 if d in axes else n for d, n in enumerate(shape)))
            if out is None:
                return got
            out[...] = got
            return out
        got = _pplab.exact(_contiguous(arr), op, backend)
        if dtype is not None:
            got = numpy.dtype(dtype).type(got)
        if keepdims:
            got = numpy.asarray(got).reshape((1,) * len(shape))
        if out is None:
            return got
        out[...] = got
        return out
    if dtype is not None:
        want = numpy.dtype(dtype)
        if want.kind in "iub" and _dtype_name(arr).startswith("float"):
            arr = _astype(arr, want.name)  # NumPy casts each element first
    if axes is None or len(axes) == len(shape):
        got = _reduced(arr, op, None, backend, variant)
    else:
        # NumPy's types made by the kernels only where nothing casts the answers after (a dtype
        # or an out array takes the wide answers, rounded once into their type; so do halves,
        # whose float32 answers would be rounded twice)
        got = _reduce_axes(arr, op, axes, shape, backend, variant,
                           dtype is None and out is None and data_type not in _HALF_TYPES)
        if dtype is None and out is None:  # (out: the double answers written into its type)
            got = _in_numpys_type(got, data_type, op)
    if dtype is not None:
        got = numpy.dtype(dtype).type(got) if numpy.ndim(got) == 0 and not hasattr(got, "shape") \
            else _astype(got, numpy.dtype(dtype).name)
    if keepdims:
        kept = tuple(1 if axes is None or d in axes else n for d, n in enumerate(shape))
        if _library(got) is not None:  # an array (or a NumPy scalar) of the answers
            got = got.reshape(kept)
        elif _on_gpu(arr):  # a Python number: as an array on x's device, in x's library
            got = _like(arr, numpy.asarray(got).reshape(kept))
        else:
            got = numpy.asarray(got).reshape(kept)
        if dtype is None and out is None:  # a whole array's number, now an array: the same
            got = _in_numpys_type(got, data_type, op)
    return _into(got, out)


def _numpy_answer_type(dtype_name, op):
    """The NumPy name of the type NumPy answers op in along an axis of data of dtype_name: the
    data's own where the compiled module says NumPy keeps it (pplab::numpy_keeps_type: min and
    max, a float's answers but indices and counts), else the engines' answer type (int64 or
    uint64 sums, float64 means, int64 indices). Half floats ask as float32, booleans as int64:
    the types the engines reduce them in."""
    key = ("numpy", dtype_name, op)
    if key not in _ANSWER_TYPES:
        engine = _ENGINE_TYPE_OF.get(dtype_name, dtype_name)
        keeps = _pplab.numpy_keeps_type(engine, _OPS[op])
        _ANSWER_TYPES[key] = dtype_name if keeps else _row_answer_type(engine, _OPS[op])
    return _ANSWER_TYPES[key]


_ENGINE_TYPE_OF = {"float16": "float32", "bfloat16": "float32", "bool": "int64"}


def _in_numpys_type(got, dtype_name, op):
    """The answers along an axis (an array of the engines' wide type, or already of NumPy's) in
    NumPy's type for op and data of dtype_name (_numpy_answer_type), each wide answer rounded
    once where it is narrower (float32 data's sums and means, halves', min and max of integers)."""
    want = _numpy_answer_type(dtype_name, op)
    if _dtype_name(got) == want:
        return got
    return _astype(got, want)


def _into(got, out):
    """got, or got written into out (an array of any library) and out returned."""
    if out is None:
        return got
    if _library(out) == "torch":
        out.copy_(got if _library(got) == "torch" else __import__("torch").as_tensor(got))
    else:
        out[...] = got
    return out


def _axes(axis, ndim):
    """axis as a sorted tuple of distinct axes in [0, ndim), or None for every axis."""
    if axis is None:
        return None
    many = isinstance(axis, tuple)
    for a in (axis if many else (axis,)):
        if isinstance(a, bool) or not isinstance(a, int):
            raise TypeError("axis must be an int, a tuple of ints or None, not %s"
                            % _type_name(a))
        if not -ndim <= a < ndim or ndim == 0:
            raise ValueError("axis %r is out of bounds for array of dimension %d" % (a, ndim))
    if not many:
        return (axis % ndim,)
    axes = tuple(sorted(a % ndim for a in axis))
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    if not axes:
        raise ValueError("axis=(): pplab reduces at least one axis; the array itself is x")
    return axes


def _reduce_axes(x, op, axes, shape, backend, variant, numpys=False):
    """x reduced along each of `axes` (sorted) in turn, the last first, so that the others keep
    their numbers; a mean as the sum over the count of the values each answer takes. numpys: a
    GPU array's last step's answers in NumPy's type (_reduced), the steps before it wide."""
    if len(axes) == 1:  # one axis: the engines' own answer (a mean in double)
        return _reduced(x, op, axes[0], backend, variant, numpys)
    if op in ("var", "std", "nanmean", "nanvar", "nanstd"):
        # a variance of variances is not one, nor a mean of means over different counts: the axes
        # moved last and made rows (a copy), each row's moments taken in one pass
        kept = [d for d in range(len(shape)) if d not in axes]
        lines = count = 1
        for d in kept:
            lines *= shape[d]
        for a in axes:
            count *= shape[a]
        rows = _reshaped(_permuted(x, kept + list(axes)), (lines, count))
        return _reshaped(_reduced(rows, op, 1, backend, variant, numpys),
                         tuple(shape[d] for d in kept))
    step = "sum" if op == "mean" else op
    got = x
    for a in reversed(axes):
        got = _reduced(got, step, a, backend, variant)
        if step in ("nansum", "nanprod"):  # the input's NaN are gone: a NaN now is inf - inf
            step = _plain(step)
        if step == "count_nonzero":  # the first axis counted: the next ones add the counts
            step = "sum"
    if op == "mean":
        count = 1
        for a in axes:
            count *= shape[a]
        if count == 0:
            raise ValueError("mean of an empty axis")
        got = _astype(got, "float64") / count  # in double, in any library
    return got


def _permuted(x, order):
    """x's axes in `order`, C-contiguous (a copy unless they are in that order already)."""
    lib = _library(x)
    if lib == "torch":
        return x.permute(*order).contiguous()
    mod = __import__("cupy" if lib == "cupy" else "numpy")
    return mod.ascontiguousarray(mod.transpose(x, order))


def _reshaped(x, shape):
    """x (an array of any library) in `shape`."""
    return x.reshape(shape)


def _reduce(x, op, *, axis=None, backend=None, variant=None):
    """The reduction of every element of x by op: 'sum', 'prod', 'min', 'max', 'mean', 'argmin'
    or 'argmax' (the index of the first extreme element; the first NaN wins), 'var' or 'std'
    (the population variance and its root, in double: one pass of (count, mean, squared
    deviations) triples).

    Integers accumulate in 64 bits, floats in double; the answer is a Python int or float (the
    whole array's, as numpy.sum(x) with no axis). min and max propagate NaN. The sum of nothing
    is 0, its product 1; its min, max and mean are errors, as in NumPy.

    axis=k (an int, negative counting from the end): that axis reduced, as numpy.sum(x, axis=k):
    an array of x's shape less that axis, int64, uint64 or float64 (the engines' types; reduce
    casts them to NumPy's), in x's library and on x's device. Host arrays take any axis, read
    where they lie (the last axis a row at a time, any other a block of columns at a time down
    the axis); GPU arrays too (the last axis a warp per
    row, or a block per row for a few long rows; any other 32 neighbouring columns per block,
    a warp reading one row of them at a time)."""
    _check_op(op)
    backend, variant = _check_backend(backend), _check_variant(variant)
    x = _widened(_for_pplab(_array(x)))
    if axis is not None:
        shape = _shape(x)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError("axis must be an int or None, not %s" % _type_name(axis))
        if not -len(shape) <= axis < len(shape) or len(shape) == 0:
            raise ValueError("axis %r is out of bounds for array of dimension %d"
                             % (axis, len(shape)))
        axis %= len(shape)
    return _reduced(x, op, axis, backend, variant)


def _check_op(op):
    """op: one of _OPS's names."""
    if not isinstance(op, str) or op not in _OPS:
        raise ValueError("op must be one of %s, not %r" % (", ".join(_OPS), op))


def _reduced(x, op, axis, backend, variant, numpys=False):
    """_reduce's work, its arguments checked already: x an array pplab reads (_array,
    _for_pplab, _widened), op one of _OPS, axis None or an int in [0, x.ndim), backend and
    variant checked; numpys: a GPU array's answers along the axis made in NumPy's type (the
    kernels write them so), else in the engines' wide types. Every call takes this path once
    (the Python layer's host work is part of each call's time on a GPU)."""
    if axis is not None and backend == "mpi":
        raise ValueError("backend 'mpi' reduces each rank's part of one array whole (axis=None); "
                         "reduce an axis of this rank's array on 'seq' or 'cpu'")
    if backend == "cuda" and not _on_gpu(x):
        x = _contiguous(x)  # a host view goes to the GPU as a C-ordered copy
    if axis is not None:
        shape = _shape(x)
        if variant is not None:
            raise ValueError("variant: a reduction along an axis runs seq's rung on every row")
        if _plain(op) in ("min", "max") and shape[axis] == 0:
            raise ValueError("zero-size array to reduction operation %s which has no "
                             "identity" % op)
        if _on_gpu(x):
            return _gpu_axis(x, op, axis, shape, backend, numpys)
        if len(shape) > 1 and axis == len(shape) - 1:
            return _pplab.reduce_rows(x, _OPS[op], backend).reshape(tuple(shape[:-1]))
        if len(shape) > 1:
            return _pplab.reduce_axis(x, _OPS[op], axis, backend)
    if _plain(op) in ("min", "max") and _global_size(x, backend) == 0:
        raise ValueError("zero-size array to reduction operation %s which has no identity" % op)
    value, _ = _run(_pplab.reduce, x, _OPS[op], backend, variant)
    return value


def _gpu_axis(x, op, axis, shape, backend, numpys=False):
    """Axis `axis` (in [0, ndim)) of a GPU array x of `shape` reduced by op: the answers made
    where x lives, in their shape (in NumPy's type where numpys asks, else the engines' wide
    one), and the compiled call on x's stream."""
    name = _dtype_name(x)
    out = _empty(x, tuple(shape[:axis]) + tuple(shape[axis + 1:]),
                 _numpy_answer_type(name, op) if numpys else _row_answer_type(name, _OPS[op]))
    if axis == len(shape) - 1:
        _run(_pplab.reduce_rows, x, _OPS[op], backend, out)
    else:
        _run(_pplab.reduce_axis, x, _OPS[op], axis, backend, out)
    return out


_ANSWER_TYPES = {}


def _row_answer_type(dtype_name, op):
    """The NumPy name of the answers' type of op along an axis of dtype_name (asked of the
    compiled module once per pair)."""
    key = (dtype_name, op)
    if key not in _ANSWER_TYPES:
        _ANSWER_TYPES[key] = _pplab.row_answer_type(dtype_name, op)
    return _ANSWER_TYPES[key]


def _global_size(x, backend):
    """How many elements x has; on the mpi backend, all the ranks' parts together (every rank
    asks, so every rank takes the same path after)."""
    if backend != "mpi":
        return _size(x)
    import numpy
    total, _ = _run(_pplab.reduce, numpy.array([_size(x)], dtype=numpy.uint64), "sum", "mpi",
                    None)
    return total


def _shape(x):
    """x's shape as a tuple."""
    if hasattr(x, "shape"):
        return tuple(x.shape)
    return tuple(memoryview(x).shape)


def _size(x):
    """How many elements x has."""
    if _library(x) == "torch":
        return x.numel()
    if hasattr(x, "size") and not callable(x.size):
        return x.size
    view = memoryview(x)
    return view.nbytes // view.itemsize


def sum(x, axis=None, dtype=None, out=None, keepdims=False, *, backend=None,  # noqa: A001
        variant=None, exact=False):
    """numpy.sum(x, axis, dtype, out, keepdims): the sum of every element, or along axes.
    exact=True: the exact sum rounded once (math.fsum's answer; reduce's docstring)."""
    return reduce(x, "sum", axis=axis, dtype=dtype, out=out, keepdims=keepdims, backend=backend,
                  variant=variant, exact=exact)


def prod(x, axis=None, dtype=None, out=None, keepdims=False, *, backend=None, variant=None):
    """numpy.prod(x, axis, dtype, out, keepdims): the product (integers wrap modulo 2**64)."""
    return reduce(x, "prod", axis=axis, dtype=dtype, out=out, keepdims=keepdims, backend=backend,
                  variant=variant)


def min(x, axis=None, out=None, keepdims=False, *, backend=None, variant=None):  # noqa: A001
    """numpy.min(x, axis, out, keepdims): the smallest element (NaN if any is NaN)."""
    return reduce(x, "min", axis=axis, out=out, keepdims=keepdims, backend=backend,
                  variant=variant)


def max(x, axis=None, out=None, keepdims=False, *, backend=None, variant=None):  # noqa: A001
    """numpy.max(x, axis, out, keepdims): the largest element (NaN if any is NaN)."""
    return reduce(x, "max", axis=axis, out=out, keepdims=keepdims, backend=backend,
                  variant=variant)


def mean(x, axis=None, dtype=None, out=None, keepdims=False, *, backend=None, variant=None,
         exact=False):
    """numpy.mean(x, axis, dtype, out, keepdims), accumulated in double. exact=True: the exact
    sum over n, rounded once (reduce's docstring)."""
    return reduce(x, "mean", axis=axis, dtype=dtype, out=out, keepdims=keepdims, backend=backend,
                  variant=variant, exact=exact)


def var(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, backend=None,
        variant=None):
    """numpy.var(x, axis, dtype, out, ddof, keepdims): the mean of the squared deviations from the
    mean, over n - ddof. One pass: each part's (count, mean, squared deviations) in double,
    merged (Chan, Golub and LeVeque), so no sum of squares cancels. Empty: NaN (NumPy warns)."""
    return _spread("var", x, axis, dtype, out, ddof, keepdims, backend, variant)


def std(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, backend=None,
        variant=None):
    """numpy.std(x, axis, dtype, out, ddof, keepdims): the square root of var's answer."""
    return _spread("std", x, axis, dtype, out, ddof, keepdims, backend, variant)


def nansum(x, axis=None, dtype=None, out=None, keepdims=False, *, backend=None, variant=None):
    """numpy.nansum(x, axis, dtype, out, keepdims): the sum with every NaN left out (read as 0, in
    the same pass); a slice of NaN alone sums to 0. Of integers, their sum."""
    return reduce(x, "nansum", axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                  backend=backend, variant=variant)


def nanprod(x, axis=None, dtype=None, out=None, keepdims=False, *, backend=None, variant=None):
    """numpy.nanprod(x, axis, dtype, out, keepdims): the product with every NaN left out (read
    as 1); a slice of NaN alone gives 1."""
    return reduce(x, "nanprod", axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                  backend=backend, variant=variant)


def nanmin(x, axis=None, out=None, keepdims=False, *, backend=None, variant=None):
    """numpy.nanmin(x, axis, out, keepdims): the smallest element that is not NaN; NaN for a
    slice of NaN alone, with NumPy's RuntimeWarning. An empty array or axis is a ValueError."""
    return _warned_where_nan(
        reduce(x, "nanmin", axis=axis, out=out, keepdims=keepdims, backend=backend,
               variant=variant), "All-NaN slice encountered")


def nanmax(x, axis=None, out=None, keepdims=False, *, backend=None, variant=None):
    """numpy.nanmax(x, axis, out, keepdims): the largest element that is not NaN; NaN for a
    slice of NaN alone, with NumPy's RuntimeWarning. An empty array or axis is a ValueError."""
    return _warned_where_nan(
        reduce(x, "nanmax", axis=axis, out=out, keepdims=keepdims, backend=backend,
               variant=variant), "All-NaN slice encountered")


def nanmean(x, axis=None, dtype=None, out=None, keepdims=False, *, backend=None, variant=None):
    """numpy.nanmean(x, axis, dtype, out, keepdims): the mean of the elements that are not NaN,
    in double, one pass of (count, mean) pairs; NaN for a slice of NaN alone or an empty one,
    with NumPy's RuntimeWarning."""
    arr = _for_pplab(_array(x))
    got = reduce(arr, "nanmean", axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                 backend=backend, variant=variant)
    return _warned_where_no_number(got, arr, axis, keepdims, backend, "Mean of empty slice")


def nanvar(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, backend=None,
           variant=None):
    """numpy.nanvar(x, axis, dtype, out, ddof, keepdims): var's answer of the elements that are
    not NaN, over their count less ddof; NaN where that is not above 0 (NumPy warns)."""
    return _spread("nanvar", x, axis, dtype, out, ddof, keepdims, backend, variant)


def nanstd(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, backend=None,
           variant=None):
    """numpy.nanstd(x, axis, dtype, out, ddof, keepdims): the square root of nanvar's answer."""
    return _spread("nanstd", x, axis, dtype, out, ddof, keepdims, backend, variant)


def nanargmin(x, axis=None, out=None, *, keepdims=False, backend=None, variant=None):
    """numpy.nanargmin(x, axis, out, keepdims): the index of the first smallest element that is
    not NaN; a slice of NaN alone is a ValueError, as in NumPy."""
    return _arg("nanargmin", x, axis, out, keepdims, backend, variant)


def nanargmax(x, axis=None, out=None, *, keepdims=False, backend=None, variant=None):
    """numpy.nanargmax(x, axis, out, keepdims): the index of the first largest element that is
    not NaN; a slice of NaN alone is a ValueError, as in NumPy."""
    return _arg("nanargmax", x, axis, out, keepdims, backend, variant)


def _any_nan(got):
    """Whether an answer (a number, or an array of any library) holds a NaN."""
    if isinstance(got, (int, float)):
        return got != got
    name = _dtype_name(got) if _library(got) is not None else ""
    if not name.startswith("float"):
        return False
    if _library(got) == "torch":
        return bool(got.isnan().any())
    return bool((got != got).any())


def _warned_where_nan(got, message):
    """got, after NumPy's RuntimeWarning where an answer is NaN (nanmin's and nanmax's: a slice
    with no number)."""
    if _any_nan(got):
        import warnings
        warnings.warn(message, RuntimeWarning, stacklevel=3)
    return got


def _warned_where_no_number(got, arr, axis, keepdims, backend, message):
    """got, after NumPy's RuntimeWarning where a slice of arr has no number (nanmean's and
    nanvar's answer is NaN there, and where infinities meet too: the numbers are counted only
    when an answer is NaN)."""
    if _any_nan(got):
        count = reduce(arr == arr, "sum", axis=axis, keepdims=keepdims, backend=backend)
        if count == 0 if isinstance(count, int) else bool((count == 0).any()):
            import warnings
            warnings.warn(message, RuntimeWarning, stacklevel=3)
    return got


def _spread(op, x, axis, dtype, out, ddof, keepdims, backend, variant):
    """var or std: the engines' population answer (ddof 0), then NumPy's n - ddof; nanvar and
    nanstd: with n the count of numbers in each slice (counted apart where ddof is not 0)."""
    import numpy
    if isinstance(ddof, bool) or not isinstance(ddof, (int, float, numpy.integer, numpy.floating)):
        raise TypeError("ddof must be a number, not %s" % _type_name(ddof))
    arr = _for_pplab(_array(x))  # booleans: as 0 and 1, as NumPy takes them
    data_type = _dtype_name(arr)
    arr = _widened(arr)
    # Arrays of answers in double until n - ddof is applied, then in NumPy's type or dtype (one
    # rounding; a float dtype's answers are computed in double, as NumPy computes them in it).
    asked = None if dtype is None else numpy.dtype(dtype)
    wide = "float64" if (asked is None or asked.kind == "f") and (
        axis is not None or keepdims) else None
    if op.startswith("nan"):
        if _dtype_name(arr) in ("float32", "float64"):
            return _nan_spread(op, arr, axis, dtype, out, ddof, keepdims, backend, variant,
                               data_type, wide)
        op = _plain(op)  # integers hold no NaN
    got = reduce(arr, op, axis=axis, dtype=wide, keepdims=keepdims, backend=backend,
                 variant=variant)
    if isinstance(got, float):  # every axis: a Python float, as a whole array's answer
        got = float(got)
    shape = _shape(arr)
    axes = _axes(axis, len(shape))
    n = 1
    for d in (range(len(shape)) if axes is None else axes):
        n *= shape[d]
    if backend == "mpi" and axes is None:
        n = _global_size(arr, backend)
    rest = builtins.max(n - ddof, 0)  # NumPy's: no fewer than none
    if rest == 0:  # NumPy's warning; the answer NaN, or inf where ddof passes n
        import warnings
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
    if ddof != 0:
        with numpy.errstate(divide="ignore", invalid="ignore"):
            scale = numpy.float64(n) / numpy.float64(rest)
            if op == "std":
                scale = numpy.sqrt(scale)
            got = float(numpy.float64(got) * scale) if isinstance(got, float) else got * scale
    if dtype is not None:
        got = numpy.dtype(dtype).type(got) if isinstance(got, float) \
            else _astype(got, numpy.dtype(dtype).name)
    elif wide is not None and out is None and not isinstance(got, float):
        got = _in_numpys_type(got, data_type, op)
    return _into(got, out)


def argmin(x, axis=None, out=None, *, keepdims=False, backend=None, variant=None):
    """numpy.argmin(x, axis, out, keepdims): the index of the first smallest element (of x
    flattened in C order: a Python int), or along one axis (int64 answers); the first NaN wins, as
    in NumPy. An empty array or axis is a ValueError."""
    return _arg("argmin", x, axis, out, keepdims, backend, variant)


def argmax(x, axis=None, out=None, *, keepdims=False, backend=None, variant=None):
    """numpy.argmax(x, axis, out, keepdims): the index of the first largest element (of x
    flattened in C order: a Python int), or along one axis (int64 answers); the first NaN wins, as
    in NumPy. An empty array or axis is a ValueError."""
    return _arg("argmax", x, axis, out, keepdims, backend, variant)


def count_nonzero(a, axis=None, *, keepdims=False, backend=None, variant=None):
    """numpy.count_nonzero(a, axis, keepdims): how many elements are not zero (NaN is not zero,
    -0.0 is; a boolean array counts its True), in one pass of the engines (the op count_nonzero, a
    sum of ones and zeros): of the whole array the type the installed NumPy answers (a Python
    int before NumPy 2.3, a NumPy intp since), along an axis or a tuple of axes int64 answers in
    a's library and on its device (a tuple of every axis: a NumPy int64, as NumPy's)."""
    got = reduce(a, "count_nonzero", axis=axis, keepdims=keepdims, backend=backend,
                 variant=variant)
    if isinstance(got, int):
        import numpy
        if axis is not None:
            got = numpy.int64(got)
        else:
            got = _numpys_count_type()(got)
    return got


@functools.lru_cache(maxsize=None)
def _numpys_count_type():
    """The type numpy.count_nonzero answers for a whole array (int or numpy.intp), asked once."""
    import numpy
    return type(numpy.count_nonzero(numpy.zeros(1)))


def any(a, axis=None, out=None, keepdims=False, *, backend=None,  # noqa: A001
        variant=None):
    """numpy.any(a, axis, out, keepdims): whether some element is not zero (NaN is not zero), as
    the engines' count_nonzero above 0 (a large host array in parts, stopping at the first that
    decides: _truth): a NumPy bool for the whole array (False for an empty one), along axes bool
    answers in a's library."""
    return _truth("any", a, axis, out, keepdims, backend, variant)


def all(a, axis=None, out=None, keepdims=False, *, backend=None,  # noqa: A001
        variant=None):
    """numpy.all(a, axis, out, keepdims): whether every element is not zero (NaN is not zero), as
    the engines' count_nonzero equal to the number of elements counted: a NumPy bool for the
    whole array (True for an empty one), along axes bool answers in a's library."""
    return _truth("all", a, axis, out, keepdims, backend, variant)


_FIRST_PART = 1 << 16  # any's and all's first look at a large host array


def _truth(name, a, axis, out, keepdims, backend, variant):
    """any or all from the counts of elements that are not zero. A whole C-contiguous NumPy
    array of more than _FIRST_PART elements is counted in parts that grow sixteenfold (2^16,
    2^20, 2^24 elements, then the rest), stopping at the first part that decides, as NumPy stops
    early: no element is read twice, and a mask whose answer shows near its start costs
    microseconds, not a pass over every element."""
    import numpy
    arr = _array(a)
    if (axis is None and _library(arr) == "numpy" and backend in (None, "seq", "cpu")
            and arr.size > _FIRST_PART and arr.flags.c_contiguous):
        flat, start, step = arr.reshape(-1), 0, _FIRST_PART
        decided = name == "all"  # all: True until a zero is seen; any: False until a nonzero
        while start < flat.size:
            part = flat[start:start + step]
            count = reduce(part, "count_nonzero", backend=backend, variant=variant)
            if name == "any" and count > 0 or name == "all" and count < part.size:
                decided = not decided
                break
            start, step = start + step, step * 16
        got = numpy.bool_(decided)
        if keepdims:
            got = numpy.asarray(got).reshape((1,) * arr.ndim)
        return _into(got, out)
    got = reduce(a, "count_nonzero", axis=axis, keepdims=keepdims, backend=backend,
                 variant=variant)
    if name == "any":
        got = got > 0
    else:
        if axis is None:
            counted = _global_size(arr, _check_backend(backend))
        else:
            shape = _shape(arr)
            counted = 1
            for k in _axes(axis, len(shape)):
                counted *= shape[k]
        got = got == counted
    if isinstance(got, bool):
        got = numpy.bool_(got)
    return _into(got, out)


def ptp(x, axis=None, out=None, keepdims=False, *, backend=None):
    """numpy.ptp(x, axis, out, keepdims): the maximum less the minimum (two reductions, as NumPy
    makes them), in x's type as NumPy's: integers wrap (int8 from -128 to 127: -1). NaN if any
    is NaN. Booleans raise TypeError, as in NumPy."""
    import numpy
    arr = _for_pplab(_array(x))
    name = _dtype_name(arr)
    if name == "bfloat16":  # no NumPy type to answer in: float32's answer
        arr, name = _widened(arr), "float32"
    if name == "bool":
        raise TypeError("ptp of booleans: NumPy refuses their subtraction; use x.max() != x.min()")
    top = reduce(arr, "max", axis=axis, dtype=name, keepdims=keepdims, backend=backend)
    bottom = reduce(arr, "min", axis=axis, dtype=name, keepdims=keepdims, backend=backend)
    if isinstance(top, (int, float, numpy.generic)):  # numbers: as 0-d arrays, which wrap quietly
        got = numpy.subtract(numpy.asarray(top, dtype=name), numpy.asarray(bottom, dtype=name))[()]
    else:
        got = top - bottom
    if out is None:
        return got
    out[...] = got
    return out


def _nan_spread(op, arr, axis, dtype, out, ddof, keepdims, backend, variant, data_type, wide):
    """nanvar or nanstd of a float array: the engines' answer over each slice's count of numbers;
    with ddof, that count taken apart (a sum of arr == arr: one more pass, a temporary of a
    byte an element) and the answer NaN where the count less ddof is not above 0, as NumPy's.
    Arrays of answers in double (wide) until then, then in the type of data_type's answers."""
    import numpy
    got = reduce(arr, op, axis=axis, dtype=wide, keepdims=keepdims, backend=backend,
                 variant=variant)
    if isinstance(got, float):  # every axis: a Python float, as a whole array's answer
        got = float(got)
    if ddof == 0:
        got = _warned_where_no_number(got, arr, axis, keepdims, backend,
                                      "Degrees of freedom <= 0 for slice.")
    else:
        count = reduce(arr == arr, "sum", axis=axis, keepdims=keepdims, backend=backend)
        if isinstance(got, float):
            rest = count - ddof
            if rest <= 0:
                got = float("nan")
            else:
                scale = numpy.float64(count) / numpy.float64(rest)
                got = float(numpy.float64(got) * (numpy.sqrt(scale) if op == "nanstd" else scale))
            bad = rest <= 0
        else:
            count = _astype(count, "float64")
            rest = count - ddof
            bad_at = rest <= 0
            scale = count / rest
            got = got * (scale ** 0.5 if op == "nanstd" else scale)
            got[bad_at] = float("nan")
            bad = bool(bad_at.any())
        if bad:
            import warnings
            warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=3)
    if dtype is not None:
        got = numpy.dtype(dtype).type(got) if isinstance(got, float) \
            else _astype(got, numpy.dtype(dtype).name)
    elif wide is not None and out is None and not isinstance(got, float):
        got = _in_numpys_type(got, data_type, op)
    return _into(got, out)


def _arg(op, x, axis, out, keepdims, backend, variant):
    """argmin or argmax (and their nan ops): one axis or none, as NumPy's (a tuple of axes is a
    TypeError there). A nan op's slice of NaN alone is NumPy's ValueError."""
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, int)):
        raise TypeError("axis must be an int or None for %s, not %s" % (op, _type_name(axis)))
    got = reduce(x, op, axis=axis, keepdims=keepdims, backend=backend, variant=variant)
    if op.startswith("nan") and not isinstance(got, int) and bool((got < 0).any()):
        raise ValueError("All-NaN slice encountered")
    return _into(got, out)


def histogram(a, bins=10, range=None, weights=None, density=False, *, backend=None,  # noqa: A002
              variant=None):
    """numpy.histogram(a, bins, range, weights, density): (hist, bin_edges), as the installed
    NumPy. bins an int: equal bins over range (or over the data's minimum and maximum), the last
    bin closed, values outside not counted, NaN refused when the range comes from the data, and
    float32 data binned against float32 edges computed as NumPy computes them, bit for bit. bins
    a 1-D array of edges that do not decrease: bin i is [e[i], e[i+1]), the last closed (range is
    then not used, as in NumPy). bins a string ("auto", "fd", "sturges", "scott", "rice",
    "sqrt", "doane", "stone"): as many equal bins as NumPy's estimator picks (it reads the data
    on the host; pplab counts). weights, of a's shape: each bin sums its values' weights, in
    double, returned in the weights' dtype. density=True: each bin over its width and the total,
    float64. hist is in a's library and on a's device; bin_edges is a NumPy array of NumPy's
    dtype (docs/python.md)."""
    import numpy
    backend, variant = _check_backend(backend), _check_variant(variant)
    a, _ = _bytes_of_bool(_packed(_for_pplab(_array(a))))  # NumPy bins booleans as uint8
    if isinstance(bins, str):  # NumPy's estimator picks the number of equal bins; pplab counts
        bins = _estimated_bins(a, bins, range, weights, backend)
    edge_array = None
    given_bins = bins
    if _library(bins) in ("cupy", "torch"):  # edges in a GPU array: read once, on the host
        bins = _to_numpy(bins)
    if numpy.ndim(bins) == 1:
        given = numpy.asarray(bins)
        if given.dtype.kind not in "iuf":
            raise TypeError("histogram: edges of type %s; give numbers" % given.dtype)
        edge_array = numpy.ascontiguousarray(given, dtype=numpy.float64)
        if numpy.isnan(edge_array).any():
            raise ValueError("histogram: the edges hold NaN")
        if (edge_array[:-1] > edge_array[1:]).any():
            raise ValueError("bins must increase monotonically, when an array")
        if edge_array.size < 2:
            raise ValueError("histogram: an array of edges needs at least two (one bin)")
        nbins = edge_array.size - 1
    elif numpy.ndim(bins) != 0:
        raise ValueError("`bins` must be 1d, when an array")
    else:
        nbins = _check_integer(bins, "bins", 1, _MAX_BINS)
    weights, weight_type = _weights_for(a, weights, "histogram")
    lo = hi = None
    if range is not None and edge_array is None:
        if isinstance(range, (str, bytes)) or not hasattr(range, "__len__") or len(range) != 2:
            raise ValueError("range must be (min, max), two numbers, not %r" % (range,))
        first, last = (_check_number(v, "range's " + end) for v, end in zip(range, ("min", "max")))
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (_finite(float(first)) and _finite(float(last))):
            raise ValueError("supplied range of [%s, %s] is not finite" % (first, last))
        if first == last:  # widened in the range's own arithmetic, as NumPy does
            first, last = first - 0.5, last + 0.5
        lo, hi = float(first), float(last)
    if edge_array is not None:
        rule = "f64"
    else:
        rule = _edge_rule(_dtype_name(a), range)
    if _on_gpu(a):
        # a GPU array: its counts (or sums) are written where it lives
        slots = _empty(a, (int(nbins) + 3,),  # the bins, underflow, overflow, NaN
                       "int64" if weights is None else "float64")
        _, edges, *_ = _run(_pplab.histogram, a, int(nbins), lo, hi, True, rule, backend,
                            variant, slots, edge_array, weights)
        hist = slots[:int(nbins)]
        if weight_type is not None and weight_type != numpy.float64:
            hist = _astype(hist, weight_type.name)  # as NumPy: the sums in the weights' dtype
    else:
        hist, edges, *_ = _run(_pplab.histogram, a, int(nbins), lo, hi, True, rule, backend,
                               variant, None, edge_array, weights)
        if weight_type is not None and weight_type != numpy.float64:
            hist = hist.astype(weight_type)  # as NumPy: the sums in the weights' dtype
        hist = _like(a, hist)
    if edge_array is not None:  # as NumPy returns them: the edges given, their dtype
        edges = given_bins if _library(given_bins) in ("cupy", "torch") else numpy.asarray(bins)
    if density:
        host_edges = numpy.asarray(bins) if edge_array is not None else edges
        widths = numpy.array(numpy.diff(host_edges), float)
        if _on_gpu(a):
            widths = _like(a, widths)
        return hist / widths / hist.sum(), edges
    return hist, edges


def _estimated_bins(a, rule, range_, weights, backend):
    """numpy.histogram's bins=<an estimator's name> ("auto", "fd", "sturges", ...): the number of
    equal bins NumPy's estimator picks for a (within range_, when given), from
    numpy.histogram_bin_edges itself, so it is NumPy's number bit for bit. Its edges are then the
    ones NumPy derives from that number and the range (or the data's minimum and maximum), as for
    bins given as that number. The estimators read the data on the host (a percentile, a standard
    deviation, the trial histograms of "stone"): a GPU array is copied there once for them."""
    import numpy
    if weights is not None:  # NumPy's words
        raise TypeError("Automated estimation of the number of bins is not supported for "
                        "weighted data")
    if backend == "mpi":
        raise ValueError("histogram: bins=%r under backend='mpi' would estimate from one rank's "
                         "part; give a number of bins and a range" % rule)
    host = _to_numpy(a) if _on_gpu(a) else numpy.asarray(a)
    return numpy.histogram_bin_edges(host, rule, range_).size - 1


def histogram2d(x, y, bins=10, range=None, weights=None, density=False, *,  # noqa: A002
                backend=None, variant=None):
    """numpy.histogram2d(x, y, bins, range, weights, density): (H, xedges, yedges), as the
    installed NumPy: bins an int, a pair of ints, an array of edges, or a pair of either; each
    axis's edges as NumPy makes them (numpy.linspace over range, or over the data's minimum and
    maximum widened by 0.5 when they are equal); a point on an axis's last edge in its last bin,
    points outside either axis not counted. H is float64 (as NumPy's), x_bins x y_bins, in x's
    library and on x's device; the edges are NumPy arrays. Each point's 2-D bin is computed once
    (on x's device), then counted by the histogram's rungs."""
    import numpy
    backend, variant = _check_backend(backend), _check_variant(variant)
    x, y = _packed(_for_pplab(_array(x))), _packed(_for_pplab(_array(y)))
    if len(_shape(x)) != 1 or _shape(x) != _shape(y):
        raise ValueError("histogram2d: x and y must be 1-D arrays of one length; got shapes %s "
                         "and %s" % (_shape(x), _shape(y)))
    if _on_gpu(x) != _on_gpu(y):
        raise ValueError("histogram2d: x and y must both be host arrays or both GPU arrays")
    common = numpy.result_type(numpy.dtype(_dtype_name(x)), numpy.dtype(_dtype_name(y)))
    if common.kind not in "iuf":
        raise TypeError("histogram2d: points of type %s; give numbers" % common)
    x, y = (v if _dtype_name(v) == common.name else _astype(v, common.name) for v in (x, y))
    # bins: one spec for both axes, or a pair (numpy.histogram2d's rule: a 1-D array of length
    # other than 2 is one array of edges for both)
    try:
        count = len(bins)
    except TypeError:
        count = 1
    per_axis = list(bins) if count == 2 else [bins, bins]
    if range is None:
        ranges = [None, None]
    else:
        if len(range) != 2:
            raise ValueError("range must be ((xmin, xmax), (ymin, ymax))")
        ranges = list(range)
    edges = [_axis_edges(v, b, r, name, backend)
             for v, b, r, name in zip((x, y), per_axis, ranges, ("x", "y"))]
    weights, _ = _weights_for(x, weights, "histogram2d")
    x_edges = numpy.ascontiguousarray(edges[0], numpy.float64)
    y_edges = numpy.ascontiguousarray(edges[1], numpy.float64)
    if _on_gpu(x):
        # GPU points: the counts (or sums) written where they live, the points outside last
        shape = (x_edges.size - 1, y_edges.size - 1)
        slots = _empty(x, (shape[0] * shape[1] + 1,), "int64" if weights is None else "float64")
        _run(_pplab.histogram2d, x, y, x_edges, y_edges, weights, backend, variant, slots)
        hist = slots[:-1].reshape(shape)
        if weights is None:
            hist = _astype(hist, "float64")  # as NumPy's H
        if density:
            widths = [_like(x, numpy.diff(e)) for e in edges]
            hist = hist / widths[0].reshape(-1, 1) / widths[1] / hist.sum()
        return hist, edges[0], edges[1]
    hist, *_ = _run(_pplab.histogram2d, x, y, x_edges, y_edges, weights, backend, variant)
    hist = hist.astype(numpy.float64)
    if density:
        s = hist.sum()
        with numpy.errstate(invalid="ignore", divide="ignore"):
            hist = hist / numpy.diff(edges[0]).reshape(-1, 1) / numpy.diff(edges[1]) / s
    return _like(x, hist), edges[0], edges[1]


def _axis_edges(v, bins, range_, name, backend, call="histogram2d", found=None):
    """One axis's edges as numpy.histogramdd makes them (host NumPy arrays). name: the axis in
    the messages ('x', or 'axis 2'); found: v's minimum and maximum where the caller has them."""
    import numpy
    if _library(bins) in ("cupy", "torch"):
        bins = _to_numpy(bins)
    if numpy.ndim(bins) == 1:
        e = numpy.asarray(bins)
        if e.size < 2:
            raise ValueError("%s: the %s edges need at least two" % (call, name))
        if (e[:-1] > e[1:]).any():
            raise ValueError("`bins` must be monotonically increasing, when an array (%s)" % name)
        if numpy.isnan(e.astype(numpy.float64)).any():
            raise ValueError("%s: the %s edges hold NaN" % (call, name))
        return e
    if numpy.ndim(bins) != 0:
        raise ValueError("%s: `bins` for %s must be a scalar or 1d array" % (call, name))
    n = _check_integer(bins, "bins", 1, _MAX_BINS)
    kind = numpy.dtype(_dtype_name(v))
    if range_ is not None:
        first, last = range_
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (_finite(float(first)) and _finite(float(last))):
            raise ValueError("supplied range of [%s, %s] is not finite" % (first, last))
    elif _size(v) == 0:
        first, last = 0, 1
    else:
        first, last = (kind.type(f(v, backend=backend)) for f in (min, max)) if found is None \
            else (kind.type(found[0]), kind.type(found[1]))
        if not (_finite(float(first)) and _finite(float(last))):
            raise ValueError("autodetected range of [%s, %s] is not finite" % (first, last))
    if first == last:
        first, last = first - 0.5, last + 0.5
    return numpy.linspace(first, last, n + 1)


def histogramdd(sample, bins=10, range=None, density=None, weights=None, *,  # noqa: A002
                backend=None, variant=None):
    """numpy.histogramdd(sample, bins, range, density, weights): (H, edges), as the installed
    NumPy: sample an (N, D) array, or a sequence of D 1-D arrays of one length (NumPy, CuPy or
    PyTorch arrays; a 1-D array is one axis); bins an int for every axis, or one int or array of
    edges per axis; range None or one (min, max) or None per axis; each axis's edges as
    histogram2d makes them, a point on an axis's last edge in its last bin, points outside any
    axis not counted. H is float64 (as NumPy's), of the axes' bins in order, in the sample's
    library and on its device; edges is a list of NumPy arrays. Up to 32 axes, their bins'
    product under 2^24. Each point's bin over all its axes is computed once (on the sample's
    device; an (N, D) array's columns read where they lie), then counted by the histogram's
    rungs; two contiguous axes go through histogram2d's own kernels."""
    import numpy
    backend, variant = _check_backend(backend), _check_variant(variant)
    columns, whole = _sample_columns(sample)
    D = len(columns)
    try:
        if len(bins) != D:
            raise ValueError("The dimension of bins must be equal to the dimension of the "
                             "sample x.")
        per_axis = list(bins)
    except TypeError:  # one number of bins for every axis
        per_axis = [bins] * D
    if range is None:
        ranges = [None] * D
    else:
        if len(range) != D:
            raise ValueError("range must hold one (min, max) or None per axis: %d" % D)
        ranges = list(range)
    if D == 2 and builtins.all(_c_contiguous(c) for c in columns):
        hist, x_edges, y_edges = histogram2d(columns[0], columns[1], per_axis, ranges, weights,
                                             density, backend=backend, variant=variant)
        return hist, [x_edges, y_edges]
    first = columns[0]
    found = [None] * D
    if whole is not None and _size(whole) and builtins.any(
            r is None and numpy.ndim(b) == 0 for b, r in zip(per_axis, ranges)):
        # the ranges from the data: each column's minimum and maximum in two passes over the
        # (N, D) array (a GPU reduction reads no strided column alone)
        lows, highs = (_to_numpy(v) if _on_gpu(v) else numpy.asarray(v)
                       for v in (min(whole, axis=0, backend=backend),
                                 max(whole, axis=0, backend=backend)))
        found = list(zip(lows.tolist(), highs.tolist()))
    edges = [_axis_edges(c, b, r, "axis %d" % d, backend, "histogramdd", f)
             for d, (c, b, r, f) in enumerate(zip(columns, per_axis, ranges, found))]
    weights, _ = _weights_for(first, weights, "histogramdd")
    flat = [numpy.ascontiguousarray(e, numpy.float64) for e in edges]
    shape = tuple(e.size - 1 for e in flat)
    if _on_gpu(first):
        inside = 1
        for b in shape:
            inside *= b
        if inside >= _MAX_BINS:
            raise ValueError("histogramdd: %s bins; at most 2^24 - 1 (16777215) together"
                             % " x ".join(str(b) for b in shape))
        slots = _empty(first, (inside + 1,), "int64" if weights is None else "float64")
        _run_for(first, _pplab.histogramdd, columns, flat, weights, backend, variant, slots)
        hist = _astype(slots[:-1].reshape(shape), "float64")
    else:
        hist, *_ = _run_for(first, _pplab.histogramdd, columns, flat, weights, backend, variant)
        hist = hist.astype(numpy.float64)
    if density:
        total = hist.sum()
        for d, e in enumerate(edges):
            along = [1] * D
            along[d] = shape[d]
            widths = numpy.diff(e).reshape(along)
            hist = hist / (_like(first, widths) if _on_gpu(first) else widths)
        with numpy.errstate(invalid="ignore", divide="ignore"):
            hist = hist / total
    return (hist if _on_gpu(first) else _like(first, hist)), edges


def _sample_columns(sample):
    """numpy.histogramdd's sample as one 1-D array per axis, of one dtype (NumPy's common type,
    a copy where they differ) and one place, at one element stride (an (N, D) array's columns
    where they lie; other layouts made contiguous); and the (N, D) array they are columns of,
    or None."""
    import numpy
    whole = None
    if isinstance(sample, (list, tuple)) and sample and builtins.all(_library(c) for c in sample):
        # a sequence of arrays, kept where they are
        columns = [_for_pplab(_native(c)) for c in sample]
    else:
        arr = _for_pplab(_array(sample) if _library(sample) else _native(numpy.asarray(sample)))
        if _library(arr) is None:
            arr = numpy.asarray(arr)
        dims = len(_shape(arr))
        if dims == 1:
            columns = [arr]
        elif dims == 2:
            whole = arr
            columns = [arr[:, d] for d in builtins.range(_shape(arr)[1])]
        else:
            raise ValueError("histogramdd: sample must be an (N, D) array or a sequence of D "
                             "1-D arrays; got shape %s" % (_shape(arr),))
    if not columns:
        raise ValueError("histogramdd: the sample has no axes")
    libs = {(_library(c), _on_gpu(c)) for c in columns}
    if len(libs) != 1:
        raise ValueError("histogramdd: the axes must all be host arrays or GPU arrays of one "
                         "library")
    n = _shape(columns[0])
    for c in columns:
        if len(_shape(c)) != 1 or _shape(c) != n:
            raise ValueError("histogramdd: the axes must be 1-D arrays of one length; got "
                             "shapes %s" % [_shape(c) for c in columns])
    names = [_dtype_name(c) for c in columns]
    if builtins.any(name not in _NUMBER_TYPES for name in names):
        raise TypeError("histogramdd: points of type %s; give numbers (integers or floats)"
                        % ", ".join(sorted(set(names) - set(_NUMBER_TYPES))))
    common = numpy.result_type(*names)
    columns = [c if _dtype_name(c) == common.name else _astype(c, common.name) for c in columns]
    steps = {_strides_in_elements(c)[0] for c in columns} if n[0] > 1 else {1}
    if len(steps) != 1 or builtins.min(steps) < 1:
        columns = [_contiguous(c) for c in columns]
    if whole is not None and (_dtype_name(whole) != common.name or
                              (_on_gpu(whole) and not _c_contiguous(whole))):
        # converted: its columns are copies; or a strided GPU array, which no GPU reduction reads:
        # its columns copied, each then read alone
        if _on_gpu(whole) and not _c_contiguous(whole):
            columns = [_contiguous(c) for c in columns]
        whole = None
    return columns, whole


def _weights_for(a, weights, name):
    """weights as pplab reads them (float32 or float64, a's shape, where a is) and the dtype the
    answer takes (NumPy's: the weights'), or (None, None). Other dtypes are converted to float64
    first (a copy); complex weights are refused."""
    if weights is None:
        return None, None
    import numpy
    w = _packed(_for_pplab(_array(weights)))
    if _on_gpu(w) != _on_gpu(a):
        raise ValueError("%s: the weights and the data must both be host arrays or both GPU "
                         "arrays" % name)
    if _shape(w) != _shape(a):
        raise ValueError("weights should have the same shape as a.")
    wname = _dtype_name(w)
    if wname.startswith("complex"):
        raise TypeError("%s: complex weights are not supported" % name)
    answer = numpy.dtype(wname)
    if wname not in ("float32", "float64"):
        w = _astype(w, "float64")
    return w, answer


def _astype(x, dtype):
    """x converted to dtype (a NumPy name) in its own library (a copy)."""
    if _library(x) == "torch":
        import torch
        if x.dtype == torch.float64 and dtype in _HALF_TYPES:
            return _torch_halved(x, getattr(torch, dtype))
        return x.to(getattr(torch, dtype))
    if _library(x) == "cupy":
        return x.astype(dtype)
    import numpy
    return numpy.asarray(x).astype(dtype)


def _torch_halved(x, dtype):
    """A float64 tensor rounded once to float16 or bfloat16, as NumPy's direct conversion: torch's
    goes through float32 and rounds twice (2530.99999 -> 2531.0 -> 2532, not 2530). float32 is
    rounded to odd first (the inexact even results moved to their odd neighbour toward x), which
    leaves the second rounding the first's answer (float32 holds 13 more bits than float16)."""
    import torch
    f = x.to(torch.float32)
    back = f.to(torch.float64)
    fix = (back != x) & ((f.view(torch.int32) & 1) == 0) & torch.isfinite(x)
    inf = torch.full_like(f, float("inf"))
    toward = torch.where(x > back, inf, -inf)
    return torch.where(fix, torch.nextafter(f, toward), f).to(dtype)


def _edge_rule(dtype_name, range):  # noqa: A002
    """How numpy.histogram computes the edges of this data over this range (edge_rule in
    pplab/histogram.hpp), as the installed NumPy's major version does: a range inferred from the
    data for every dtype; float32 data gets float32 edges, from float32 arithmetic where NumPy
    2's linspace runs in float32 (a range of float32 numbers, such as the data's minimum and
    maximum), else the double edges rounded (NumPy 1.x always)."""
    import numpy
    numpy2 = int(numpy.__version__.split(".")[0]) >= 2
    if range is None:  # [min, max] of the data, for every dtype
        return "numpy" if numpy2 else "numpy1"
    if dtype_name != "float32":
        return "f64"
    first, last = range
    if numpy.result_type(first, last, numpy.empty(0, numpy.float32)) != numpy.float32:
        return "f64"  # NumPy bins in float64 (a range of numpy.float64 values on NumPy 2)
    if not numpy2:
        return "f32_rounded"
    arithmetic = numpy.result_type(first, last)
    if arithmetic == numpy.float32:
        return "f32_arithmetic"
    if arithmetic == numpy.float64 or arithmetic.kind in "iub":
        return "f32_rounded"
    raise TypeError("histogram: a range of %s values; give Python floats or float32/float64 "
                    "values" % arithmetic)


def _finite(v):
    return v == v and v not in (float("inf"), float("-inf"))


def bincount(x, weights=None, minlength=0, *, backend=None, variant=None):
    """numpy.bincount(x, weights, minlength): how often each value 0, 1, ... occurs in x, a 1-D
    array of non-negative integers (bytes too), int64; with weights (x's shape), each value's sum
    of weights, float64 (as NumPy). In x's library and on x's device."""
    minlength = _check_integer(minlength, "minlength", 0)
    backend, variant = _check_backend(backend), _check_variant(variant)
    x, _ = _bytes_of_bool(_packed(_for_pplab(_array(x))))  # False counts in bin 0, True in 1
    name = _dtype_name(x)
    if not (name.startswith("int") or name.startswith("uint")):
        raise TypeError("bincount takes integers, not %s" % name)
    if len(_shape(x)) != 1:
        raise ValueError("bincount: x must be 1-D; it has shape %s" % (_shape(x),))
    weights, _ = _weights_for(x, weights, "bincount")
    if _global_size(x, backend) == 0:
        import numpy
        return _like(x, numpy.zeros(minlength, dtype=numpy.int64 if weights is None
                                    else numpy.float64))
    if weights is not None:
        return _weighted_bincount(x, name, weights, minlength, backend, variant)
    if name in ("uint8", "uint16"):
        # every value has its bin: the type's natural bins (value = bin), one pass of the byte
        # and 16-bit counters, no maximum first; the length is the largest value present's
        n, lo, hi = (256 if name == "uint8" else 65536), None, None
    else:
        n = _bincount_length(x, name, backend)
        lo, hi = 0.0, float(n)
    if _on_gpu(x):
        return _bincount_on_gpu(x, n, lo, hi, minlength, backend, variant)
    import numpy
    counts, *_ = _run(_pplab.histogram, x, n, lo, hi, False, "f64", backend, variant)
    if lo is None:
        counts = counts[:builtins.max(_used_length(counts), minlength)]
    if minlength > counts.size:
        counts = numpy.concatenate([counts, numpy.zeros(minlength - counts.size, dtype=numpy.int64)])
    return _like(x, counts)


def _bincount_length(x, name, backend):
    """numpy.bincount's length for x: its largest value plus one, after checking that none is
    negative and that the bins fit pplab's histograms. One pass over a contiguous x: its largest
    value read as unsigned (a negative value reads as 2**(bits - 1) or more); the smallest is
    looked for only to name it in the error."""
    largest = _run(_pplab.largest_as_unsigned, x, backend)
    if name.startswith("int") and int(largest) >= 2 ** (int(name[3:]) - 1):
        raise ValueError("bincount takes non-negative integers; the smallest here is %d"
                         % min(x, backend=backend))
    n = int(largest) + 1
    if n > _MAX_BINS:
        raise ValueError("bincount: the largest value here is %d; pplab counts values 0 to "
                         "2**24 - 1 (16777215), one bin each, as its histograms have at most "
                         "2**24 bins (numpy.bincount would allocate %d counts)" % (n - 1, n))
    return n


def _weighted_bincount(x, name, weights, minlength, backend, variant):
    """bincount with weights: the sums of each value's weights in max(x) + 1 bins (float64)."""
    n = _bincount_length(x, name, backend)
    if _on_gpu(x):  # the sums written into an array of x's library, never through the host
        room = builtins.max(n + 3, minlength)  # the bins, underflow, overflow, NaN; then zeros
        sums = _empty(x, (room,), "float64")
        if room > n + 3:
            sums[n + 3:] = 0
        _run(_pplab.histogram, x, n, 0.0, float(n), False, "f64", backend, variant,
             sums[:n + 3], None, weights)
        return sums[:builtins.max(n, minlength)]
    sums, *_ = _run(_pplab.histogram, x, n, 0.0, float(n), False, "f64", backend, variant, None,
                    None, weights)
    if minlength > n:
        import numpy
        sums = numpy.concatenate([sums, numpy.zeros(minlength - n)])
    return _like(x, sums)


def _used_length(host_counts):
    """The largest value counted, plus one (0 when none is): numpy.bincount's length."""
    import numpy
    used = numpy.flatnonzero(host_counts)
    return int(used[-1]) + 1 if used.size else 0


def _bincount_on_gpu(x, n, lo, hi, minlength, backend, variant):
    """bincount of a GPU array into n bins (natural ones where lo is None): the counts written
    into an array of x's library on x's device and returned as a view of it, never copied to
    the host and back. With natural bins the length is read from the counts, a copy of 2 or
    128 KiB to the host."""
    # the bins, then underflow, overflow and NaN (all zero here: no value lies outside), then
    # zeros up to minlength
    room = builtins.max(n + 3, minlength)
    counts = _empty(x, (room,), "int64")
    if room > n + 3:
        counts[n + 3:] = 0
    _run(_pplab.histogram, x, n, lo, hi, False, "f64", backend, variant, counts[:n + 3])
    length = n if lo is not None else _used_length(_to_numpy(counts[:n]))
    return counts[:builtins.max(length, minlength)]


def _to_numpy(x):
    """A PyTorch or CuPy array's values in a NumPy array on the host (for a GPU array a sync and
    a copy; a tensor that records gradients detached first)."""
    if _library(x) == "torch":
        return x.detach().cpu().numpy()
    return x.get()


def histogram_channels(image, *, backend=None):
    """The 256-bin histogram of each channel of a u8 image (rows x cols x channels, or rows x
    cols for one channel): an int64 array of channels x 256. Each channel is copied out of the
    interleaved pixels once (pplab's histograms read contiguous data)."""
    backend = _check_backend(backend)
    image = _for_pplab(_array(image))
    if _dtype_name(image) != "uint8":
        raise TypeError("histogram_channels takes a uint8 image, not %s" % _dtype_name(image))
    shape = tuple(image.shape)
    if len(shape) == 2:
        planes = [image]
    elif len(shape) == 3:
        planes = [image[..., c] for c in builtins.range(shape[2])]
    else:
        raise ValueError("an image is rows x cols or rows x cols x channels, not %s" % (shape,))
    import numpy
    out = numpy.empty((len(planes), 256), dtype=numpy.int64)
    for c, plane in enumerate(planes):
        plane = _contiguous(plane)
        out[c], *_ = _run(_pplab.histogram, plane, 256, None, None, False, "f64", backend,
                          None)  # natural bins: value = bin
    return _like(image, out)


def dot(a, b, out=None, *, precision="strict", backend=None, variant=None):
    """numpy.dot(a, b, out) for vectors and matrices, where it is numpy.matmul: the inner product
    of two vectors (a number), a matrix times a vector, a vector times a matrix, a matrix product
    (pplab.matmul runs them). A number, or an operand of three or more axes (numpy.dot sums over
    a's last axis and b's second-to-last for every pair of leading indices, unlike matmul's
    stacks), raises ValueError."""
    for i, x in enumerate((a, b)):
        ndim = len(_shape(x if hasattr(x, "shape") else _array(x)))
        if ndim == 0:
            raise ValueError("dot: operand %d is a number; multiply with * (numpy.dot's product "
                             "by a scalar)" % i)
        if ndim > 2:
            raise ValueError("dot: operand %d has %d axes; pplab.dot takes vectors and matrices "
                             "(numpy.dot of N-D arrays pairs every leading index of a with every "
                             "one of b); pplab.matmul multiplies stacks of matrices" % (i, ndim))
    return matmul(a, b, out, precision=precision, backend=backend, variant=variant)


def matmul(a, b, out=None, *, precision="strict", backend=None, variant=None):
    """numpy.matmul(a, b, out): a @ b for float32 or float64 arrays, in a's library and on a's
    device, with NumPy's shapes: two matrices; a 1-D operand as a row (a) or a column (b), its
    axis then dropped from the answer (vector @ vector: a number, a 0-d array on the GPU); and
    stacks of matrices (..., m, k) @ (..., k, n), their leading axes broadcast against each other.
    float32 with float64 gives float64, as NumPy (the float32 operand converted first, a copy).
    out: an array of the answer's shape and dtype, in a's library, written and returned.

    A matrix times a vector (or a vector times a matrix) runs pplab's vector rungs, a reduction
    that reads the matrix once; a transposed matrix there is read where it lies (A.T @ x runs as
    x @ A). A stack times one matrix runs as one product (the stack's rows one after another,
    when they lie so); other stacks run a product per matrix. Other operands whose rows are not
    contiguous (transposed or strided views) are copied first (docs/python.md).

    precision 'strict' multiplies and adds in the arrays' type (as torch.matmul with TF32 off);
    'split_tf32' runs float32 on the GPU's tensor cores, each operand split into two TF32 parts,
    near float32's accuracy (cuda only; docs/python.md gives its measured error)."""
    import numpy
    # The everyday host call in a few steps: two C-ordered NumPy arrays of one native float type,
    # two matrices or a matrix and a vector, nothing else asked. It makes the compiled call the
    # path below makes for them (whose checks these arrays pass by construction); every other
    # call, and these arrays' errors (columns that do not match rows), take that path.
    if (type(a) is numpy.ndarray and type(b) is numpy.ndarray and backend is None
            and variant is None and precision == "strict"):
        dims = (a.ndim, b.ndim)
        if (dims in ((2, 2), (2, 1), (1, 2)) and a.dtype == b.dtype
                and (a.dtype == numpy.float32 or a.dtype == numpy.float64)
                and a.flags.c_contiguous and b.flags.c_contiguous and a.shape[-1] == b.shape[0]):
            shape = a.shape[:-1] + b.shape[1:]
            if out is None:
                answer = numpy.empty(shape, a.dtype)
                _pplab.matmul(a, b, answer, 1.0, 0.0, None, None)
                return answer
            # out=: a C-ordered NumPy array of the answer's shape and type, apart from a and b
            if (type(out) is numpy.ndarray and out.shape == shape and out.dtype == a.dtype
                    and out.flags.c_contiguous and not numpy.may_share_memory(out, a)
                    and not numpy.may_share_memory(out, b)):
                _pplab.matmul(a, b, out, 1.0, 0.0, None, None)
                return out
    # The same for two contiguous PyTorch CUDA tensors on one GPU (a GPU call's host work before
    # its launch adds to its time; on an H200 this path moved torch.mv's call 0.97x -> 0.99x and
    # x @ B 0.88x -> 0.90x, at the edge of the host's noise).
    if (_library(a) == "torch" and type(b) is type(a) and out is None and backend is None
            and variant is None and precision == "strict" and a.is_cuda and b.is_cuda):
        import torch
        dims = (a.dim(), b.dim())
        if (dims in ((2, 2), (2, 1), (1, 2)) and a.dtype == b.dtype
                and (a.dtype == torch.float32 or a.dtype == torch.float64)
                and not (a.requires_grad or b.requires_grad) and a.device == b.device
                and a.shape[-1] == b.shape[0]):
            first, second = None, None
            if a.is_contiguous() and b.is_contiguous():
                first, second = a, b
            # A transposed C-ordered matrix and a contiguous vector (A.T @ x, x @ B.T): the
            # matrix read where it lies, the product taken the other way round (x @ A, B @ x),
            # as the path below takes it.
            elif dims == (2, 1) and a.T.is_contiguous() and b.is_contiguous():
                first, second = b, a.T
            elif dims == (1, 2) and a.is_contiguous() and b.T.is_contiguous():
                first, second = b.T, a
            if first is not None:
                answer = a.new_empty(tuple(a.shape[:-1]) + tuple(b.shape[1:]))
                _run(_pplab.matmul, first, second, answer, 1.0, 0.0, None, None)
                return answer
    backend, variant = _check_backend(backend), _check_variant(variant)
    if precision not in ("strict", "split_tf32"):
        raise ValueError("precision must be 'strict' or 'split_tf32', not %r" % (precision,))
    a, b = (_for_pplab(_native(x) if _library(x) else numpy.asarray(_array(x))) for x in (a, b))
    if _on_gpu(a) != _on_gpu(b) or (_on_gpu(a) and _library(a) != _library(b)):
        raise ValueError("matmul: a and b must both be host arrays, or GPU arrays of one library")
    for i, x in enumerate((a, b)):
        if len(_shape(x)) == 0:
            raise ValueError("matmul: Input operand %d does not have enough dimensions (it is a "
                             "number; multiply it with *)" % i)
    names = (_dtype_name(a), _dtype_name(b))
    for name in names:
        if name not in ("float32", "float64"):
            raise TypeError("matmul takes float32 or float64 arrays, not %s; convert integers "
                            "with x.astype(numpy.float64)" % name)
    name = "float64" if "float64" in names else "float32"
    a, b = (x if n == name else _astype(x, name) for x, n in zip((a, b), names))
    if precision == "split_tf32":
        if name != "float32":
            raise ValueError("precision 'split_tf32' is for float32 arrays")
        variant = variant or "split_tf32"
        backend = backend or "cuda"
    sa, sb = _shape(a), _shape(b)
    m, k = sa[-2:] if len(sa) >= 2 else (1, sa[0])  # a 1-D a: a row
    k2, n = sb[-2:] if len(sb) >= 2 else (sb[0], 1)  # a 1-D b: a column
    if k != k2:
        raise ValueError("matmul: a's columns must match b's rows: a is %s and b is %s (%d and "
                         "%d)" % (sa, sb, k, k2))
    batch = ()
    if len(sa) > 2 or len(sb) > 2:
        try:
            lead_a, lead_b = sa[:-2], sb[:-2]
            batch = lead_a if lead_a == lead_b else tuple(numpy.broadcast_shapes(lead_a, lead_b))
        except ValueError:
            raise ValueError("matmul: the stacks' shapes %s and %s do not broadcast"
                             % (sa[:-2], sb[:-2])) from None
    shape = batch + ((m,) if len(sa) >= 2 else ()) + ((n,) if len(sb) >= 2 else ())
    if out is not None:
        if _library(out) != _library(a) or _on_gpu(out) != _on_gpu(a):
            raise ValueError("matmul: out must be an array of a's library, where a is")
        if tuple(_shape(out)) != shape or _dtype_name(out) != name:
            raise ValueError("matmul: out must be %s of shape %s; it is %s of shape %s"
                             % (name, shape, _dtype_name(out), tuple(_shape(out))))
    # The answer written straight into out where out is C-ordered and shares no byte with an
    # operand (NumPy's answer where they overlap: the operands as they were before the call);
    # else computed apart and copied in (f32 10^6 x 3 @ 3 x 3 on a 2-core EPYC: 1.1 ms with
    # the copy, 0.43 ms without).
    direct = (out is not None and _c_contiguous(out) and _c_contiguous(a) and _c_contiguous(b)
              and not _shares_memory(out, a) and not _shares_memory(out, b))

    def product(x, y, into):
        # A 1-D operand goes as it is: a row on the left, a column on the right (and `into` the
        # answer's vector), so no reshaped views are made per call.
        _run(_pplab.matmul, _rows_contiguous(x), _rows_contiguous(y), into, 1.0, 0.0, backend,
             variant)

    if not batch and (len(sa) == 1) != (len(sb) == 1):  # a matrix and a vector
        # The shapes and strides asked once: on a GPU array each question is a call into its
        # library, and this call is often short.
        answer = out if direct else _empty(a, shape, name)
        matrix, vector = (a, b) if len(sb) == 1 else (b, a)
        rows, cols = (m, k) if matrix is a else (k, n)
        s_rows, s_cols = _strides_in_elements(matrix)
        if (cols <= 1 or s_cols == 1) and (rows <= 1 or s_rows >= cols):
            flip = False  # rows where they lie
        else:  # a transposed view of a C-ordered matrix: read as that matrix, the product flipped
            flip = (rows <= 1 or s_rows == 1) and (cols <= 1 or s_cols >= rows)
            if not flip:
                matrix = _contiguous(matrix)
        if k > 1 and _strides_in_elements(vector)[0] != 1:
            vector = _contiguous(vector)
        first, second = ((vector, matrix.T) if flip else (matrix, vector)) if len(sb) == 1 else \
            ((matrix.T, vector) if flip else (vector, matrix))
        _run(_pplab.matmul, first, second, answer, 1.0, 0.0, backend, variant)
        if out is not None and not direct:
            out[...] = answer
            return out
        return answer
    a2 = a if len(sa) >= 2 else a.reshape((1,) + sa)  # a row
    b2 = b if len(sb) >= 2 else b.reshape(sb + (1,))  # a column
    answer = out.reshape(batch + (m, n)) if direct else _empty(a, batch + (m, n), name)
    if not batch:
        product(a2, b2, answer)
    elif len(_shape(b2)) == 2 and _c_contiguous(a2):  # one product over the stack's rows
        rows = m
        for d in batch:
            rows *= d
        product(a2.reshape(rows, k), b2, answer.reshape(rows, n))
    elif 0 not in batch:  # a stack of products: a call per sub-stack that one stride walks
        a2, b2 = (x if _matrices_readable(_shape(x), _strides_in_elements(x)) else _contiguous(x)
                  for x in (a2, b2))
        # The fewest leading axes to loop over (none, mostly) so that the axes left are walked by
        # one stride in each operand; with every axis looped over, a call per matrix.
        strides_a, strides_b = _strides_in_elements(a2), _strides_in_elements(b2)
        for lead in range(len(batch) + 1):
            sa = _stack_stride(a2, batch, lead, strides_a)
            sb = _stack_stride(b2, batch, lead, strides_b)
            if sa is not None and sb is not None:
                break
        count = 1
        for d in batch[lead:]:
            count *= d
        if not lead:  # one sub-stack (mostly): the stacks whole, read from their first matrices
            _run(_pplab.matmul_batched, a2, sa, b2, sb, answer, m * n, count, 1.0, 0.0,
                 backend, variant)
        shape_a, shape_b = _shape(a2), _shape(b2)
        for outer in itertools.product(*(builtins.range(d) for d in batch[:lead])) if lead else ():
            at = outer + (0,) * (len(batch) - lead)
            _run(_pplab.matmul_batched, a2[_broadcast_index(at, shape_a)], sa,
                 b2[_broadcast_index(at, shape_b)], sb, answer[at], m * n, count, 1.0, 0.0,
                 backend, variant)
    if direct:
        return out
    answer = answer.reshape(shape)
    if out is not None:
        out[...] = answer
        return out
    if not shape and not _on_gpu(a):
        return answer[()]  # a NumPy number, as numpy.matmul of two vectors
    return answer


def _stack_stride(x, batch, lead=0, strides=None):
    """The one stride, in elements, from each matrix of x's stack to the next when its leading
    axes are broadcast to `batch` and the axes from `lead` on are walked in C order (0: one
    matrix for all), or None where no one stride does (an axis broadcast within a stack that
    varies, a reversed stack). strides: x's in elements, where the caller has them."""
    shape = _shape(x)[:-2]
    strides = (strides or _strides_in_elements(x))[:-2]
    per = [0] * (len(batch) - len(shape)) + [0 if d == 1 else s for d, s in zip(shape, strides)]
    step, after = None, 1  # the stride of the last axis that moves; the matrices after axis d
    for d in reversed(range(lead, len(batch))):
        if batch[d] != 1:
            if step is None:
                step = per[d]
            if per[d] != step * after:
                return None
        after *= batch[d]
    step = step or 0
    return step if step >= 0 else None


def _broadcast_index(index, shape):
    """The index of an operand of `shape` (matrices: its last two axes) at the broadcast stack's
    `index`: its own leading axes aligned on the right, an axis of length one held at 0."""
    lead = shape[:-2]
    skip = len(index) - len(lead)
    return tuple(0 if d == 1 else i for i, d in zip(index[skip:], lead))


def _strides_in_elements(x):
    """x's strides counted in elements."""
    if _library(x) == "torch":
        return tuple(x.stride())
    return tuple(s // x.itemsize for s in x.strides)


def _c_contiguous(x):
    """Whether x is C-contiguous."""
    if _library(x) == "torch":
        return x.is_contiguous()
    return bool(x.flags.c_contiguous)


def _contiguous(x):
    """x where it is C-contiguous, else a C-contiguous copy in its library."""
    if _library(x) == "torch":
        return x.contiguous()
    if _library(x) == "cupy":
        import cupy
        return cupy.ascontiguousarray(x)
    import numpy
    return numpy.ascontiguousarray(x)


def _packed(x):
    """x where it is C-contiguous, else a C-contiguous copy in its library: the histograms and
    bincount read their values (and weights) as one run in memory, and a view of any other
    layout (a transpose, every other value, one channel of an image, a reversed axis) is copied
    first, as NumPy copies such a view to sort or bin it."""
    return x if _c_contiguous(x) else _contiguous(x)


def _in_place(x, packed=1):
    """Whether pplab's filters read x where it lies: its last `packed` axes one run in memory (a
    row's values; a row's pixels' channels for packed=2), every other axis stepping forward over
    whole runs of them (a crop, every other row, a stack's planes). Other views (a transpose, a
    Fortran-ordered array, every other column, a reversed axis) are copied first by the filters
    (_contiguous), as SciPy copies them."""
    return _runs_in_place(_shape(x), _strides_in_elements(x), packed)


def _runs_in_place(shape, strides, packed=1):
    """_in_place's test on a `shape` and its `strides` in elements."""
    if 0 in shape:
        return True
    span = 1  # the elements spanned by one index of the axis above
    for i in range(len(shape) - 1, -1, -1):
        n, step = shape[i], strides[i]
        if n > 1:
            if step != span if i >= len(shape) - packed else step < span:
                return False
            span += (n - 1) * step
    return True


def _rows_readable(x):
    """Whether pplab's matmul reads x where it lies: a matrix with each row contiguous and the
    rows at a positive stride no shorter than a row, or a contiguous vector (the filters' test,
    _in_place)."""
    return _in_place(x)


def _matrices_readable(shape, strides):
    """Whether pplab's matmul reads the matrices of a stack of `shape` and `strides` (in
    elements) where they lie: each row contiguous and the rows at a positive stride no shorter
    than a row (_rows_readable's test on the last two axes)."""
    return _runs_in_place(tuple(shape[-2:]), tuple(strides[-2:]))


def _rows_contiguous(x):
    """x (a matrix or a vector) as pplab's matmul reads it: x itself where it can
    (_rows_readable), else a C-contiguous copy."""
    return x if _rows_readable(x) else _contiguous(x)


def _check_filter_args(mode, cval, backend, variant):
    """A filter's mode, cval, backend= and variant=, checked; cval as a float."""
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError("mode must be one of %s, not %r"
                         % (", ".join(repr(m) for m in _MODES[:5]), mode))
    return float(_check_number(cval, "cval")), _check_backend(backend), _check_variant(variant)


def _correlated(image, weights, mode, cval, backend, variant, out=None):
    """pplab's own filter calls (the named filters' masks and passes): a float32 or float64 image
    pplab reads and a C-contiguous float64 NumPy mask of one or two axes, the arguments checked
    (_check_filter_args): the correlation in a new array of the image's type and library (or in
    `out`, an array of the image's shape and type that pplab made and no longer needs)."""
    if out is None:
        out = _empty(image, tuple(image.shape), _dtype_name(image))
    _run(_pplab.filter, image, weights if weights.ndim == 2 else weights.reshape(1, -1), out, mode,
         cval, False, 1, backend, variant)
    return out


def _host_weights(weights):
    """A filter's weights as a NumPy array: the host's values of a PyTorch or CuPy array (GPU
    arrays too: cupyx.scipy.ndimage takes its weights as CuPy arrays), anything else through
    numpy.asarray."""
    if _library(weights) in ("torch", "cupy"):
        return _to_numpy(weights)
    import numpy
    return numpy.asarray(_array(weights))


def _origins(origin, ndim, name):
    """origin= as SciPy's: an integer for every axis, or a sequence of one per axis."""
    import numpy
    values = [origin] * ndim if numpy.ndim(origin) == 0 else list(origin)
    if len(values) != ndim:
        raise RuntimeError("%s: origin has %d values; the input has %d axes (SciPy: sequence "
                           "argument must have length equal to input rank)"
                           % (name, len(values), ndim))
    try:
        return [operator.index(v) for v in values]
    except TypeError:
        raise TypeError("%s: origin must be an integer or one per axis, not %r"
                        % (name, origin)) from None


def _scipy_weights(weights, ndim, flip, origin, name):
    """The weights (float64, C order) and origins that SciPy's NI_Correlate gets for
    correlate (flip False) or convolve (flip True: the weights reversed on every axis, each
    origin negated, less one on an axis of even length), checked as SciPy checks them."""
    import numpy
    w = numpy.asarray(weights, dtype=numpy.float64)
    if w.ndim != ndim or 0 in w.shape:
        raise RuntimeError("%s: filter weights array has incorrect shape: %s for an input of %d "
                           "axes (as many axes as the input, none empty)"
                           % (name, tuple(w.shape), ndim))
    origins = _origins(origin, ndim, name)
    if flip:
        w = w[(slice(None, None, -1),) * ndim]
        origins = [-o - (1 - k % 2) for o, k in zip(origins, w.shape)]
    for o, k in zip(origins, w.shape):
        if not -(k // 2) <= o <= (k - 1) // 2:
            raise ValueError("%s: invalid origin %d for an axis of %d weights; origin must satisfy "
                             "-(weights.shape[k] // 2) <= origin[k] <= (weights.shape[k]-1) // 2"
                             % (name, o, k))
    return numpy.ascontiguousarray(w), origins


def _filter_output(image, output, name):
    """(an array to write into or None, the NumPy name of the output's type) for output= as
    SciPy takes it: None (the input's type), a dtype, or an array of the input's shape in the
    input's library and on its device."""
    import numpy
    shape = tuple(image.shape)
    if output is None:
        return None, _dtype_name(image)
    if isinstance(output, str) and output in _MODES:
        raise TypeError("%s: the third argument is output=, as SciPy's; give the mode by name: "
                        "mode=%r" % (name, output))
    if (not isinstance(output, (type, str, numpy.dtype)) and hasattr(output, "shape")
            and hasattr(output, "dtype")):  # an array to write into (numpy.float32 has both too)
        if _library(output) != _library(image) or _on_gpu(output) != _on_gpu(image):
            raise ValueError("output must be an array of the image's library (%s) on the image's "
                             "device" % (_library(image) or type(image).__name__))
        if tuple(output.shape) != shape:
            raise ValueError("output has shape %s; the image's is %s"
                             % (tuple(output.shape), shape))
        return output, _dtype_name(output)
    try:
        return None, numpy.dtype(output).name
    except TypeError:
        raise TypeError("output must be an array or a dtype, not %s"
                        % _type_name(output)) from None


def _image_filter(image, weights, mode, cval, out, out_name, backend, variant, flip, precision):
    """pplab's filter rungs (pplab::correlate): a 2-D float32 or float64 image into its own type,
    or a uint8 image of rows x cols (x channels) into uint8 (rounded, saturated) or float32; the
    weights odd-sided, a 2-D float64 NumPy array."""
    name = _dtype_name(image)
    shape = tuple(image.shape)
    channels = shape[2] if name == "uint8" and len(shape) == 3 else 1
    if not _c_contiguous(image) and not _in_place(image, len(shape) - 1):
        image = _contiguous(image)  # a transpose, every other column, a reversed axis: a copy
    if name == "uint8" and out_name not in ("uint8", "float32"):
        raise ValueError("the image rungs' output of a uint8 image is uint8 or float32, not %s"
                         % out_name)
    if precision == "split_tf32":
        if name != "float32":
            raise ValueError("precision 'split_tf32' is for float32 images, not %s" % name)
        variant = variant or "split_tf32"
        backend = backend or "cuda"
    if out is None:
        out = _empty(image, shape, out_name)
    _run(_pplab.filter, image, weights, out, mode, cval, flip, channels, backend, variant)
    return out


def _shares_memory(a, b):
    """Whether two arrays of one library, each C-contiguous, share a byte."""
    lib = _library(a)
    if lib == "numpy":
        import numpy
        return numpy.may_share_memory(a, b)
    spans = []
    for x in (a, b):
        at, size = ((x.data_ptr(), x.numel() * x.element_size()) if lib == "torch"
                    else (x.data.ptr, x.nbytes))
        spans.append((at, at + size))
    return spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1]


def _fits_the_rungs(w):
    """Whether pplab's filter rungs take the weights w (2-D): odd sides to 31, or one row or one
    column of an odd length to 255."""
    kh, kw = w.shape
    if kh % 2 == 0 or kw % 2 == 0:
        return False
    return (builtins.max(kh, kw) <= _MASK_SIDE
            or builtins.min(kh, kw) == 1 and builtins.max(kh, kw) <= _LINE_TAPS)


def _in_scipys_arithmetic(image, w, origins, mode, cval, out, out_name, backend):
    """scipy.ndimage.correlate of any rank, input and output type, as SciPy computes it
    (pplab::correlate_in_scipys_order, host arrays on seq, cpu or cuda; on GPU arrays, its
    _device call): w and origins as NI_Correlate gets them (_scipy_weights). bool is read as
    uint8; float16 as float32 and answered through float64 (each answer rounded once); on a GPU
    an input of neither the output's type nor float64 is read as float64 first (a copy)."""
    kind = _dtype_name(image)
    if kind == "bool":
        image = _bytes_of_bool(image)[0]
    elif kind in _HALF_TYPES:
        image = _astype(image, "float32")
    if out_name == "bool":
        raise ValueError("a bool output: SciPy writes its answers' bytes (2, 3, ...) into the "
                         "bools; pass output=numpy.uint8")
    computed = "float64" if out_name in _HALF_TYPES else out_name
    if _on_gpu(image) and _dtype_name(image) not in (computed, "float64"):
        image = _astype(image, "float64")  # the GPU's pass reads out's type or float64
    image = _contiguous(image)
    direct = (out is not None and computed == out_name and _c_contiguous(out)
              and not _shares_memory(out, image))
    got = out if direct else _empty(image, tuple(image.shape), computed)
    gpu = _on_gpu(image)
    _pplab.scipy_correlate(image, got, w, origins, mode, float(cval),
                           backend if gpu or backend in ("seq", "cuda") else "cpu")
    if direct:
        return out
    if out is None:
        return got if computed == out_name else _astype(got, out_name)
    out[...] = got
    return out


def _complex_filter(name, image, weights, output, mode, cval, origin, flip, backend):
    """SciPy's correlate or convolve where the input or the weights are complex: real filters of
    the parts, combined as SciPy's _complex_via_real_components combines them (correlate takes
    the weights' conjugate, as numpy.correlate), into a complex output."""
    import numpy
    complex_input = _dtype_name(image).startswith("complex")
    if not complex_input and numpy.iscomplexobj(cval):
        raise ValueError("Cannot provide a complex-valued cval when the input is real.")
    if weights.dtype.kind == "c" and not flip:
        weights = weights.conj()
    out, out_name = _filter_output(image, output, name)
    if output is None:
        out_name = numpy.promote_types(_dtype_name(image), numpy.complex64).name
    elif not out_name.startswith("complex"):
        if out is not None or isinstance(output, str):
            raise RuntimeError("%s: output must have complex dtype" % name)
        import warnings
        warnings.warn("promoting specified output dtype to complex", stacklevel=4)
        out_name = numpy.promote_types(out_name, numpy.complex64).name
    part = "float32" if out_name == "complex64" else "float64"
    if out is None:
        out = _empty(image, tuple(image.shape), out_name)

    def run(x, w, kind, c):
        return _correlate_or_convolve(name, x, w, kind, mode, c, origin, flip, "strict",
                                      backend, None)
    re, im = numpy.real(cval), numpy.imag(cval)
    if complex_input and weights.dtype.kind == "c":
        real = run(image.real, weights.real, part, re)
        real -= _astype(run(image.imag, weights.imag, None, im), part)
        imag = run(image.real, weights.imag, part, re)
        imag += _astype(run(image.imag, weights.real, None, im), part)
    elif complex_input:
        real, imag = run(image.real, weights, part, re), run(image.imag, weights, part, im)
    else:
        real, imag = run(image, weights.real, part, cval), run(image, weights.imag, part, cval)
    out.real[...] = real
    out.imag[...] = imag
    return out


def _correlate_or_convolve(name, input, weights, output, mode, cval, origin, flip, precision,
                           backend, variant):
    if precision not in ("strict", "split_tf32"):
        raise ValueError("precision must be 'strict' or 'split_tf32', not %r" % (precision,))
    image = _for_pplab(_array(input))
    weights = _host_weights(weights)
    if weights.dtype.kind == "c" or _dtype_name(image).startswith("complex"):
        if precision != "strict" or variant is not None:
            raise ValueError("%s of complex numbers runs SciPy's arithmetic on the real and "
                             "imaginary parts: no precision= or variant=" % name)
        return _complex_filter(name, image, weights, output, mode, cval, origin, flip, backend)
    cval, backend, variant = _check_filter_args(mode, cval, backend, variant)
    if weights.dtype.kind not in "biuf":
        raise TypeError("weights must be real numbers, not %s" % weights.dtype)
    out, out_name = _filter_output(image, output, name)
    kind = _dtype_name(image)
    ndim = len(image.shape)
    if kind == "uint8" and ndim == 3 and weights.ndim == 2:
        weights = weights[:, :, None]  # an image of channels, each on its own
    if ndim == 0 and weights.ndim == 0:  # a number: one weight times it, as SciPy's
        image, weights, ndim = image.reshape(1), weights.reshape(1), -1
    w, origins = _scipy_weights(weights, builtins.abs(ndim), flip, origin, name)
    image_rungs = variant is not None and kind == "uint8" and ndim in (2, 3)
    same_float = kind in ("float32", "float64") and out_name == kind and ndim == 2
    if (same_float or image_rungs) and not builtins.any(origins) and _fits_the_rungs(w[..., 0]
                                                                          if w.ndim == 3 else w):
        # pplab's rungs run the weights as given (correlate's; convolve flips them itself)
        # w is convolve's weights already reversed: the rungs correlate with it
        return _image_filter(image, w[..., 0] if w.ndim == 3 else w, mode, cval, out, out_name,
                             backend, variant, False, precision)
    if precision != "strict":
        raise ValueError("precision %r runs a 2-D float32 image with odd-sided weights, up to 31, "
                         "and origin 0" % precision)
    if variant is not None:
        raise ValueError("variant= names one of pplab's filter rungs, which take 2-D float "
                         "images and uint8 images into their own type, with odd-sided weights "
                         "to 31 and origin 0; this call runs SciPy's arithmetic, which has none")
    got = _in_scipys_arithmetic(image, w, origins, mode, cval, out, out_name, backend)
    return got.reshape(()) if ndim < 0 and out is None else got


def correlate(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *,
              precision="strict", backend=None, variant=None):
    """scipy.ndimage.correlate(input, weights, output, mode, cval, origin): any rank, any real
    type, the weights as many axes as the input (a uint8 image of rows x cols x channels may have
    2-D weights: each channel on its own), SciPy's answers.

    A 2-D float32 or float64 image into its own type with odd-sided weights (to 31, or one row
    or column to 255) and origin 0 runs pplab's filter rungs, in the image's type; everything
    else SciPy's own arithmetic (in double, its order of the adds, converted as C converts:
    integers truncated and wrapped), bit for bit SciPy's answers. variant= on a uint8 image runs
    the image rungs instead, rounded to nearest and saturated (OpenCV's and NPP's rule).

    precision 'split_tf32' filters a float32 image on the GPU's tensor cores, image and weights
    split into two TF32 parts each, near float32's accuracy (cuda only; docs/convolution.md
    gives its measured error)."""
    return _correlate_or_convolve("correlate", input, weights, output, mode, cval, origin, False,
                                  precision, backend, variant)


def convolve(input, weights, output=None, mode="reflect", cval=0.0, origin=0, *,
             precision="strict", backend=None, variant=None):
    """scipy.ndimage.convolve: correlate with the weights reversed on every axis (and each origin
    moved as SciPy moves it)."""
    return _correlate_or_convolve("convolve", input, weights, output, mode, cval, origin, True,
                                  precision, backend, variant)


# ---- scipy.ndimage's named filters on float and integer arrays of any rank: each is built from
# SciPy's 1-D kernels, one per axis. On 1-D and 2-D float arrays their outer product is one mask,
# which the filter's API recognizes as separable and runs as two 1-D passes (the separable rungs);
# a 1-D array is filtered as one row. On 3-D arrays and more, where a kernel is longer than a
# mask's side, and for integers (each pass's answer converted before the next, as SciPy does),
# one pass per axis, as SciPy runs them. Derivative orders raise ValueError saying so.

_INTEGER_KINDS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _named_filter_input(name, input):
    """input as an array pplab filters (1-D or more; float32, float64 or an integer type) and,
    for 1-D and 2-D, its 2-D view."""
    x = _for_pplab(_array(input))
    if not _c_contiguous(x) and not _in_place(x):
        x = _contiguous(x)  # a transpose, every other column, a reversed axis: a copy
    shape = tuple(x.shape)
    kind = _dtype_name(x)
    if kind not in ("float32", "float64") + _INTEGER_KINDS:
        raise ValueError("%s: pplab filters float and integer arrays here, not %s"
                         % (name, kind))
    if len(shape) == 0:
        raise ValueError("%s: a number (0-d array) has no axis to filter" % name)
    return x, (x.reshape(1, -1) if len(shape) == 1 else x)


def _per_axis(value, ndim, name):
    """A number or one per axis, as SciPy's sigma and size."""
    import numpy
    if numpy.ndim(value) == 0:
        return [value] * ndim
    values = list(value)
    if len(values) != ndim:
        raise ValueError("%s: %d values for an array of %d axes" % (name, len(values), ndim))
    return values


def _one_sided(kernel, name, origin=0):
    """A 1-D kernel placed as scipy.ndimage.correlate1d places it (pplab::placed_kernel: the
    odd-sided mask of the same answer, zeros where an even length or an origin moves the kernel
    off its centre); any length (past 255 taps, _long_pass runs it)."""
    import numpy
    origin = _check_integer(origin, "origin", -(1 << 30))
    try:
        mask = numpy.asarray(_pplab.placed_kernel(numpy.asarray(kernel, dtype=numpy.float64),
                                                  origin))
    except ValueError as e:
        raise ValueError("%s: %s" % (name, str(e).replace("placed_kernel: ", ""))) from None
    return mask


def _separable(name, x, kernels, mode, cval, output, backend, variant, passes=False, first=0,
               lines=None):
    """x (an array _named_filter_input gave) filtered by the outer product of one 1-D kernel per
    axis: for 1-D and 2-D arrays one mask (unless `passes`), else one pass per axis, as SciPy runs
    them: axis `first`, then the others in order. Into integers, each axis's pass is SciPy's
    correlate1d (lines: {axis: (weights, origin)} where the kernel is not those weights centred,
    as correlate1d's even lengths and origins place them)."""
    import numpy
    flat = x.reshape(1, -1) if len(tuple(x.shape)) == 1 else x
    cval, backend, variant = _check_filter_args(mode, cval, backend, variant)
    kind = _output_kind(x, output)
    if kind not in _INTEGER_KINDS and _dtype_name(x) in _INTEGER_KINDS:
        x = _astype(x, kind if kind in ("float32", "float64") else "float64")
        flat = x.reshape(1, -1) if len(tuple(x.shape)) == 1 else x
    if {kind, _dtype_name(x)} == {"float32", "float64"}:
        # Floats into the other float type, as SciPy computes them: in double, the answer
        # converted to the output's type
        got = _separable(name, _astype(x, "float64") if kind == "float64" else x, kernels,
                         mode, cval, None if kind == "float64" else "float64", backend,
                         variant, passes, first)
        return _deliver(name, got if kind == "float64" else _astype(got, kind),
                        tuple(x.shape), output)
    if kind in _INTEGER_KINDS:
        if variant is not None:
            raise ValueError("%s: variant= picks a rung of the float filters; an array filtered "
                             "into integers runs SciPy's arithmetic, which has no rungs" % name)
        order = [first] + [a for a in range(len(kernels)) if a != first]
        got = _scipy_order_passes(x, kernels, order, kind, mode, cval, backend, lines)
        return _deliver(name, got, tuple(x.shape), output)
    # In constant mode each of SciPy's passes sees cval outside the one before; one mask sees it
    # everywhere outside, the same only where every kernel keeps a constant (sums to 1)
    if mode == "constant" and cval != 0 and builtins.any(abs(k.sum() - 1) > 1e-12 for k in kernels):
        passes = True
    # Past a mask's side, two kernels' outer product (each to _SEPARABLE_SIDE) is still one
    # filter on a GPU, whose rung fuses the two passes (cuda c15), and on the cpu backend (c03:
    # as fast as the two passes from 33 to 57 taps, and one output where the passes write two,
    # bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt); elsewhere two passes.
    big = builtins.any(k.size > _MASK_SIDE for k in kernels)
    one_mask = (len(kernels) == 2 and builtins.all(k.size <= _SEPARABLE_SIDE for k in kernels)
                and (_on_gpu(x) or backend == "cuda"
                     or (backend in (None, "cpu") and variant is None)))
    if len(kernels) >= 3 or passes or (big and not one_mask):
        order = [first] + [a for a in range(len(kernels)) if a != first]
        return _axis_passes(name, x, kernels, order, mode, cval, output, backend, variant,
                            fuse_last_two=not passes)
    mask = kernels[0].reshape(1, -1) if len(kernels) == 1 else _outer(kernels[0], kernels[1])
    if output is None and _dtype_name(flat) in ("float32", "float64"):
        return _correlated(flat, mask, mode, cval, backend, variant).reshape(tuple(x.shape))
    out = output
    if output is not None and hasattr(output, "shape") and not isinstance(output, type):
        out = output.reshape(1, -1) if len(tuple(output.shape)) == 1 else output
    got = correlate(flat, mask, output=out, mode=mode, cval=cval, backend=backend, variant=variant)
    return output if out is not None and got is out else got.reshape(tuple(x.shape))


def _output_kind(x, output):
    """The NumPy name of the type a named filter computes into, as SciPy: output's (a dtype, or
    an array's), or x's when no output is given."""
    import numpy
    if output is None:
        return _dtype_name(x)
    if isinstance(output, (type, str, numpy.dtype)):
        return numpy.dtype(output).name
    return _dtype_name(output)


def _moved(x, source, destination):
    """x with axis `source` moved to `destination`, C-contiguous (a copy where it moves)."""
    lib = _library(x)
    if lib == "torch":
        return _contiguous(x.movedim(source, destination))
    mod = __import__("cupy" if lib == "cupy" else "numpy")
    return _contiguous(mod.moveaxis(x, source, destination))


_MASK_SIDE = 31  # the longest side of a mask pplab's filter rungs take (pplab::max_mask_side)
_LINE_TAPS = 255  # the longest mask of one row or column of a float image (pplab::max_line_taps)
_SEPARABLE_SIDE = 63  # the longest side of an outer-product mask (pplab::max_separable_side)
_FUSED_SIDE = 33  # the longest side of a square outer product a GPU filters over a stack at once


def _pass(x, k, axis, mode, cval, backend, variant, out=None):
    """The float matrix x (_separable's integers take SciPy's passes instead) correlated with the
    odd-length 1-D kernel k along axis 0 (down the columns) or 1 (along the rows), in `mode`: one
    filter call (a mask of one row or one column; into `out` where given, as _correlated's), or
    _long_pass's for a kernel longer than such a mask may be."""
    if k.size > _LINE_TAPS:
        return _long_pass(x, k, axis, mode, cval, backend, variant)
    mask = k.reshape(1, -1) if axis == 1 else k.reshape(-1, 1)
    return _correlated(x, mask, mode, cval, backend, variant, out)


# On the host a stack's planes are filtered one call each (a GPU takes them in one launch): from
# planes of this many values up that is faster than moving the axis first (two copies), below it
# the calls cost more (a 2-core AVX2 EPYC, float32, 9 taps, bench/results/cpu-2core-2026-11-29-
# python-vs-host-3c7017c.txt, its last section: 2000 x 40 x 40 8.4 ms against 9.6,
# 20000 x 5 x 3 53 against 2.5; 128 x 256 x 256 13.1 against 34.5).
_HOST_PLANE = 2048


def _planes_pass(stack, k, mode, cval, backend, variant, out=None):
    """A C-contiguous float stack of planes x rows x cols correlated down its rows (axis 1) with
    the odd-length 1-D kernel k (at most a line's taps), each plane on its own, in one call
    (pplab::filter_options::planes), into `out` where given (as _correlated's)."""
    if out is None:
        out = _empty(stack, tuple(stack.shape), _dtype_name(stack))
    _run(_pplab.filter, stack, k.reshape(-1, 1), out, mode, cval, False, 1, backend, variant)
    return out


def _extension_index(n, r, mode):
    """For each place p in [-r, n + r) of a line of n values extended by r on each side, the
    index of the value SciPy's `mode` puts there (constant: clipped; the caller writes cval)."""
    import numpy
    p = numpy.arange(-r, n + r)
    if mode in ("nearest", "constant"):
        return numpy.clip(p, 0, n - 1)
    if mode == "wrap":
        return p % n
    if mode == "reflect":  # d c b a | a b c d | d c b a
        q = p % (2 * n)
        return numpy.where(q >= n, 2 * n - 1 - q, q)
    if n == 1:  # mirror of one value
        return numpy.zeros_like(p)
    q = p % (2 * n - 2)  # mirror: d c b | a b c d | c b a
    return numpy.where(q >= n, 2 * n - 2 - q, q)


def _take(x, index, axis):
    """x's slices at `index` (a NumPy array of indices) along axis, in x's library (a copy)."""
    lib = _library(x)
    if lib == "torch":
        import torch
        return x.index_select(axis, torch.as_tensor(index, device=x.device))
    if lib == "cupy":
        import cupy
        return cupy.take(x, cupy.asarray(index), axis=axis)
    import numpy
    return numpy.take(x, index, axis=axis)


def _long_pass(x, k, axis, mode, cval, backend, variant):
    """A 1-D kernel longer than a line's mask, as a sum of filters of up to 255 taps (31 for
    uint8): x extended once by
    the kernel's radius on each side as `mode` extends it (a copy), then each run of 31 taps
    correlated with the extension and its window of x's length taken at the run's place (the
    windows never reach past the extension, so those filters' own mode is not seen), the runs'
    answers added in order."""
    import numpy
    n = tuple(x.shape)[axis]
    r = (k.size - 1) // 2
    ext = _take(x, _extension_index(n, r, mode), axis)
    if mode == "constant":
        for side in (slice(0, r), slice(n + r, n + 2 * r)):
            if axis == 1:
                ext[:, side] = cval
            else:
                ext[side, :] = cval
    total = None
    most = _MASK_SIDE if _dtype_name(x) == "uint8" else _LINE_TAPS
    for c0 in range(0, k.size, most):
        run = k[c0:c0 + most]
        if run.size % 2 == 0:  # an odd mask: a zero tap after the run
            run = numpy.append(run, 0.0)
        h = (run.size - 1) // 2
        mask = run.reshape(1, -1) if axis == 1 else run.reshape(-1, 1)
        part = correlate(ext, mask, mode="constant", cval=0.0, backend=backend, variant=variant)
        window = slice(c0 + h, c0 + h + n)
        part = part[:, window] if axis == 1 else part[window, :]
        total = part if total is None else total + part
    return _contiguous(total)


def _axis_passes(name, x, kernels, order, mode, cval, output, backend, variant,
                 fuse_last_two=False):
    """x filtered by one 1-D kernel along each axis in turn, in `order` (an axis whose kernel is
    the one tap 1 left alone), each pass's outside the mode's again (so the order matters in
    constant mode), its answer in x's dtype: SciPy's separable filters on arrays of any rank. Each
    pass is a 2-D filter: the last axis as rows of the array's other axes together (1 x k), any
    other as the rows of a stack of planes (a k x 1 mask down each plane's columns: axis 0 is one
    plane). A kernel longer than a line's, or an integer array, moves the axis first instead (a
    copy there and back). fuse_last_two (where each pass's outside is the one mask's, as SciPy's
    passes give it): a float GPU array's last two axes with kernels of one odd length from 3 to 33
    are one pass, their outer product over the stack of planes (cuda c07, one launch), after the
    other axes: a round trip through memory fewer."""
    import math
    shape = tuple(x.shape)
    got = _contiguous(x)  # a view: its C-ordered copy
    if builtins.all(n > 0 for n in shape):
        last_two = None
        if (fuse_last_two and len(shape) >= 3 and _on_gpu(got) and variant is None
                and backend in (None, "cuda") and _dtype_name(got) in ("float32", "float64")):
            k1, k2 = kernels[-2], kernels[-1]
            if k1.size == k2.size and k1.size % 2 == 1 and 3 <= k1.size <= _FUSED_SIDE:
                last_two = _outer(k1, k2)
                order = [a for a in order if a < len(shape) - 2]
        # Two arrays in turn: each pass writes into the array the pass before last wrote (a
        # new array's first touch of its pages costs as much as a short pass)
        spare = None
        for axis in order:
            k = kernels[axis]
            if k.size == 1 and k[0] == 1.0:
                continue
            before = got
            if axis == len(shape) - 1:
                rows = got.reshape(-1, shape[-1])
                out = None if spare is None else spare.reshape(-1, shape[-1])
                got = _pass(rows, k, 1, mode, cval, backend, variant, out).reshape(shape)
            elif (_dtype_name(got) in ("float32", "float64") and k.size <= _LINE_TAPS
                    and (_on_gpu(got) or shape[axis] * math.prod(shape[axis + 1:]) >= _HOST_PLANE)):
                # The axis as the rows of a stack of planes (the axes before it) of columns (the
                # axes after it): one pass down each plane's columns, nothing moved
                stack = got.reshape(math.prod(shape[:axis]), shape[axis],
                                    math.prod(shape[axis + 1:]))
                out = None if spare is None else spare.reshape(tuple(stack.shape))
                got = _planes_pass(stack, k, mode, cval, backend, variant, out).reshape(shape)
            else:
                front = got if axis == 0 else _moved(got, axis, 0)
                moved_shape = tuple(front.shape)
                cols = front.reshape(moved_shape[0], -1)
                done = _pass(cols, k, 0, mode, cval, backend, variant).reshape(moved_shape)
                got = done if axis == 0 else _moved(done, 0, axis)
                continue  # the arrays here are copies made for the pass: none kept
            spare = before if before is not x and before is not got else None
        if last_two is not None:
            stack = got.reshape(math.prod(shape[:-2]), shape[-2], shape[-1])
            out = _empty(stack, tuple(stack.shape), _dtype_name(stack))
            _run(_pplab.filter, stack, last_two, out, mode, cval, False, 1, backend, variant)
            got = out.reshape(shape)
    if got is x:  # nothing to filter: a copy, as SciPy answers a new array
        got = _astype(x, _dtype_name(x))
    return _deliver(name, got, shape, output)


def _deliver(name, got, shape, output):
    """A named filter's answer as `output=` asks: itself (None), converted to a dtype, or written
    into an array of the input's shape."""
    import numpy
    if output is None:
        return got
    if isinstance(output, (type, str, numpy.dtype)):
        return _astype(got, numpy.dtype(output).name)
    if tuple(output.shape) != shape:
        raise ValueError("%s: output has shape %s; the input's is %s"
                         % (name, tuple(output.shape), shape))
    output[...] = got
    return output


def _scipy_line(k, given):
    """The weights, origin and divisor of SciPy's 1-D pass whose placed kernel is k: `given`
    (weights, origin) where the caller has them; a mean of m equal taps (uniform_filter, which
    SciPy takes as their sum over m, exact for integers) as ones over m; else k itself."""
    import numpy
    if given is not None:
        return numpy.asarray(given[0], dtype=numpy.float64), int(given[1]), 1
    taps = k[k != 0]
    m = round(1 / taps[0]) if taps.size and numpy.all(taps == taps[0]) else 0
    if m > 1 and abs(1 / taps[0] - m) < 1e-9 * m:
        return (k != 0).astype(numpy.float64), 0, m
    return k, 0, 1


def _scipy_order_passes(x, kernels, order, kind, mode, cval, backend, lines):
    """x filtered into the integer type `kind` as SciPy filters it: one correlate1d per axis in
    `order`, each answer added in SciPy's order and truncated as C converts before the next
    pass (pplab::correlate1d_in_scipys_order). Host arrays on seq or cpu (backend="cuda" too),
    the passes after the first in place in the one output, as SciPy's; GPU arrays on the GPU
    (_device), two arrays in turn (a thread's taps must not read answers), x read as float64
    first where it is neither kind nor float64."""
    gpu = _on_gpu(x)
    got = _contiguous(x)
    if gpu and _dtype_name(got) not in (kind, "float64"):
        got = _astype(got, "float64")
    out = spare = None
    for axis in order:
        k = kernels[axis]
        if k.size == 1 and k[0] == 1.0:
            continue
        w, origin, m = _scipy_line(k, (lines or {}).get(axis))
        if out is None or gpu:
            out = spare if spare is not None else _empty(got, tuple(got.shape), kind)
        _pplab.scipy_order_pass(got, out, axis, w, origin, mode, float(cval), float(m),
                                backend if gpu else "seq" if backend == "seq" else "cpu")
        if gpu and _dtype_name(got) == kind and got is not x:
            spare = got
        got = out
    if out is None:  # nothing to filter: a copy, as SciPy answers a new array
        got = _astype(x, kind)
    return got


def _as_integers(x, kind):
    """Float answers converted to the integer type `kind` as C converts them (SciPy's output):
    toward zero, then modulo the type's range."""
    if _library(x) == "torch":
        import torch
        return x.trunc().to(torch.int64).to(getattr(torch, kind))
    mod = __import__("cupy" if _library(x) == "cupy" else "numpy")
    return mod.trunc(x).astype(mod.int64).astype(kind)


@functools.lru_cache(maxsize=128)
def _gaussian_taps(sigma, truncate, radius, order):
    """gaussian_filter's kernel for one axis, reversed as gaussian_filter1d reverses it and placed
    (_one_sided); kept for the next call with the same arguments (read-only)."""
    import numpy
    k = numpy.asarray(_pplab.gaussian_kernel(sigma, truncate, radius, order))
    taps = _one_sided(k[::-1], "gaussian_filter")
    taps.flags.writeable = False
    return taps


@functools.lru_cache(maxsize=128)
def _uniform_taps(size, origin):
    """uniform_filter's kernel for one axis (size taps of 1 / size, placed; read-only, kept)."""
    import numpy
    taps = _one_sided(numpy.full(size, 1.0 / size), "uniform_filter", origin)
    taps.flags.writeable = False
    return taps


_OUTERS = {}


def _outer(a, b):
    """numpy.outer(a, b) of two kernels, C-contiguous; the last 64 kept (a named filter's mask,
    made again on every call with the same arguments otherwise)."""
    import numpy
    key = (a.tobytes(), b.tobytes())
    mask = _OUTERS.get(key)
    if mask is None:
        if len(_OUTERS) >= 64:
            _OUTERS.clear()
        mask = _OUTERS[key] = numpy.outer(a, b)
        mask.flags.writeable = False
    return mask


def gaussian_filter(input, sigma, order=0, output=None, mode="reflect", cval=0.0, truncate=4.0,
                    *, radius=None, backend=None, variant=None):
    """scipy.ndimage.gaussian_filter for float and integer arrays of any rank: SciPy's kernel
    on each axis (radius int(truncate * sigma + 0.5), or `radius`; normalised to sum 1; an axis
    of sigma 0 left as it is), the axes' kernels run as one separable filter. order= (a number
    or one per axis): the derivatives of the Gaussian, as SciPy builds them."""
    import numpy
    x, _ = _named_filter_input("gaussian_filter", input)
    ndim = len(tuple(x.shape))
    orders = [_check_integer(v, "order", 0) for v in _per_axis(order, ndim, "order")]
    sigmas = [float(_check_number(v, "sigma")) for v in _per_axis(sigma, ndim, "sigma")]
    if builtins.any(not v >= 0 for v in sigmas):
        raise ValueError("gaussian_filter: sigma must be 0 or more")
    radii = _per_axis(radius, ndim, "radius") if radius is not None else [None] * ndim
    kernels = []
    for sd, r, o in zip(sigmas, radii, orders):
        if sd <= 1e-15:  # SciPy leaves such an axis alone (whatever its order)
            kernels.append(numpy.ones(1))
            continue
        r = -1 if r is None else _check_integer(r, "radius", 0)
        kernels.append(_gaussian_taps(sd, float(truncate), r, o))
    return _separable("gaussian_filter", x, kernels, mode, cval, output, backend, variant)


def gaussian_filter1d(input, sigma, axis=-1, order=0, output=None, mode="reflect", cval=0.0,
                      truncate=4.0, *, radius=None, backend=None, variant=None):
    """scipy.ndimage.gaussian_filter1d: gaussian_filter's kernel (SciPy's, of sigma, order,
    truncate or radius) along one axis, the others left as they are. sigma must be more than 0
    (SciPy divides by it)."""
    import numpy
    x, _ = _named_filter_input("gaussian_filter1d", input)
    ndim = len(tuple(x.shape))
    axis = _filter_axis("gaussian_filter1d", axis, ndim)
    sd = float(_check_number(sigma, "sigma"))
    if not sd > 0:
        raise ValueError("gaussian_filter1d: sigma must be more than 0, not %r" % sigma)
    r = -1 if radius is None else _check_integer(radius, "radius", 0)
    kernels = [numpy.ones(1)] * ndim
    kernels[axis] = _gaussian_taps(sd, float(truncate), r, _check_integer(order, "order", 0))
    return _separable("gaussian_filter1d", x, kernels, mode, cval, output, backend, variant)


def uniform_filter1d(input, size, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *,
                     backend=None, variant=None):
    """scipy.ndimage.uniform_filter1d: the mean over `size` values along one axis (even sizes and
    origin= placed as SciPy places them), the others left as they are."""
    import numpy
    x, _ = _named_filter_input("uniform_filter1d", input)
    ndim = len(tuple(x.shape))
    axis = _filter_axis("uniform_filter1d", axis, ndim)
    kernels = [numpy.ones(1)] * ndim
    kernels[axis] = _uniform_taps(_check_integer(size, "size", 1),
                                  _check_integer(origin, "origin", -(1 << 30)))
    return _separable("uniform_filter1d", x, kernels, mode, cval, output, backend, variant)


def _filter_axis(name, axis, ndim):
    """axis as an index in [0, ndim), or a ValueError naming the filter."""
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError("%s: axis %r is out of bounds for an array of %d axes" % (name, axis, ndim))
    return axis % ndim


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, origin=0, *,
                   backend=None, variant=None):
    """scipy.ndimage.uniform_filter for float and integer arrays of any rank: the mean over
    `size` values on each axis (a number or one per axis; even sizes and origin= placed as SciPy
    places them)."""
    x, _ = _named_filter_input("uniform_filter", input)
    ndim = len(tuple(x.shape))
    sizes = [_check_integer(v, "size", 1) for v in _per_axis(size, ndim, "size")]
    origins = _per_axis(origin, ndim, "origin")
    kernels = [_uniform_taps(n, _check_integer(o, "origin", -(1 << 30)))
               for n, o in zip(sizes, origins)]
    return _separable("uniform_filter", x, kernels, mode, cval, output, backend, variant)


def _edge_filter(name, smooth, input, axis, output, mode, cval, backend, variant):
    import numpy
    x, _ = _named_filter_input(name, input)
    ndim = len(tuple(x.shape))
    axis = _filter_axis(name, axis, ndim)
    kernels = [numpy.array(smooth, dtype=numpy.float64)] * ndim
    kernels[axis] = numpy.array([-1.0, 0.0, 1.0])
    # In constant mode SciPy's smoothing passes see cval outside the derivative's result, where
    # one mask would smooth the derivative of cval there, 0: SciPy's passes then, the
    # derivative's first.
    passes = mode == "constant" and _check_number(cval, "cval") != 0
    return _separable(name, x, kernels, mode, cval, output, backend, variant, passes,
                      axis % ndim)


def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0, *, backend=None, variant=None):
    """scipy.ndimage.sobel for float and integer arrays of any rank: the difference [-1, 0, 1]
    along axis, smoothed by [1, 2, 1] along every other."""
    return _edge_filter("sobel", [1.0, 2.0, 1.0], input, axis, output, mode, cval, backend, variant)


def prewitt(input, axis=-1, output=None, mode="reflect", cval=0.0, *, backend=None, variant=None):
    """scipy.ndimage.prewitt for float and integer arrays of any rank: [-1, 0, 1] along axis,
    [1, 1, 1] along every other."""
    return _edge_filter("prewitt", [1.0, 1.0, 1.0], input, axis, output, mode, cval, backend,
                        variant)


def laplace(input, output=None, mode="reflect", cval=0.0, *, backend=None, variant=None):
    """scipy.ndimage.laplace for float and integer arrays of any rank: the second difference
    [1, -2, 1] along each axis (a pass each), the passes added in the output's type."""
    return _summed_passes("laplace", input, output, lambda x, axis, kind: correlate1d(
        x, [1.0, -2.0, 1.0], axis, kind, mode, cval, backend=backend, variant=variant))


def gaussian_laplace(input, sigma, output=None, mode="reflect", cval=0.0, *, truncate=4.0,
                     radius=None, backend=None, variant=None):
    """scipy.ndimage.gaussian_laplace: along each axis the Gaussian's second derivative (and
    the Gaussian along the others: gaussian_filter with order 2 on that axis), added in the
    output's type; sigma a number or one per axis."""
    def second(x, axis, kind):
        order = [2 if a == axis else 0 for a in range(len(tuple(x.shape)))]
        return gaussian_filter(x, sigma, order, kind, mode, cval, truncate, radius=radius,
                               backend=backend, variant=variant)
    return _summed_passes("gaussian_laplace", input, output, second)


def gaussian_gradient_magnitude(input, sigma, output=None, mode="reflect", cval=0.0, *,
                                truncate=4.0, radius=None, backend=None, variant=None):
    """scipy.ndimage.gaussian_gradient_magnitude: the root of the sum over the axes of the
    squared Gaussian first derivatives (gaussian_filter with order 1 on each axis in turn), in
    the output's type."""
    def first(x, axis, kind):
        order = [1 if a == axis else 0 for a in range(len(tuple(x.shape)))]
        return gaussian_filter(x, sigma, order, kind, mode, cval, truncate, radius=radius,
                               backend=backend, variant=variant)
    return _summed_passes("gaussian_gradient_magnitude", input, output, first, squares=True)


def _summed_passes(name, input, output, derivative, squares=False):
    """SciPy's generic_laplace (and, with `squares`, generic_gradient_magnitude): derivative(x,
    axis, kind) for each axis, each in the output's type `kind` (the input's when no output is
    given), added in that type (squared first, and the root taken at the end, with `squares`);
    integers wrap and convert as SciPy's do."""
    import numpy
    x, _ = _named_filter_input(name, input)
    kind = _output_kind(x, output)
    got = None
    for axis in range(len(tuple(x.shape))):
        d = derivative(x, axis, kind)
        if squares:
            d = d * d
        got = d if got is None else got + d
    if squares:
        lib = _library(got)
        mod = __import__(lib) if lib in ("torch", "cupy") else numpy
        if kind in _INTEGER_KINDS:  # the root in double, converted as C converts (SciPy's)
            got = _as_integers(mod.sqrt(_astype(got, "float64")), kind)
        else:
            got = mod.sqrt(got)
    return _deliver(name, got, tuple(x.shape), output)


def correlate1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *,
                backend=None, variant=None):
    """scipy.ndimage.correlate1d for float and integer arrays of any rank: weights along one
    axis, of any length, placed as SciPy places them (an even count, origin=)."""
    import numpy
    x, _ = _named_filter_input("correlate1d", input)
    ndim = len(tuple(x.shape))
    axis = _filter_axis("correlate1d", axis, ndim)
    w = numpy.asarray(_host_weights(weights), dtype=numpy.float64)
    if w.ndim != 1 or w.size == 0:
        raise ValueError("correlate1d: weights must be a 1-D sequence of at least one number")
    if output is None and ndim <= 2 and _dtype_name(x) in ("float32", "float64"):
        # The everyday call, a float array of one or two axes into a new array: one filter call
        # with the line's mask (one row, or one column for axis 0 of a matrix), kept for the next
        # call with the same weights; on a GPU the general path's Python took ~30 us a call.
        cval, backend, variant = _check_filter_args(mode, cval, backend, variant)
        down = ndim == 2 and axis == 0
        key = (w.tobytes(), origin, down)
        mask = _LINE_MASKS.get(key)
        if mask is None:
            k = _one_sided(w, "correlate1d", origin)
            mask = k.reshape(-1, 1) if down else k.reshape(1, -1)
            mask.flags.writeable = False
            if len(_LINE_MASKS) >= 64:
                _LINE_MASKS.clear()
            _LINE_MASKS[key] = mask
        if mask.size <= _LINE_TAPS:
            if ndim == 2:
                return _correlated(x, mask, mode, cval, backend, variant)
            return _correlated(x.reshape(1, -1), mask, mode, cval, backend, variant).reshape(-1)
    kernels = [numpy.ones(1)] * ndim
    kernels[axis] = _one_sided(w, "correlate1d", origin)
    return _separable("correlate1d", x, kernels, mode, cval, output, backend, variant,
                      lines={axis: (w, origin)})


_LINE_MASKS = {}  # correlate1d's masks by (weights, origin, down), the last 64


def convolve1d(input, weights, axis=-1, output=None, mode="reflect", cval=0.0, origin=0, *,
               backend=None, variant=None):
    """scipy.ndimage.convolve1d: correlate1d with the weights reversed (an even count shifted as
    SciPy shifts it)."""
    import numpy
    w = numpy.asarray(_host_weights(weights), dtype=numpy.float64)[::-1]
    origin = -_check_integer(origin, "origin", -(1 << 30)) - (1 - w.size % 2)  # SciPy's rule
    return correlate1d(input, w, axis, output, mode, cval, origin, backend=backend,
                       variant=variant)


def lab(pattern=None, *, backend=None, quick=True, size=None, rungs=(), budget_s=1.0,
        progress=False, table=False, chart=None):
    """Runs pplab's lab (as `pplab lab`): every rung of the pattern (or of all) on this machine,
    verified and timed beside its ceilings and the vendor baselines. Returns the record as a
    dict (the JSON of `pplab lab --json`); writes the SVG chart to `chart` if given, prints the
    table if `table`. size: 'quick' (the default), 'full' or 'tiny'."""
    import json
    import numbers
    _check_pattern(pattern)
    backend = _check_backend(backend)
    if isinstance(rungs, str):
        rungs = (rungs,)
    rungs = list(rungs)
    for r in rungs:
        if not isinstance(r, str):
            raise TypeError("rungs must be strs (parts of rung ids), not %s" % _type_name(r))
    if isinstance(budget_s, bool) or not isinstance(budget_s, numbers.Real):
        raise TypeError("budget_s must be a number of seconds, not %s" % _type_name(budget_s))
    if size is not None and not isinstance(size, str):
        raise TypeError("size must be 'quick', 'full' or 'tiny', not %s" % _type_name(size))
    if chart is not None and not isinstance(chart, str):
        chart = str(chart)  # a pathlib.Path
    scale = size or ("quick" if quick else "full")
    return json.loads(_pplab.lab(pattern, backend, scale, rungs, float(budget_s),
                                 bool(progress), bool(table), chart))


def backends():
    """Every backend, whether this build and machine can run it, and why not."""
    return {name: {"available": ok, "reason": why} for name, ok, why in _pplab.backends()}


def rungs(pattern=None):
    """The registered rungs (of one pattern: 'reduce', 'histogram', 'matmul', 'convolution')."""
    _check_pattern(pattern)
    return _pplab.rungs(pattern)
