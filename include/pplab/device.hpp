#pragma once
// Data that already lives in GPU memory, reduced where it is: no copy to or from the host
// except the answer. (Host arrays passed to the cuda backend are streamed to the GPU in
// chunks through pinned buffers, copies overlapped with compute, whatever their size.)
#include <cstddef>
#include <ranges>

#include "reduce.hpp"

namespace pplab {

// A pointer to n elements of device memory (from cudaMalloc, or a framework's tensor).
template <class T> struct device_span {
  const T* data = nullptr;
  std::size_t size = 0;
};

// The run-time entry point: device_data is device memory holding n elements of type t.
scalar reduce_device(dtype t, const void* device_data, std::size_t n, op o);

template <class T, op O> reduce_result_t<T, O> reduce(cuda_t, device_span<T> d, op_tag<O>) {
  return reduce_device(dtype_of<std::remove_cv_t<T>>(), d.data, d.size, O)
      .template as<reduce_result_t<std::remove_cv_t<T>, O>>();
}

}  // namespace pplab
