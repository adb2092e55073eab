// histogram/cpu/h04_bin_range_owners: for bin counts too large to privatize (2^24 bins are 128 MiB
// of counters; a copy per thread multiplies that and the merge pass reads it all). Instead each
// thread owns a contiguous range of the bins and scans the whole input, counting only values
// that fall in its range: one shared histogram, no atomics (owners never overlap), no merge, and
// each thread's counters are 1/threads of the table, so more of them stay in cache. The price is
// reading the input once per thread; the binning of a value is the cheap part next to a cache
// miss on a random counter.
#include <omp.h>

#include <algorithm>

#include "histogram/binning.hpp"

namespace pplab::detail {
namespace {

struct bin_range_owners {
  template <class T, class Binner>
  static void run(const T* x, std::size_t n, const Binner& bin, std::uint64_t* counts,
                  const histogram_call& c) {
    const std::size_t width = slots(c.p);
#pragma omp parallel
    {
      const std::size_t t = std::size_t(omp_get_thread_num());
      const std::size_t used = std::size_t(omp_get_num_threads());
      const std::size_t first = width * t / used, owned = width * (t + 1) / used - first;
      std::fill_n(counts + first, owned, 0);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t s = bin(x[i]);
        if (s - first < owned) ++counts[s];  // unsigned: also false for s < first
      }
    }
  }
};

}  // namespace

void histogram_cpu_h04(const histogram_call& c) { dispatch_histogram<bin_range_owners>(c); }

}  // namespace pplab::detail
