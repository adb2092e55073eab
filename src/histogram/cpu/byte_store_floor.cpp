// The lab's floor of a byte histogram: byte_rows.hpp's loop with every increment replaced by a
// plain store of the position.
#include <omp.h>

#include <memory>

#include "core/generate.hpp"
#include "core/host/section.hpp"
#include "core/timing.hpp"
#include "histogram/cpu/byte_rows.hpp"

namespace pplab::detail {
namespace {

std::uint64_t store_per_byte(const std::uint8_t* x, std::size_t n) {
  alignas(64) byte_table table = {};
  for_each_byte_in_rows(x, n, [&](unsigned row, unsigned v, std::size_t i) {
    table[row][v] = std::uint32_t(i);
  });
  std::uint64_t s = 0;  // read back, so that no store can be dropped
  for (const auto& row : table)
    for (std::uint32_t v : row) s += v;
  return s;
}

}  // namespace

double measure_byte_store_floor_GBps(std::size_t bytes, double budget_s) {
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
          const auto [begin, end] = this_thread_section(bytes);
          s += store_per_byte(x + begin, end - begin);
        }
        sink = sink + s;
      },
      5, budget_s);
  return double(bytes) / t.min_s * 1e-9;
}

}  // namespace pplab::detail
