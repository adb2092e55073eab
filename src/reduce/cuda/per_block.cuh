#pragma once
// The frame of rungs r01..r09: a kernel writes one partial per block, then the partials are
// combined by further launches (the notes' "the host code may iterate and launch another kernel").
#include <algorithm>

#include "reduce/cuda/reduce_cuda.cuh"

namespace pplab::detail::gpu_reduce {

template <class T, op O, class Kernel>
void launch_then_combine(Kernel kernel, std::size_t blocks, int threads, const T* in, std::size_t n,
                         void* scratch, scalar* out, std::size_t mean_n, cudaStream_t s) {
  using A = acc_t<T, O>;
  A* partials = static_cast<A*>(scratch);
  A* spare = partials + blocks;
  if (n == 0) blocks = 0;
  if (blocks) {
    kernel<<<unsigned(blocks), threads, 0, s>>>(in, n, partials);
    PPLAB_CUDA_LAUNCHED();
  }
  combine_partials<T, O>(partials, blocks, spare, out, mean_n, s);
}

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

}  // namespace pplab::detail::gpu_reduce
