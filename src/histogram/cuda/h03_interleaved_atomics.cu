// histogram/cuda/h03_interleaved_atomics: h02 with the histogram notes' interleaved partition.
// Thread t takes elements t, t + T, t + 2T, ... (T threads in the grid), so the 32 threads of a
// warp read 32 neighbouring elements: one coalesced transaction per warp per step, and the input
// crosses DRAM once. Each element is still one global atomicAdd, resolved in L2. What limits it:
// the L2 atomic rate (the lab's atomic table), and contention when many elements share a bin (every
// atomic on one address is serialized at its L2 slice). This is also the fallback for bin counts
// too large for shared memory: its memory is the counts alone. Measured (H200,
// bench/results/h200-2026-11-23-histogram-f907169.json): 2^30 uniform bytes 172 ms (6.2 G
// atomics/s: 256 hot counters), bytes all one value 786 ms (1.4 G/s, the one-counter rate of the
// atomic table); f32 2^20 bins 2.69 ms, 400 GB/s, 7.1x CUB (100 G atomics/s: the L2 rate), the best
// rung there so far.
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 256;

template <class T, class Bin>
__global__ void interleaved(const T* __restrict__ x, std::size_t n, Bin bin, count_t* counts) {
  for (std::size_t i = global_thread(); i < n; i += grid_threads())
    atomicAdd(&counts[bin(x[i])], count_t(1));
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    launch_resident<interleaved<T, Bin>>(B, s, x, n, bin, counts_of(c));
  }
};

}  // namespace

extern const histogram_rung h03_interleaved_atomics{
    .info = {.step = 3, .summary = "interleaved (coalesced) partition, global atomics"},
    .can_run = supports<dtypes::all>,
    .run = [](const histogram_call& c) { dispatch<rung, dtypes::all>(c); },
};

}  // namespace pplab::detail::histogram_cuda
