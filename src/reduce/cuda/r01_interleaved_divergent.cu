// reduce/cuda/r01_interleaved_divergent: the reduction notes' first kernel. Each thread loads one
// element into shared memory; at each step the threads whose index is a multiple of 2*stride add
// the element `stride` away. Half the threads of every warp drop out at the first step and more at
// each step after, but a warp runs both sides of the `if` (divergence), and `%` is slow.
// Work: n-1 operations in log2(256) = 8 steps per block, every thread alive for all of them.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 1.4992 ms,
// 716 GB/s (15% of theoretical); 2^24: 0.1044 ms.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr int B = 256;

template <class T, op O>
__global__ void __launch_bounds__(B)
    interleaved(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial) {
  using A = acc_t<T, O>;
  __shared__ A s[B];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * B + t;
  s[t] = i < n ? lift<T, O>(in[i], i) : identity<T, O>();
  __syncthreads();
  for (unsigned stride = 1; stride < B; stride *= 2) {
    if (t % (2 * stride) == 0) s[t] = combine<T, O>(s[t], s[t + stride]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

struct rung : tile_rung<rung, B, B> {
  template <class T, op O> static auto kernel() { return interleaved<T, O>; }
};

}  // namespace

extern const reduce_rung r01_interleaved_divergent{
    .info = {.step = 1, .summary = "shared-memory tree, t % (2*stride): divergent warps"},
    .can_run = supports<dtypes::wide>,
    .scratch_bytes = [](const reduce_problem& p) { return rung::scratch(p); },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::wide>(c); },
};

}  // namespace pplab::detail::reduce_cuda
