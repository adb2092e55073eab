// reduce/cuda/r08_warp_shuffle: r07's grid-stride loop, then the tree inside each warp by
// register shuffles (__shfl_down_sync: a thread reads a register of the thread `d` lanes over)
// instead of shared memory: no shared-memory traffic, no barriers inside the warp. Shared memory
// only carries the 8 warp results to the first warp, with one barrier.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 0.4318 ms,
// 2487 GB/s (52% of theoretical); 2^24: 0.0420 ms.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr unsigned B = 256;

template <class T, op O>
__global__ void __launch_bounds__(B)
    shuffle(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial) {
  using A = acc_t<T, O>;
  const std::size_t threads = std::size_t(gridDim.x) * B;
  A v = identity<T, O>();
  for (std::size_t i = std::size_t(blockIdx.x) * B + threadIdx.x; i < n; i += threads)
    v = combine<T, O>(v, lift<T, O>(in[i], i));
  v = block_reduce<T, O, B>(v);
  if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

template <class T, op O> std::size_t grid(std::size_t n) {
  static const std::size_t resident = resident_blocks(shuffle<T, O>, B);
  return std::min(resident, std::max<std::size_t>(1, ceil_div(n, B * 8)));
}

struct rung {
  static constexpr bool args = true;
  template <class T, op O>
  static void run(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                  cudaStream_t s) {
    launch_then_combine<T, O>(shuffle<T, O>, grid<T, O>(n), B, in, n, scratch, out, mean_n, s);
  }
};

}  // namespace

extern const reduce_rung r08_warp_shuffle{
    .info = {.step = 8, .summary = "warp shuffles; shared memory only between warps"},
    .can_run = supports<dtypes::wide, true>,
    .scratch_bytes = [](const reduce_problem&) { return bytes_for_partials(64 * 256); },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::wide>(c); },
};

}  // namespace pplab::detail::reduce_cuda
