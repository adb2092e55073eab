// histogram/cpu/h01_shared_atomic: all threads count into one shared histogram, each increment
// an atomic read-modify-write (the histogram notes' atomicAdd; without it, updates are lost to the
// data race). Correct, but every increment of a popular bin bounces its cache line between cores
// and serializes there: the more skewed the data, the slower. Measured (2-core EPYC dev machine,
// bench/results/cpu-2core-2026-11-21.json): 2^30 bytes into 256 bins, 0.10 GB/s uniform (0.4% of
// read bandwidth), 0.09 GB/s with 90% one value.
#include <algorithm>

#include "histogram/binning.hpp"

namespace pplab::detail::histogram_cpu {
namespace {

struct shared_atomic {
  template <class T, class Binner>
  static void run(const T* x, std::size_t n, const Binner& bin, std::uint64_t* counts,
                  const histogram_call& c) {
    std::fill_n(counts, slots(c.p), 0);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i) {
      const std::size_t s = bin(x[i]);
#pragma omp atomic update
      ++counts[s];
    }
  }
};

void run(const histogram_call& c) { dispatch_histogram<shared_atomic>(c); }

}  // namespace

extern const histogram_rung h01_shared_atomic{
    .info = {.step = 1, .summary = "one shared histogram, atomic increments"},
    .can_run = counts_any_bins,
    .run = run,
};

}  // namespace pplab::detail::histogram_cpu
