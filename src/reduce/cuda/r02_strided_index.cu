// reduce/cuda/r02_strided_index: the same tree, but thread t works at index 2*stride*t, so the
// active threads are the first ones of the block and whole warps retire together: no divergence
// until fewer than 32 threads remain. The price: at stride s the threads of a warp touch shared
// memory 2*s words apart, so they land in the same bank and the accesses serialize
// (bank conflicts, up to 16-way).
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 1.9112 ms,
// 562 GB/s (12% of theoretical); 2^24: 0.1291 ms.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr int B = 256;

template <class T, op O>
__global__ void __launch_bounds__(B)
    strided(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial) {
  using A = acc_t<T, O>;
  __shared__ A s[B];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * B + t;
  s[t] = i < n ? lift<T, O>(in[i], i) : identity<T, O>();
  __syncthreads();
  for (unsigned stride = 1; stride < B; stride *= 2) {
    const unsigned index = 2 * stride * t;
    if (index < B) s[index] = combine<T, O>(s[index], s[index + stride]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

struct rung : tile_rung<rung, B, B> {
  template <class T, op O> static auto kernel() { return strided<T, O>; }
};

}  // namespace

extern const reduce_rung r02_strided_index{
    .info = {.step = 2, .summary = "index 2*stride*t: no divergence, bank conflicts"},
    .can_run = supports<dtypes::wide>,
    .scratch_bytes = [](const reduce_problem& p) { return rung::scratch(p); },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::wide>(c); },
};

}  // namespace pplab::detail::reduce_cuda
