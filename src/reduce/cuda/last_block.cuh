#pragma once
// The single-pass kernel of r12, with its tunables as template parameters (bench/tune_reduce
// times the combinations): `unroll` 16-byte loads in flight per thread, the load path, the
// independent accumulators per thread, and how many blocks per SM the grid holds.
#include <algorithm>

#include "reduce/cuda/reduce_cuda.cuh"

namespace pplab::detail::reduce_cuda {

constexpr std::size_t last_block_max_blocks = 64 * 256;
constexpr std::size_t last_block_scratch = 256 + last_block_max_blocks * max_acc_bytes;

// Writes the answer, in the last block's thread 0 (the moments' mean with the shift back on).
template <class T, op O> struct store_answer {
  scalar* out;
  std::size_t mean_n;
  double shift;
  __device__ void operator()(acc_t<T, O> v) const {
    store(out, shifted_back<T, O>(v, shift), mean_n);
  }
};

// Each thread folds its share with vector loads, the block reduces, and the toolbox's
// last_block_combine lets the block that finishes last reduce all partials in block order.
// var's and std's moments are of the values less the shift every thread reads (shift_for).
template <class T, op O, unsigned B, int unroll, load L, int lanes>
__global__ void __launch_bounds__(B)
    last_block(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial, unsigned* tickets,
               scalar* out, std::size_t mean_n) {
  using A = acc_t<T, O>;
  const std::size_t threads = std::size_t(gridDim.x) * B;
  const double shift = shift_for<T, O>(in, n);
  A v = thread_reduce_vec<T, O, unroll, L, lanes>(in, n, std::size_t(blockIdx.x) * B + threadIdx.x,
                                                  threads, shift);
  v = block_reduce<T, O, B>(v);
  last_block_combine<B>(v, op_combine<T, O>{}, identity<T, O>(), partial, tickets,
                        store_answer<T, O>{out, mean_n, shift});
}

// Launches over `scratch` (last_block_scratch bytes, the first 256 zero): a grid of resident
// blocks times `grid_scale`, fewer when n is small.
template <class T, op O, unsigned B, int unroll, load L, int lanes = 1, int grid_scale = 1>
void launch_last_block(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                       cudaStream_t s) {
  using A = acc_t<T, O>;
  static const std::size_t resident =
      resident_blocks(last_block<T, O, B, unroll, L, lanes>, B) * grid_scale;
  const std::size_t per_block = B * (16 / sizeof(T)) * unroll;
  const std::size_t blocks = std::min(
      {resident, last_block_max_blocks, std::max<std::size_t>(1, (n + per_block - 1) / per_block)});
  auto* tickets = static_cast<unsigned*>(scratch);
  auto* partials = reinterpret_cast<A*>(static_cast<char*>(scratch) + 256);
  last_block<T, O, B, unroll, L, lanes>
      <<<unsigned(blocks), B, 0, s>>>(in, n, partials, tickets, out, mean_n);
  PPLAB_CUDA_LAUNCHED();
}

}  // namespace pplab::detail::reduce_cuda
