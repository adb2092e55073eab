#include "core/ceilings.hpp"

#include <omp.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "core/generate.hpp"
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

double measure_read_GBps(std::size_t bytes, double budget_s) {
  const std::size_t words = bytes / 8;
  std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[words]);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(words); ++i) buf[i] = std::uint64_t(i);
  volatile std::uint64_t sink = 0;
  const timing t = time_it(
      [&] {
        std::uint64_t s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
        for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(words); ++i) s += buf[i];
        sink = sink + s;
      },
      5, budget_s);
  return double(words * 8) / t.median_s * 1e-9;
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
          const std::size_t id = std::size_t(omp_get_thread_num());
          const std::size_t used = std::size_t(omp_get_num_threads());
          const std::size_t begin = bytes * id / used, end = bytes * (id + 1) / used;
          std::memcpy(dst.get() + begin, src.get() + begin, end - begin);
        }
      },
      5, budget_s);
  return 2.0 * double(bytes) / t.median_s * 1e-9;
}

namespace {

// h03's byte loop (16 rows of counters, padded as in h03) with each increment replaced by a plain
// store of the position.
std::uint64_t store_per_byte(const std::uint8_t* x, std::size_t n) {
  alignas(64) std::uint32_t table[16][256 + 16] = {};
  for (std::size_t i = 0; i + 16 <= n; i += 16) {
    std::uint64_t a, b;
    std::memcpy(&a, x + i, 8);
    std::memcpy(&b, x + i + 8, 8);
    for (unsigned k = 0; k < 8; ++k) {
      table[k][(a >> (8 * k)) & 0xff] = std::uint32_t(i);
      table[8 + k][(b >> (8 * k)) & 0xff] = std::uint32_t(i);
    }
  }
  std::uint64_t s = 0;  // read back, so that no store can be dropped
  for (const auto& row : table)
    for (std::uint32_t v : row) s += v;
  return s;
}

}  // namespace

double measure_scattered_store_GBps(std::size_t bytes, double budget_s) {
  bytes -= bytes % 8;
  std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[bytes / 8]);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(bytes / 8); ++i) buf[i] = mix(std::uint64_t(i));
  const auto* x = reinterpret_cast<const std::uint8_t*>(buf.get());
  volatile std::uint64_t sink = 0;
  const timing t = time_it(
      [&] {
        std::uint64_t s = 0;
#pragma omp parallel reduction(+ : s)
        {
          const std::size_t id = std::size_t(omp_get_thread_num());
          const std::size_t used = std::size_t(omp_get_num_threads());
          const std::size_t begin = bytes * id / used, end = bytes * (id + 1) / used;
          s += store_per_byte(x + begin, end - begin);
        }
        sink = sink + s;
      },
      5, budget_s);
  return double(bytes) / t.median_s * 1e-9;
}

}  // namespace pplab::detail
