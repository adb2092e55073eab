#pragma once
// Memory a caller already holds on a GPU, named without CUDA's headers: one span, or one part per
// GPU for the nccl backend (pplab/device.hpp takes them).
#include <cstddef>

namespace pplab {

// A pointer to n elements of device memory (from cudaMalloc, or a framework's tensor).
template <class T> struct device_span {
  const T* data = nullptr;
  std::size_t size = 0;
};

// One part of data spread over several GPUs, its element type given beside it.
struct device_part {
  const void* data = nullptr;
  std::size_t size = 0;  // elements
};

}  // namespace pplab
