#include "core/ceilings.hpp"

#include <omp.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

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

}  // namespace pplab::detail
