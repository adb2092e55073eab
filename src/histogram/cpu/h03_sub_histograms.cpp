// histogram/cpu/h03_sub_histograms: each thread keeps `copies` sub-histograms of 32-bit counters
// and sends element i to copy i % copies. A run of equal values (skewed data) then updates
// `copies` different counters in turn instead of one, so the increments overlap instead of
// waiting on each other's stores; 32-bit counters halve the cache they take. Counters are
// flushed into 64-bit totals before they could wrap, then merged across threads as in h02.
// Bytes into their 256 natural bins take a path of their own (count_bytes, the loop of
// byte_rows.hpp): sixteen bytes per two 64-bit loads, each byte position sent to its own one of
// 16 sub-histograms, so a run of one value is spread over all sixteen and the load count drops
// eightfold.
// What limits it: one store per byte. The byte path runs as fast as the same loop with each
// increment replaced by a plain store (the lab's "one counter store per byte"; docs/histogram.md).
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): 2^30 bytes into 256
// bins, 3.48 GB/s uniform (13.7% of read bandwidth), 3.55 GB/s with 90% one value; with padded
// rows (cpu-2core-2026-11-21-histogram-padded-rows.json) 4.71 GB/s uniform, 1.12x the store floor
// measured beside it, and 4.28 GB/s skewed.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "histogram/binning.hpp"
#include "histogram/cpu/byte_rows.hpp"
#include "histogram/cpu/private_copies.hpp"

namespace pplab::detail::histogram_cpu {
namespace {

constexpr std::size_t copies = 8;
// Each copy receives at most flush_every / copies increments between flushes: < 2^32.
constexpr std::size_t flush_every = std::size_t(1) << 30;

// Bytes over their natural bins: byte_rows.hpp's loop over a fixed table of 16 rows of 32-bit
// counters on the stack (strides known at compile time, 17 KiB: about half of L1).
// i8 bins are offset by 128: flipping the top bit of the byte is the same as adding 128.
// (flip is a template parameter: a run-time XOR per byte measurably slowed the u8 path.)
template <unsigned flip>
void count_bytes(const std::uint8_t* x, std::size_t n, std::uint64_t* total) {
  alignas(64) byte_table table;
  for (std::size_t chunk = 0; chunk < n; chunk += flush_every) {
    std::memset(table, 0, sizeof table);
    const std::size_t stop = std::min(n, chunk + flush_every);
    const std::size_t done =
        for_each_byte_in_rows(x + chunk, stop - chunk, [&](unsigned row, unsigned v, std::size_t) {
          ++table[row][v ^ flip];
        });
    for (std::size_t i = chunk + done; i < stop; ++i) ++table[0][x[i] ^ flip];
    for (unsigned v = 0; v < 256; ++v)
      for (unsigned k = 0; k < byte_rows; ++k) total[v] += table[k][v];
  }
}

struct sub_histograms {
  template <class T, class Binner>
  static void run(const T* x, std::size_t n, const Binner& bin, std::uint64_t* counts,
                  const histogram_call& c) {
    const std::size_t width = slots(c.p);
    const std::size_t threads = std::size_t(omp_get_max_threads());
    auto* totals = static_cast<std::uint64_t*>(c.scratch);  // threads x width
    auto* subs =
        reinterpret_cast<std::uint32_t*>(totals + threads * width);  // threads x copies x width
#pragma omp parallel num_threads(int(threads))
    {
      const std::size_t t = std::size_t(omp_get_thread_num());
      const std::size_t used = std::size_t(omp_get_num_threads());
      std::uint64_t* total = totals + t * width;
      std::uint32_t* sub = subs + t * copies * width;
      std::fill_n(total, width, 0);
      std::fill_n(sub, copies * width, 0);
      const std::size_t begin = n * t / used, end = n * (t + 1) / used;
      if constexpr (sizeof(T) == 1 && std::is_same_v<Binner, natural_binner>) {
        constexpr unsigned flip = std::is_signed_v<T> ? 0x80u : 0u;
        count_bytes<flip>(reinterpret_cast<const std::uint8_t*>(x) + begin, end - begin, total);
      } else
        for (std::size_t chunk = begin; chunk < end; chunk += flush_every) {
          const std::size_t stop = std::min(end, chunk + flush_every);
          std::size_t i = chunk;
          for (; i + copies <= stop; i += copies)
            for (std::size_t k = 0; k < copies; ++k) ++sub[k * width + bin(x[i + k])];
          for (; i < stop; ++i) ++sub[bin(x[i])];
          for (std::size_t k = 0; k < copies; ++k)
            for (std::size_t s = 0; s < width; ++s) {
              total[s] += sub[k * width + s];
              sub[k * width + s] = 0;
            }
        }
#pragma omp barrier
#pragma omp for schedule(static)
      for (std::ptrdiff_t s = 0; s < std::ptrdiff_t(width); ++s) {
        std::uint64_t sum = 0;
        for (std::size_t u = 0; u < used; ++u) sum += totals[u * width + std::size_t(s)];
        counts[s] = sum;
      }
    }
  }
};

std::size_t scratch(const histogram_problem& p) {
  return std::size_t(omp_get_max_threads()) * slots(p) *
         (sizeof(std::uint64_t) + copies * sizeof(std::uint32_t));
}
void run(const histogram_call& c) { dispatch_histogram<sub_histograms>(c); }

}  // namespace

extern const histogram_rung h03_sub_histograms{
    .info = {.step = 3,
             .summary = "several 32-bit sub-histograms per thread: skew does not serialize"},
    .can_run =
        [](const histogram_problem& p) { return !p.weighted && scratch(p) <= private_budget; },
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::histogram_cpu
