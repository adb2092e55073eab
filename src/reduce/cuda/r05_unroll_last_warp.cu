// reduce/cuda/r05_unroll_last_warp: r04, but once 32 threads remain the tree continues inside
// one warp without __syncthreads(): the last 6 steps need no block barrier and no `if (t < s)`
// test per step. Since Volta, threads of a warp are scheduled independently, so the classic
// `volatile` version is a race; here each step reads into a register, __syncwarp(), writes,
// __syncwarp() (last_warp_tree in per_block.cuh): warp-synchronous and racecheck-clean.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 0.4916 ms,
// 2184 GB/s (45% of theoretical); 2^24: 0.0436 ms.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr int B = 256;

template <class T, op O>
__global__ void __launch_bounds__(B)
    unroll_last_warp(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial) {
  using A = acc_t<T, O>;
  __shared__ A s[B];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * 2 * B + t;
  A v = i < n ? lift<T, O>(in[i], i) : identity<T, O>();
  if (i + B < n) v = combine<T, O>(v, lift<T, O>(in[i + B], i + B));
  s[t] = v;
  __syncthreads();
  for (unsigned stride = B / 2; stride > 32; stride /= 2) {
    if (t < stride) s[t] = combine<T, O>(s[t], s[t + stride]);
    __syncthreads();
  }
  if (t < 32) {
    v = last_warp_tree<T, O>(s, t, s[t]);
    if (t == 0) partial[blockIdx.x] = v;
  }
}

struct rung : tile_rung<rung, B, 2 * B> {
  template <class T, op O> static auto kernel() { return unroll_last_warp<T, O>; }
};

}  // namespace

extern const reduce_rung r05_unroll_last_warp{
    .info = {.step = 5, .summary = "last warp without block barriers (__syncwarp)"},
    .can_run = supports<dtypes::wide>,
    .scratch_bytes = [](const reduce_problem& p) { return rung::scratch(p); },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::wide>(c); },
};

}  // namespace pplab::detail::reduce_cuda
