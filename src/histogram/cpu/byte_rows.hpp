#pragma once
// The byte loop of h03's byte path, written once for h03, for the lab's floor of a byte histogram
// (one counter store per byte), and for the tuning tools: sixteen bytes per two 64-bit loads,
// byte k of the first word into row k of a 16-row table and byte k of the second into row 8 + k,
// so a run of one value touches each row's counter once per 16 bytes.
// Rows are padded from 256 to 272 counters (1088 bytes): with 1 KiB rows the counters of one
// value in rows k, k + 4, k + 8 and k + 12 lie 4 KiB apart, the same in their low 12 address
// bits, and the core makes a load of one wait for a pending store to another (4 KiB aliasing).
// Skewed bytes took 1.10-1.29x the uniform time unpadded, 1.04-1.23x padded
// (bench/results/cpu-2core-2026-11-21-histogram-{store-floor,padded-rows}.txt).
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pplab::detail {

constexpr std::size_t byte_rows = 16, byte_row_width = 256 + 16;
using byte_table = std::uint32_t[byte_rows][byte_row_width];

// Calls touch(row, value, i) for every byte of x[0, n - n % 16), i the offset of its 16-byte
// group; returns how many bytes it walked (the caller takes the tail).
template <class Touch> inline std::size_t for_each_byte_in_rows(const std::uint8_t* x, std::size_t n,
                                                                Touch&& touch) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    std::uint64_t a, b;
    std::memcpy(&a, x + i, 8);
    std::memcpy(&b, x + i + 8, 8);
    for (unsigned k = 0; k < 8; ++k) {
      touch(k, unsigned((a >> (8 * k)) & 0xff), i);
      touch(8 + k, unsigned((b >> (8 * k)) & 0xff), i);
    }
  }
  return i;
}

// The counting floor of a byte histogram: all threads walk `bytes` random bytes as above and
// store one 32-bit word per byte into the table, as h03 does, but without the load and add of
// an increment. Input bytes a second, GB/s (best repeat): no loop that updates one counter per
// byte runs faster.
double measure_byte_store_floor_GBps(std::size_t bytes, double budget_s);

}  // namespace pplab::detail
