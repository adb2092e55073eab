// histogram/cuda/h01_racy_increment: the data race made visible. Each thread does
// counts[bin(x)]++ on global memory with no atomic: a load, an add and a store, so two threads
// that count into one bin at once both store the same new value and one count is lost. The lab
// shows how many counts it lost (n minus the sum of the counts) instead of failing it; it is
// marked racy, never picked, and skipped by the tests. compute-sanitizer's racecheck watches
// shared memory only, so it does not flag this global race; memcheck passes it (every access is
// in bounds).
// Measured (H200, bench/results/h200-2026-11-23-histogram-f907169.json): 2^30 uniform bytes lose
// 99.8% of their counts (256 bins, every increment races); 2^28 floats into 2^20 bins still lose
// 11% (few collisions, but some).
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 256;

template <class T, class Bin>
__global__ void racy_increment(const T* __restrict__ x, std::size_t n, Bin bin, count_t* counts) {
  for (std::size_t i = global_thread(); i < n; i += grid_threads()) counts[bin(x[i])]++;
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    launch_resident<racy_increment<T, Bin>>(B, s, x, n, bin, counts_of(c));
  }
};

}  // namespace

extern const histogram_rung h01_racy_increment{
    .info = {.step = 1,
             .summary = "counts[bin]++ without atomics: the data race, counts lost",
             .racy = true,
             .reproducible = false},
    .can_run = supports<dtypes::teaching>,
    .run = [](const histogram_call& c) { dispatch<rung, dtypes::teaching>(c); },
};

}  // namespace pplab::detail::histogram_cuda
