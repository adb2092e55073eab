// How far the byte histogram (h03's byte path) is from the store-port floor on this CPU: its
// rate on one thread and on all, the core clock inferred from the FMA loop (32 FLOP a cycle on
// two 256-bit FMA units), and the cycles each byte costs. Usage: tune_histogram_bytes
#include <omp.h>

#include <cstdio>
#include <vector>

#include "core/ceilings.hpp"
#include "core/generate.hpp"
#include "core/run_rung.hpp"
#include "core/timing.hpp"

using namespace pplab;
using namespace pplab::detail;

int main() {
  const std::size_t n = std::size_t(1) << 28;
  std::vector<std::uint8_t> x(n);
  const histogram_problem p{dtype::u8, n, 256, 0, 256, false, true};
  std::vector<std::uint64_t> counts(259);
  const histogram_rung& h03 = *find_histogram("histogram/cpu/h03_sub_histograms");
  const int all = omp_get_max_threads();
  const double ghz = measure_fma_GFLOPs(true, 0.5) / 32;
  std::printf("clock from the one-thread FMA loop: %.2f GHz (32 FLOP/cycle)\n", ghz);
  for (auto d : {distribution::uniform, distribution::skewed}) {
    generate(dtype::u8, x.data(), n, d, 1);
    for (int threads : {1, all}) {
      omp_set_num_threads(threads);
      const timing t = time_it([&] { run_histogram(h03, p, x.data(), counts.data()); }, 5, 1.0);
      const double gbps = double(n) / t.median_s * 1e-9;
      std::printf("%-8s %d thread%s: %.2f GB/s, %.2f cycles per byte per thread\n",
                  std::string(name_of(d)).c_str(), threads, threads > 1 ? "s" : "", gbps,
                  ghz * threads / gbps);
    }
    omp_set_num_threads(all);
  }
  std::printf("read bandwidth, all threads: %.1f GB/s\n", measure_read_GBps(n, 1.0));
}
