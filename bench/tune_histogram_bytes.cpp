// How far the byte histogram (h03's byte path) is from the floor of this CPU. Measured in the same
// run, on one thread and on all:
//   - h03 itself, on uniform and on skewed bytes;
//   - the scattered-store floor (measure_byte_store_floor_GBps, also a floor of the lab): the
//     same loop with the increment replaced by a plain store to the same counter (no load, no
//     add). No loop that writes one counter per byte beats it;
//   - the extraction alone: the shifts and masks that take the bytes out of their words;
//   - the read bandwidth and the core clock (from the FMA loop: 32 FLOP a cycle on two 256-bit
//     FMA units), to turn rates into cycles per byte.
// Usage: tune_histogram_bytes
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "core/ceilings.hpp"
#include "core/generate.hpp"
#include "core/run.hpp"
#include "core/timing.hpp"
#include "histogram/cpu/byte_rows.hpp"
#include "histogram/rung.hpp"

using namespace pplab;
using namespace pplab::detail;

namespace {

volatile std::uint64_t sink;

// The same extraction with no memory traffic: the bytes are summed in two registers.
std::uint64_t extraction_only(const std::uint8_t* x, std::size_t n) {
  std::uint64_t s = 0, t = 0;
  for (std::size_t i = 0; i + 16 <= n; i += 16) {
    std::uint64_t a, b;
    std::memcpy(&a, x + i, 8);
    std::memcpy(&b, x + i + 8, 8);
    for (unsigned k = 0; k < 8; ++k) {
      s += (a >> (8 * k)) & 0xff;
      t += (b >> (8 * k)) & 0xff;
    }
  }
  return s + t;
}

// Each thread runs `loop` over its own contiguous part, as h03 does; the sum of what the threads
// return goes to `sink`, so that no loop can be dropped.
template <class Loop> void split(const std::uint8_t* x, std::size_t n, Loop loop) {
  std::uint64_t total = 0;
#pragma omp parallel reduction(+ : total)
  {
    const std::size_t t = std::size_t(omp_get_thread_num()), used = omp_get_num_threads();
    total += loop(x + n * t / used, n * (t + 1) / used - n * t / used);
  }
  sink = total;
}

void report(const char* what, int threads, double seconds, std::size_t n, double ghz) {
  const double gbps = double(n) / seconds * 1e-9;
  std::printf("%-22s %d thread%s: %6.2f GB/s, %.2f cycles per byte per thread\n", what, threads,
              threads > 1 ? "s" : " ", gbps, ghz * threads / gbps);
}

}  // namespace

int main() {
  const std::size_t n = std::size_t(1) << 28;
  std::vector<std::uint8_t> x(n);
  const histogram_problem p{dtype::u8, n, 256, 0, 256, false, true};
  std::vector<std::uint64_t> counts(259);
  const histogram_rung& h03 = *find<histogram_rung>("histogram/cpu/h03_sub_histograms");
  const int all = omp_get_max_threads();
  const double ghz = measure_fma_GFLOPs(true, 0.5) / 32;
  std::printf("clock from the one-thread FMA loop: %.2f GHz (32 FLOP/cycle)\n", ghz);
  for (auto d : {distribution::uniform, distribution::skewed}) {
    generate(dtype::u8, x.data(), n, d, 1);
    const std::string name = "h03 " + std::string(name_of(d));
    for (int threads : {1, all}) {
      omp_set_num_threads(threads);
      const auto h = [&] { run_rung(h03, p, x.data(), counts.data()); };
      report(name.c_str(), threads, time_it(h, 5, 1.0).median_s, n, ghz);
      if (d != distribution::uniform) continue;
      report("store floor (uniform)", threads, n / measure_byte_store_floor_GBps(n, 1.0) * 1e-9, n,
             ghz);
      const auto extract = [&] { split(x.data(), n, extraction_only); };
      report("extraction only", threads, time_it(extract, 5, 1.0).median_s, n, ghz);
    }
    omp_set_num_threads(all);
  }
  std::printf("read bandwidth, all threads: %.1f GB/s\n", measure_read_GBps(n, 1.0));
}
