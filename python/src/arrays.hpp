#pragma once
// Arrays handed in from Python, taken where they lie, without a copy: through the buffer
// protocol (NumPy arrays, read-only ones included), DLPack (__dlpack__ and __dlpack_device__:
// NumPy >= 1.22, CuPy, PyTorch and every array library of the standard) or
// __cuda_array_interface__ (for GPU arrays without DLPack). The view keeps the producer's memory
// alive until it is dropped.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pplab/dtype.hpp"

namespace pplab::python {

namespace py = pybind11;

struct array_view {
  void* data = nullptr;
  dtype type = dtype::f32;
  std::vector<std::int64_t> shape, strides;  // strides in elements
  bool on_gpu = false;
  int device = 0;         // the GPU's ordinal when on_gpu
  bool writable = false;  // the producer allows writes
  // __cuda_array_interface__'s stream, whose work must be done before pplab reads (0: none)
  std::uintptr_t producer_stream = 0;
  std::shared_ptr<void> keep;

  std::size_t size() const;
  std::size_t ndim() const { return shape.size(); }
  bool c_contiguous() const;
  // The row stride (in elements) of a 2-D array whose rows are contiguous; else a ValueError
  // naming `what`.
  std::size_t row_stride(const std::string& what) const;
};

// `stream`: the CUDA stream pplab will read a GPU array on (the DLPack producer makes its
// pending work visible there); ignored for host arrays. `what` names the argument in errors.
array_view view_of(py::handle obj, std::uintptr_t stream, const std::string& what);

// The same, for an array pplab writes into (refused when read-only).
array_view writable_view_of(py::handle obj, std::uintptr_t stream, const std::string& what);

// Whether obj is a PyTorch tensor (its type's module is torch's).
// A NumPy array (or a subclass): host memory, read through the buffer protocol, never asked
// for its DLPack device (a Python call, which cost ~0.3 us an operand on small products).
bool is_numpy_array(py::handle obj);

bool is_torch_tensor(py::handle obj);

// The library whose current stream pplab now runs on ("torch", "cupy"; empty: none), as the
// Python layer sets it beside the stream: a PyTorch CUDA tensor is then read through its own
// accessors, not exported through DLPack (see arrays.cpp).
void set_stream_library(std::string library);

// A ValueError unless the array is C-contiguous ("numpy.ascontiguousarray(x)" says the fix).
void require_contiguous(const array_view& a, const std::string& what);

}  // namespace pplab::python
