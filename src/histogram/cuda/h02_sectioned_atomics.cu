// histogram/cuda/h02_sectioned_atomics: the histogram notes' first correct kernel. Each thread
// takes a contiguous section of the input (n / threads elements) and adds one to its element's bin
// with a global atomicAdd. Sectioning is what a CPU wants (each core streams its own part), and on
// the GPU it is the wrong partition: at each step the 32 threads of a warp read 32 addresses a
// whole section apart, so every load is its own memory transaction and most of each 32-byte sector
// fetched is thrown away before the thread comes back for it.
// What limits it: uncoalesced loads (DRAM traffic many times the input) and the global atomics.
// Measured (H200, bench/results/h200-2026-11-23-histogram-f907169.json): f32 1024 bins 15.3 ms,
// only 6% slower than h03's 14.4: the 64-bit L2 atomics on 1027 counters cost far more than the
// wasted sectors; with 2^20 bins (atomics spread, 400 GB/s for h03) the sections cost 1.43x.
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 256;

template <class T, class Bin>
__global__ void sectioned(const T* __restrict__ x, std::size_t n, Bin bin, count_t* counts) {
  const std::size_t threads = grid_threads(), per = (n + threads - 1) / threads;
  const std::size_t begin = global_thread() * per, end = begin + per < n ? begin + per : n;
  for (std::size_t i = begin; i < end; ++i) atomicAdd(&counts[bin(x[i])], count_t(1));
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    launch_resident<sectioned<T, Bin>>(B, s, x, n, bin, counts_of(c));
  }
};

}  // namespace

extern const histogram_rung h02_sectioned_atomics{
    .info = {.step = 2, .summary = "a contiguous section per thread, global atomics: uncoalesced"},
    .can_run = supports<dtypes::teaching>,
    .run = [](const histogram_call& c) { dispatch<rung, dtypes::teaching>(c); },
};

}  // namespace pplab::detail::histogram_cuda
