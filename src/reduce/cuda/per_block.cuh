#pragma once
// The frame of rungs r01..r09: a kernel writes one partial per block, then the partials are
// combined by further launches (the reduction notes' "the host code may iterate and launch another
// kernel").
#include <algorithm>

#include "reduce/cuda/reduce_cuda.cuh"

namespace pplab::detail::reduce_cuda {

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

// The frame of r01..r06: one tile of `tile` elements per block of `threads` threads, the
// partials combined by further launches. A rung only names its kernel:
//   struct rung : tile_rung<rung, 256, 512> {
//     template <class T, op O> static auto kernel() { return first_add<T, O>; }
//   };
template <class Rung, unsigned threads, std::size_t tile> struct tile_rung {
  template <class T, op O>
  static void run(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                  cudaStream_t s) {
    launch_then_combine<T, O>(Rung::template kernel<T, O>(), ceil_div(n, tile), threads, in, n,
                              scratch, out, mean_n, s);
  }
  static std::size_t scratch(const reduce_problem& p) {
    return bytes_for_partials(ceil_div(p.n, tile));
  }
};

// The last six steps of a shared-memory tree inside the first warp (r05 onward): no block
// barrier, each step reads into a register, __syncwarp(), writes, __syncwarp(), which keeps it
// correct under independent thread scheduling. `v` must equal s[t]; returns the block's value
// in thread 0.
template <class T, op O>
__device__ inline acc_t<T, O> last_warp_tree(acc_t<T, O>* s, unsigned t, acc_t<T, O> v) {
#pragma unroll
  for (unsigned offset = 32; offset > 0; offset /= 2) {
    v = combine<T, O>(v, s[t + offset]);
    __syncwarp();
    s[t] = v;
    __syncwarp();
  }
  return v;
}

// r09's kernel, which r10 reuses: 16-byte loads over a resident grid, then shuffles.
template <class T, op O, unsigned B, int unroll>
__global__ void __launch_bounds__(B)
    vector_partials(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial) {
  const std::size_t threads = std::size_t(gridDim.x) * B;
  auto v =
      thread_reduce_vec<T, O, unroll>(in, n, std::size_t(blockIdx.x) * B + threadIdx.x, threads);
  v = block_reduce<T, O, B>(v);
  if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

}  // namespace pplab::detail::reduce_cuda
