# Type stubs of the pplab package (python/pplab/__init__.py): what editors complete.
from typing import Any, List, Literal, Optional, Sequence, Tuple, Union

import numpy

# A NumPy, CuPy or PyTorch array, or anything with the buffer protocol, __dlpack__ or
# __cuda_array_interface__; results come back in the same library's type.
Array = Any
Backend = Literal["seq", "cpu", "cuda", "mpi"]
Mode = Literal["reflect", "constant", "nearest", "mirror", "wrap", "grid-mirror", "grid-constant",
               "grid-wrap"]

# axis=k (or a tuple, each reduced in turn): one answer per line along the axes (host arrays any
# axis, GPU arrays the last), an array in x's library on x's device; keepdims=True keeps the axes
# with length one; dtype= NumPy's answer type; out= an array the answer is written into.
Axis = Optional[Union[int, Tuple[int, ...]]]
Answer = Union[int, float, Array]
def reduce(x: Array, op: Literal["sum", "prod", "product", "min", "max", "mean", "argmin",
                                 "argmax"], *,
           axis: Axis = ..., dtype: Any = ..., out: Optional[Array] = ..., keepdims: bool = ...,
           backend: Optional[Backend] = ..., variant: Optional[str] = ...,
           exact: bool = ...) -> Answer: ...
# exact=True (sum, mean of float host arrays, whole): the exact sum rounded once (math.fsum's).
def sum(x: Array, axis: Axis = ..., dtype: Any = ..., out: Optional[Array] = ...,
        keepdims: bool = ..., *, backend: Optional[Backend] = ...,
        variant: Optional[str] = ..., exact: bool = ...) -> Answer: ...
def prod(x: Array, axis: Axis = ..., dtype: Any = ..., out: Optional[Array] = ...,
         keepdims: bool = ..., *, backend: Optional[Backend] = ...,
         variant: Optional[str] = ...) -> Answer: ...
