// reduce/cuda/r04_first_add_during_load: the reduction notes' "each thread loads two elements": a
// block covers 2*blockDim.x elements and each thread adds its pair while loading, so no thread sits
// idle after the load and half as many blocks are launched. Same tree as r03.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 0.6648 ms,
// 1615 GB/s (34% of theoretical); 2^24: 0.0531 ms.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr int B = 256;

template <class T, op O>
__global__ void __launch_bounds__(B)
    first_add(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial) {
  using A = acc_t<T, O>;
  __shared__ A s[B];
  const unsigned t = threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.x) * 2 * B + t;
  A v = i < n ? lift<T, O>(in[i], i) : identity<T, O>();
  if (i + B < n) v = combine<T, O>(v, lift<T, O>(in[i + B], i + B));
  s[t] = v;
  __syncthreads();
  for (unsigned stride = B / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] = combine<T, O>(s[t], s[t + stride]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

struct rung : tile_rung<rung, B, 2 * B> {
  template <class T, op O> static auto kernel() { return first_add<T, O>; }
};

}  // namespace

extern const reduce_rung r04_first_add_during_load{
    .info = {.step = 4, .summary = "two elements per thread, added while loading"},
    .can_run = supports<dtypes::wide>,
    .scratch_bytes = [](const reduce_problem& p) { return rung::scratch(p); },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::wide>(c); },
};

}  // namespace pplab::detail::reduce_cuda
