// Can a byte histogram on AVX2 avoid the store per byte that bounds h03? This counts bytes into
// 256 bins in vector registers, with no store per byte, and measures it on one thread beside h03:
//   - registers alone: bins in 32 groups of 8. For each group a byte becomes a one-hot bit in its
//     lane (vpshufb on the low 3 bits, masked by a compare of the high 5), and the one-hot
//     vectors are summed by carry-save adders (a Harley-Seal tree of 16); every 16 vectors the
//     sixteens are counted per bit with movemask and popcount;
//   - mixed: the same for a quarter of the data, with h03's scalar loop on the other three
//     quarters interleaved after every group, so that the vector units and the store port work
//     at the same time.
// Every count is checked against a plain loop. Usage: byte_count_in_registers
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/generate.hpp"
#include "core/run.hpp"
#include "core/timing.hpp"
#include "histogram/cpu/byte_rows.hpp"
#include "histogram/rung.hpp"

using namespace pplab;
using namespace pplab::detail;

namespace {

constexpr int block = 64;  // 32-byte vectors per block: 2 KiB, prepared once for all 32 groups

struct register_counts {
  __m256i sums[32][4] = {};  // per group: ones, twos, fours, eights of the carry-save tree
  std::uint64_t counts[256] = {};
};

// h03's byte loop (histogram/cpu/byte_rows.hpp): two 64-bit loads per 16 bytes, byte position k
// into row k.
struct scalar_counts {
  alignas(64) byte_table table = {};
  void add(const std::uint8_t* x, std::size_t n) {
    for_each_byte_in_rows(x, n, [&](unsigned row, unsigned v, std::size_t) { ++table[row][v]; });
  }
};

// Full adder on 256 lanes of bits: a + b + c = 2 * high + low.
inline void csa(__m256i& high, __m256i& low, __m256i a, __m256i b, __m256i c) {
  const __m256i u = _mm256_xor_si256(a, b);
  high = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(u, c));
  low = _mm256_xor_si256(u, c);
}

// Adds weight * (lanes with bit b set) to counts[b], for the 8 bits of each byte lane.
inline void count_bits(__m256i v, std::uint64_t weight, std::uint64_t* counts) {
  for (int b = 0; b < 8; ++b) {
    const auto lanes = unsigned(_mm256_movemask_epi8(_mm256_slli_epi16(v, 7 - b)));
    counts[b] += weight * std::uint64_t(__builtin_popcount(lanes));
  }
}

// Counts n bytes (a multiple of 32 * block) in registers; after each group, `mixed_bytes` bytes
// of `y` go through the scalar loop (0: registers alone).
void count_in_registers(const std::uint8_t* x, std::size_t n, register_counts& r,
                        std::size_t mixed_bytes, const std::uint8_t*& y, scalar_counts& s) {
  alignas(32) __m256i high[block], onehot[block];
  const __m256i bit_of = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                                          2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i low3 = _mm256_set1_epi8(7), low5 = _mm256_set1_epi8(31);
  for (std::size_t i = 0; i + 32 * block <= n; i += 32 * block) {
    for (int j = 0; j < block; ++j) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i + 32 * j));
      high[j] = _mm256_and_si256(_mm256_srli_epi16(v, 3), low5);
      onehot[j] = _mm256_shuffle_epi8(bit_of, _mm256_and_si256(v, low3));
    }
    for (int g = 0; g < 32; ++g) {
      const __m256i group = _mm256_set1_epi8(char(g));
      __m256i ones = r.sums[g][0], twos = r.sums[g][1], fours = r.sums[g][2], eights = r.sums[g][3];
      const auto in = [&](int j) {
        return _mm256_and_si256(_mm256_cmpeq_epi8(high[j], group), onehot[j]);
      };
      // Adds the eight one-hot vectors from j into ones, twos and fours; returns the carry of
      // weight 8.
      const auto add_eight = [&](int j) {
        __m256i twos_a, twos_b, fours_a, fours_b, eights_out;
        csa(twos_a, ones, ones, in(j + 0), in(j + 1));
        csa(twos_b, ones, ones, in(j + 2), in(j + 3));
        csa(fours_a, twos, twos, twos_a, twos_b);
        csa(twos_a, ones, ones, in(j + 4), in(j + 5));
        csa(twos_b, ones, ones, in(j + 6), in(j + 7));
        csa(fours_b, twos, twos, twos_a, twos_b);
        csa(eights_out, fours, fours, fours_a, fours_b);
        return eights_out;
      };
      for (int j = 0; j < block; j += 16) {
        const __m256i eights_a = add_eight(j), eights_b = add_eight(j + 8);
        __m256i sixteens;
        csa(sixteens, eights, eights, eights_a, eights_b);
        count_bits(sixteens, 16, r.counts + 8 * g);
      }
      r.sums[g][0] = ones, r.sums[g][1] = twos, r.sums[g][2] = fours, r.sums[g][3] = eights;
      if (mixed_bytes) s.add(y, mixed_bytes), y += mixed_bytes;
    }
  }
}

