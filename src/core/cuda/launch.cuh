#pragma once
// Launch helpers: how many blocks of a kernel the GPU holds at once (a grid-stride kernel's grid),
// and shared memory past the default 48 KiB per block.
#include <cstddef>

#include "core/cuda/check.cuh"
#include "core/executor.hpp"

namespace pplab::detail {

inline int sm_count() {
  static const int sms = [] {
    int dev = 0, n = 0;
    PPLAB_CUDA(cudaGetDevice(&dev));
    PPLAB_CUDA(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  return sms;
}

// Blocks of `threads` threads of `kernel` resident on the whole GPU at once, each with `shared`
// bytes of dynamic shared memory (past 48 KiB: allowed first, allow_shared).
template <class Kernel>
unsigned resident_blocks(Kernel kernel, int threads, std::size_t shared = 0) {
  int per_sm = 0;
  PPLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared));
  return unsigned(sm_count() * (per_sm > 0 ? per_sm : 1));
}

// Shared memory one block may have (the opt-in maximum), 48 KiB if the device cannot be asked.
inline std::size_t max_shared_per_block() {
  static const std::size_t bytes = [] {
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
        v <= 0) {
      (void)cudaGetLastError();
      return std::size_t(48) << 10;
    }
    return std::size_t(v);
  }();
  return bytes;
}

// Whether `kernel` was built for sm_`version` or later (90: sm_90), so that the instructions of
// that architecture it uses (tensor cores, cp.async, the copy engine) run here; false where no
// GPU answers.
template <class Kernel> bool kernel_built_for(Kernel kernel, int version = 90) {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.binaryVersion >= version;
}

// Lets `kernel` take `bytes` of dynamic shared memory (above 48 KiB it must opt in).
template <class Kernel> void allow_shared(Kernel kernel, std::size_t bytes) {
  if (bytes > (std::size_t(48) << 10))
    PPLAB_CUDA(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

}  // namespace pplab::detail
