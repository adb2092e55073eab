// reduce/cuda/r03_sequential_addressing: the reduction notes' better kernel. The stride starts at
// half the block and halves; thread t < stride adds s[t + stride]. The active threads stay
// consecutive (thread compaction: no divergence until the last warp) and a warp reads 32
// consecutive words (no bank conflicts). Still, half the threads do nothing after their load, and
// the last 5 steps run one warp with barriers between them. Measured (H200,
// bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 1.2387 ms, 867 GB/s (18% of
// theoretical); 2^24: 0.0895 ms.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr int B = 256;

template <class T, op O>
__global__ void __launch_bounds__(B)
    sequential(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial) {
  using A = acc_t<T, O>;
  __shared__ A s[B];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * B + t;
  s[t] = i < n ? lift<T, O>(in[i], i) : identity<T, O>();
  __syncthreads();
  for (unsigned stride = B / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] = combine<T, O>(s[t], s[t + stride]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

struct rung : tile_rung<rung, B, B> {
  static constexpr bool args = true;
  template <class T, op O> static auto kernel() { return sequential<T, O>; }
};

}  // namespace

extern const reduce_rung r03_sequential_addressing{
    .info = {.step = 3, .summary = "stride halving from blockDim.x: compact, conflict-free"},
    .can_run = supports<dtypes::wide, true>,
    .scratch_bytes = [](const reduce_problem& p) { return rung::scratch(p); },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::wide>(c); },
};

}  // namespace pplab::detail::reduce_cuda
