#include "core/ceilings.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "core/host/section.hpp"
#include "core/timing.hpp"

namespace pplab::detail {

cpu_facts cpu() {
  cpu_facts f;
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0) {
      f.model = line.substr(line.find(':') + 2);
      break;
    }
  if (f.model.empty()) f.model = "unknown CPU";
  f.cores = int(std::thread::hardware_concurrency());
  f.threads = omp_get_max_threads();
  return f;
}

namespace {

// One read loop: each thread streams its own section into `lanes` independent 64-bit sums of
// words of type W, which the compiler keeps in vector registers. Best repeat, GB/s.
template <class W, std::size_t lanes>
double read_loop_GBps(const void* data, std::size_t bytes, double budget_s) {
  const W* buf = static_cast<const W*>(data);
  const std::size_t words = bytes / sizeof(W);
  volatile std::uint64_t sink = 0;
  const timing t = time_it(
      [&] {
        std::uint64_t s = 0;
#pragma omp parallel reduction(+ : s)
        {
          const auto [begin, end] = this_thread_section(words);
          std::uint64_t lane[lanes] = {};
          std::size_t i = begin;
          for (; i + lanes <= end; i += lanes)
            for (std::size_t j = 0; j < lanes; ++j) lane[j] += buf[i + j];
          for (; i < end; ++i) lane[0] += buf[i];
          for (std::uint64_t v : lane) s += v;
        }
        sink = sink + s;
      },
      5, budget_s / 3);
  return double(words * sizeof(W)) / t.min_s * 1e-9;
}

// The loop of the reduction notes' one-line OpenMP sum over 32-bit words: on an AVX-512 EPYC the
// compiler's own widening reduction read 1-3% faster than the loops above in most full-size runs.
double omp_read_loop_GBps(const void* data, std::size_t bytes, double budget_s) {
  const auto* x = static_cast<const std::int32_t*>(data);
  const std::ptrdiff_t n = std::ptrdiff_t(bytes / 4);
  volatile std::uint64_t sink = 0;
  const timing t = time_it(
      [&] {
        std::uint64_t s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
        for (std::ptrdiff_t i = 0; i < n; ++i) s += std::uint64_t(std::int64_t(x[i]));
        sink = sink + s;
      },
      5, budget_s / 3);
  return double(n) * 4 / t.min_s * 1e-9;
}

}  // namespace

// The read ceiling: the best of three read loops, since which one a core streams fastest differs
// from machine to machine (on an AVX-512 EPYC, 32-bit words widened into 64-bit lanes read up to
// 1.6x faster than 64-bit words, and the i32 sums of the ladder beat a 64-bit-only probe). Each
// thread reads the section it first touched. The best repeat counts: a ceiling is the most the
// machine was seen to do, so that no rung reads above it.
double measure_read_GBps(std::size_t bytes, double budget_s) {
  const std::size_t words = std::max<std::size_t>(bytes / 8, 64);
  std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[words]);
#pragma omp parallel
  {
    const auto [begin, end] = this_thread_section(words);
    for (std::size_t i = begin; i < end; ++i) buf[i] = std::uint64_t(i);
  }
  return std::max({read_loop_GBps<std::uint64_t, 16>(buf.get(), words * 8, budget_s),
                   read_loop_GBps<std::uint32_t, 64>(buf.get(), words * 8, budget_s),
                   omp_read_loop_GBps(buf.get(), words * 8, budget_s)});
}

double measure_copy_GBps(std::size_t bytes, double budget_s) {
  std::unique_ptr<char[]> src(new char[bytes]), dst(new char[bytes]);
  const int threads = omp_get_max_threads();
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(bytes); i += 4096) src[i] = dst[i] = char(i);
  const timing t = time_it(
      [&] {
#pragma omp parallel num_threads(threads)
        {
          const auto [begin, end] = this_thread_section(bytes);
          std::memcpy(dst.get() + begin, src.get() + begin, end - begin);
        }
      },
      5, budget_s);
  return 2.0 * double(bytes) / t.min_s * 1e-9;
}

}  // namespace pplab::detail
