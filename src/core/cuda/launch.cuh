#pragma once
// Launch helpers: how many blocks of a kernel the GPU holds at once (a grid-stride kernel's grid).
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

// Blocks of `threads` threads of `kernel` resident on the whole GPU at once.
template <class Kernel> unsigned resident_blocks(Kernel kernel, int threads) {
  int per_sm = 0;
  PPLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return unsigned(sm_count() * (per_sm > 0 ? per_sm : 1));
}

}  // namespace pplab::detail
