// reduce/cuda/r07_grid_stride_cascade: algorithm cascading. Launch only as many blocks as the GPU
// holds at once and let each thread first reduce many elements sequentially in a grid-stride
// loop (coalesced: a warp reads 32 neighbours each time), then run r06's tree once. The tree's
// log-step overhead and the block launches are paid once per resident thread instead of once
// per pair of elements, and the partials shrink from n/512 to a few thousand.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 0.4304 ms,
// 2495 GB/s (52% of theoretical); 2^24: 0.0421 ms.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr unsigned B = 256;

template <class T, op O>
__global__ void __launch_bounds__(B)
    cascade(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial) {
  using A = acc_t<T, O>;
  __shared__ A s[B];
  const unsigned t = threadIdx.x;
  const std::size_t threads = std::size_t(gridDim.x) * B;
  A v = identity<T, O>();
  for (std::size_t i = std::size_t(blockIdx.x) * B + t; i < n; i += threads)
    v = combine<T, O>(v, lift<T, O>(in[i], i));
  s[t] = v;
  __syncthreads();
#pragma unroll
  for (unsigned stride = B / 2; stride > 32; stride /= 2) {
    if (t < stride) s[t] = v = combine<T, O>(v, s[t + stride]);
    __syncthreads();
  }
  if (t < 32) {
    v = last_warp_tree<T, O>(s, t, v);
    if (t == 0) partial[blockIdx.x] = v;
  }
}

template <class T, op O> std::size_t grid(std::size_t n) {
  static const std::size_t resident = resident_blocks(cascade<T, O>, B);
  return std::min(resident, std::max<std::size_t>(1, ceil_div(n, B * 8)));
}

struct rung {
  template <class T, op O>
  static void run(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                  cudaStream_t s) {
    launch_then_combine<T, O>(cascade<T, O>, grid<T, O>(n), B, in, n, scratch, out, mean_n, s);
  }
};

}  // namespace

extern const reduce_rung r07_grid_stride_cascade{
    .info = {.step = 7, .summary = "resident grid, many elements per thread (cascading)"},
    .can_run = supports<dtypes::wide>,
    .scratch_bytes =
        [](const reduce_problem&) {
          // Resident blocks never exceed 64 per SM x 256 SMs: scratch for that many partials.
          return bytes_for_partials(64 * 256);
        },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::wide>(c); },
};

}  // namespace pplab::detail::reduce_cuda