std::vector<std::uint64_t> totals(register_counts& r, const scalar_counts& s) {
  for (int g = 0; g < 32; ++g)
    for (int k = 0; k < 4; ++k) count_bits(r.sums[g][k], std::uint64_t(1) << k, r.counts + 8 * g);
  std::vector<std::uint64_t> out(r.counts, r.counts + 256);
  for (int v = 0; v < 256; ++v)
    for (int k = 0; k < 16; ++k) out[v] += s.table[k][v];
  return out;
}

}  // namespace

int main() {
  const std::size_t n = std::size_t(1) << 27;  // a multiple of 4 * 32 * block
  std::vector<std::uint8_t> x(n);
  generate(dtype::u8, x.data(), n, distribution::uniform, 1);
  std::vector<std::uint64_t> expected(256);
  for (std::uint8_t v : x) ++expected[v];

  omp_set_num_threads(1);
  const histogram_problem p{dtype::u8, n, 256, 0, 256, false, true};
  std::vector<std::uint64_t> h03_counts(259);
  const histogram_rung& h03 = *find<histogram_rung>("histogram/cpu/h03_sub_histograms");
  const double h03_s =
      time_it([&] { run_rung(h03, p, x.data(), h03_counts.data()); }, 5, 1.0).median_s;
  const bool h03_ok = std::equal(expected.begin(), expected.end(), h03_counts.begin());

  auto r = std::make_unique<register_counts>();
  auto s = std::make_unique<scalar_counts>();
  const std::uint8_t* y = nullptr;
  bool alone_ok = true, mixed_ok = true;
  const double alone_s = time_it(
                             [&] {
                               *r = {}, *s = {};
                               count_in_registers(x.data(), n, *r, 0, y, *s);
                               alone_ok &= totals(*r, *s) == expected;
                             },
                             5, 1.0)
                             .median_s;
  // A quarter in registers, three quarters through the scalar loop: 3 * 2 KiB after each block
  // of 2 KiB, spread over its 32 groups.
  const double mixed_s = time_it(
                             [&] {
                               *r = {}, *s = {};
                               y = x.data() + n / 4;
                               count_in_registers(x.data(), n / 4, *r, 3 * 32 * block / 32, y, *s);
                               mixed_ok &= totals(*r, *s) == expected;
                             },
                             5, 1.0)
                             .median_s;
  const auto line = [&](const char* what, double sec, bool ok) {
    std::printf("%-34s %6.2f GB/s  %.2fx the time of h03  %s\n", what, double(n) / sec * 1e-9,
                sec / h03_s, ok ? "ok" : "WRONG");
  };
  std::printf("2^27 uniform bytes into 256 bins, one thread\n");
  line("h03 (one store per byte)", h03_s, h03_ok);
  line("registers alone", alone_s, alone_ok);
  line("mixed: 1/4 registers, 3/4 h03 loop", mixed_s, mixed_ok);
  return h03_ok && alone_ok && mixed_ok ? 0 : 1;
}