def min(x: Array, axis: Axis = ..., out: Optional[Array] = ..., keepdims: bool = ..., *,
        backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Answer: ...
def max(x: Array, axis: Axis = ..., out: Optional[Array] = ..., keepdims: bool = ..., *,
        backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Answer: ...
def mean(x: Array, axis: Axis = ..., dtype: Any = ..., out: Optional[Array] = ...,
         keepdims: bool = ..., *, backend: Optional[Backend] = ...,
         variant: Optional[str] = ..., exact: bool = ...) -> Answer: ...
def var(x: Array, axis: Axis = ..., dtype: Any = ..., out: Optional[Array] = ...,
        ddof: float = ..., keepdims: bool = ..., *, backend: Optional[Backend] = ...,
        variant: Optional[str] = ...) -> Answer: ...
def std(x: Array, axis: Axis = ..., dtype: Any = ..., out: Optional[Array] = ...,
        ddof: float = ..., keepdims: bool = ..., *, backend: Optional[Backend] = ...,
        variant: Optional[str] = ...) -> Answer: ...
# The index of the first extreme element (the first NaN wins): a Python int, or int64 answers
# along one axis.
def argmin(x: Array, axis: Optional[int] = ..., out: Optional[Array] = ..., *,
           keepdims: bool = ..., backend: Optional[Backend] = ...,
           variant: Optional[str] = ...) -> Answer: ...
def argmax(x: Array, axis: Optional[int] = ..., out: Optional[Array] = ..., *,
           keepdims: bool = ..., backend: Optional[Backend] = ...,
           variant: Optional[str] = ...) -> Answer: ...
def ptp(x: Array, axis: Axis = ..., out: Optional[Array] = ..., keepdims: bool = ..., *,
        backend: Optional[Backend] = ...) -> Answer: ...
def histogram(a: Array, bins: Union[int, str, Array] = ...,
              range: Optional[Tuple[float, float]] = ...,
              weights: Optional[Array] = ..., density: bool = ..., *,
              backend: Optional[Backend] = ...,
              variant: Optional[str] = ...) -> Tuple[Array, numpy.ndarray]: ...
def histogram2d(x: Array, y: Array, bins: Any = ..., range: Any = ...,
                weights: Optional[Array] = ..., density: bool = ..., *,
                backend: Optional[Backend] = ...,
                variant: Optional[str] = ...) -> Tuple[Array, numpy.ndarray, numpy.ndarray]: ...
def histogramdd(sample: Any, bins: Any = ..., range: Any = ..., density: Optional[bool] = ...,
                weights: Optional[Array] = ..., *, backend: Optional[Backend] = ...,
                variant: Optional[str] = ...) -> Tuple[Array, List[numpy.ndarray]]: ...
def bincount(x: Array, weights: Optional[Array] = ..., minlength: int = ..., *,
             backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Array: ...
def histogram_channels(image: Array, *, backend: Optional[Backend] = ...) -> Array: ...
def dot(a: Array, b: Array, out: Optional[Array] = ..., *,
        precision: Literal["strict", "split_tf32"] = ..., backend: Optional[Backend] = ...,
        variant: Optional[str] = ...) -> Union[Array, float]: ...
def matmul(a: Array, b: Array, out: Optional[Array] = ..., *,
           precision: Literal["strict", "split_tf32"] = ..., backend: Optional[Backend] = ...,
           variant: Optional[str] = ...) -> Union[Array, float]: ...
def correlate(image: Array, weights: Any, mode: Mode = ..., cval: float = ..., *,
              output: Any = ..., precision: Literal["strict", "split_tf32"] = ...,
              backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Array: ...
def convolve(image: Array, weights: Any, mode: Mode = ..., cval: float = ..., *,
             output: Any = ..., precision: Literal["strict", "split_tf32"] = ...,
             backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Array: ...
# scipy.ndimage's named filters: 1-D and 2-D float32/float64 arrays, at most 31 taps per axis.
def gaussian_filter(input: Array, sigma: Any, order: Any = ..., output: Any = ..., mode: Mode = ...,
                    cval: float = ..., truncate: float = ..., *, radius: Any = ...,
                    backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Array: ...
def uniform_filter(input: Array, size: Any = ..., output: Any = ..., mode: Mode = ...,
                   cval: float = ..., origin: Any = ..., *, backend: Optional[Backend] = ...,
                   variant: Optional[str] = ...) -> Array: ...
def gaussian_filter1d(input: Array, sigma: float, axis: int = ..., order: int = ...,
                      output: Any = ..., mode: Mode = ..., cval: float = ...,
                      truncate: float = ..., *, radius: Optional[int] = ...,
                      backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Array: ...
def uniform_filter1d(input: Array, size: int, axis: int = ..., output: Any = ..., mode: Mode = ...,
                     cval: float = ..., origin: int = ..., *, backend: Optional[Backend] = ...,
                     variant: Optional[str] = ...) -> Array: ...
def sobel(input: Array, axis: int = ..., output: Any = ..., mode: Mode = ..., cval: float = ...,
          *, backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Array: ...
def prewitt(input: Array, axis: int = ..., output: Any = ..., mode: Mode = ..., cval: float = ...,
            *, backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Array: ...
def laplace(input: Array, output: Any = ..., mode: Mode = ..., cval: float = ..., *,
            backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Array: ...
def gaussian_laplace(input: Array, sigma: Any, output: Any = ..., mode: Mode = ...,
                     cval: float = ..., *, truncate: float = ..., radius: Any = ...,
                     backend: Optional[Backend] = ..., variant: Optional[str] = ...) -> Array: ...
def gaussian_gradient_magnitude(input: Array, sigma: Any, output: Any = ..., mode: Mode = ...,
                                cval: float = ..., *, truncate: float = ..., radius: Any = ...,
                                backend: Optional[Backend] = ...,
                                variant: Optional[str] = ...) -> Array: ...
def correlate1d(input: Array, weights: Any, axis: int = ..., output: Any = ..., mode: Mode = ...,
                cval: float = ..., origin: int = ..., *, backend: Optional[Backend] = ...,
                variant: Optional[str] = ...) -> Array: ...
def convolve1d(input: Array, weights: Any, axis: int = ..., output: Any = ..., mode: Mode = ...,
               cval: float = ..., origin: int = ..., *, backend: Optional[Backend] = ...,
               variant: Optional[str] = ...) -> Array: ...
def lab(pattern: Optional[str] = ..., *, backend: Optional[str] = ..., quick: bool = ...,
        size: Optional[Literal["quick", "full", "tiny"]] = ..., rungs: Sequence[str] = ...,
        budget_s: float = ..., progress: bool = ..., table: bool = ...,
        chart: Optional[str] = ...) -> dict: ...
def backends() -> dict: ...
def rungs(pattern: Optional[str] = ...) -> list: ...
