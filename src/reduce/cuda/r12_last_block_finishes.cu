// reduce/cuda/r12_last_block_finishes: one launch, deterministic. Each block writes its partial,
// makes it visible to the whole GPU (__threadfence), then takes a ticket from a counter; the
// block that draws the last ticket knows every partial is written and reduces them, in block
// order with a fixed tree, then puts the counter back to zero for the next launch. No second
// launch, no host round trip, no order-dependent atomics: the same bits on every run of the
// same n on the same GPU. The grid is sized to the GPU (every block resident), so the last
// block's pass over the partials is a few thousand loads.
// Settings (bench/tune_reduce on an H200, random data, L2 flushed; the run is in
// bench/results/h200-2026-11-21-tune-reduce.txt): up to 256 MiB the loads are marked streaming
// with two accumulators per thread (2^24 f32: 0.0242 ms against 0.0276 with read-only loads);
// past that, read-only loads and one accumulator (2^28 f32: 0.2531 ms against 0.2651 streaming).
// What limits it: DRAM bandwidth, like r09, minus r09's second launch.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 0.2531 ms,
// 4242 GB/s (88% of theoretical); 2^24: 0.0238 ms. The API's rung for var and std too: each
// vector's elements merged into the thread's (count, mean, squared deviations) at once
// (reduce_cuda.cuh): f32 var of 2^28 0.260 ms, 95% of the read ceiling (a merge a value: 0.388).
#include "reduce/cuda/last_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

struct rung {
  static constexpr bool args = true;
  static constexpr bool moments = true;
  static constexpr bool nans = true;
  template <class T, op O>
  static void run(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                  cudaStream_t s) {
    if (n * sizeof(T) <= (std::size_t(256) << 20))
      launch_last_block<T, O, 256, 4, load::streaming, 2>(in, n, scratch, out, mean_n, s);
    else launch_last_block<T, O, 256, 4, load::readonly, 1>(in, n, scratch, out, mean_n, s);
  }
};

}  // namespace

extern const reduce_rung r12_last_block_finishes{
    .info = {.step = 12, .summary = "one launch: the last block combines, deterministic"},
    .can_run = supports<dtypes::all, true, true, true>,
    .scratch_bytes = [](const reduce_problem&) { return last_block_scratch; },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::all>(c); },
};

}  // namespace pplab::detail::reduce_cuda
