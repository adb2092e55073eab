#pragma once
// The exact sum of floats: every value is an integer times a power of two (its significand m,
// 24 or 53 bits, at its exponent e), so values of one exponent add exactly as integers. One
// integer per exponent (a "bin", Neal's large accumulator) takes each value with one integer
// add; bins from different threads, GPUs or ranks add exactly in any order; and the bins
// together, sum over e of bin[e] 2^(e - bias), are one long fixed-point integer (a Kulisch
// superaccumulator) that is rounded once, to nearest double, ties to even. So the answer is the
// real sum rounded once, the same bits for every order: what math.fsum answers.
//
// Capacity: a bin is 128 bits; it takes 2^74 significands of double or 2^70 flushes of the
// windows' doubles (below 2^57 each), far past any array in memory.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "reduce/exact_total.hpp"

namespace pplab::detail {

// Bins for float (T = float) or double (T = double) data, with counts of the special values.
template <class T> struct exact_bins {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  static constexpr bool is_double = std::is_same_v<T, double>;
  using bits_t = std::conditional_t<is_double, std::uint64_t, std::uint32_t>;
  using bin_t = __int128;
  static constexpr int mantissa = is_double ? 52 : 23;
  static constexpr int exponents = is_double ? 2048 : 256;

  bin_t bin[exponents] = {};
  std::uint64_t pos_inf = 0, neg_inf = 0, nan = 0;


  // v added straight into a long integer (Kulisch's long accumulator: no bins), or counted.
  static void add_to_total(exact_total& t, T v) {
    bits_t b;
    std::memcpy(&b, &v, sizeof b);
    const int e = int((b >> mantissa) & (exponents - 1));
    const bits_t frac = b & ((bits_t(1) << mantissa) - 1);
    const bool neg = b >> (sizeof(bits_t) * 8 - 1);
    if (e == exponents - 1) {  // inf or NaN
      if (frac) ++t.nan;
      else if (neg) ++t.neg_inf;
      else ++t.pos_inf;
      return;
    }
    // A subnormal (e = 0) has no implicit bit and the place of e = 1.
    const __int128 m = __int128(frac | (bits_t(e != 0) << mantissa));
    t.value.add(neg ? -m : m, unsigned(e ? e - 1 : 0));
  }

  // v into its bin, or counted.
  void add(T v) {
    bits_t b;
    std::memcpy(&b, &v, sizeof b);
    const int e = int((b >> mantissa) & (exponents - 1));
    const bits_t frac = b & ((bits_t(1) << mantissa) - 1);
    const bool neg = b >> (sizeof(bits_t) * 8 - 1);
    if (e == exponents - 1) [[unlikely]] {  // inf or NaN
      if (frac) ++nan;
      else if (neg) ++neg_inf;
      else ++pos_inf;
      return;
    }
    // A subnormal (e = 0) has no implicit bit and the weight of e = 1. Branch-free: the sign
    // of random data would mispredict half the time.
    const std::int64_t m = std::int64_t(frac | (bits_t(e != 0) << mantissa));
    const std::int64_t sign = -std::int64_t(neg);
    bin[e + (e == 0)] += (m ^ sign) - sign;
  }

  // x[0, n) added in doubles where they are exact (the GPU rung's method,
  // reduce/cuda/r13_exact_windows.cu). A window of exponents [base, base + window] is kept:
  // every value in it is a whole number of units u = 2^(base - bias). A float goes into a double
  // as it is; a double is split at 2^split units by the rounding of sigma + x (sigma: 1.5 times
  // 2^(split + 52) units), into a high part (whole 2^split units) and a low one (whole units, at
  // most 2^(split - 1)), each added to a double of its own. A block of 256 values is added into
  // `lanes` fresh doubles (16 values each, in vector registers) while each value is checked
  // against the window; a block that fits is added into the running lanes; one that does not
  // moves the window to its own largest exponent where all its nonzero values fit there (its
  // exponents' range, looked at once); else a block spread wider goes into 64-bit integers of
  // its exponents (floats: scatter_sums) or in bands (doubles: band_sums), and a block with an
  // infinity or a NaN, doubles past 2^967 or doubles spread past `most_bands` bands one value at
  // a time into the bins.
  // Every 16 blocks, and when the window moves, each running double, a whole number of units,
  // becomes an integer (bit work: units()) added to its bin. The bounds, for 256 values a lane:
  // f32 below 2^(24 + 21 + 8) = 2^53 units; f64 highs below 2^(53 + 37 + 8) + 2^(45 + 8) <
  // 2^(53 + split) units and lows at most 2^(split - 1 + 8) = 2^53: no add rounds.
  static constexpr std::size_t window_block = 256;
  static constexpr int lanes = 16, flush_blocks = 16;
  static constexpr int window = is_double ? 37 : 21;
  static constexpr int split = 46;                     // a double's high part: whole 2^46 units
  static constexpr int bias = is_double ? 1075 : 150;  // a value m 2^(e - bias), m < 2^(mantissa + 1)
  static constexpr int highest_base = is_double ? 1990 : exponents - 2;  // sigma finite

  // The running window: its base (0: none), the lanes' doubles, the blocks in them.
  struct window_run {
    int base = 0, blocks = 0;
    double hi[lanes] = {}, lo[lanes] = {};
  };

  void add_all(const T* x, std::size_t n) {
    window_run w;
    std::unique_ptr<scatter_run> s;  // (floats: made at the first block spread wide)
    for (std::size_t i0 = 0; i0 < n; i0 += window_block) {
      const T* block = x + i0;
      const std::size_t len = std::min(window_block, n - i0);
      if (w.base && window_block_sums(w, block, len)) {
        if (++w.blocks == flush_blocks) flush(w);
        continue;
      }
      flush(w);
      w.base = 0;
      // A new window only where the whole block fits it (one look at its exponents, not a
      // second try that fails on data spread wide).
      const auto [least, top] = exponent_range(block, len);
      const int base = std::max(top - window, 1);
      if (top < exponents - 1 && base <= highest_base && least >= base) {
        w.base = base;
        if (window_block_sums(w, block, len)) {  // (it fits: every nonzero value is inside)
          if (++w.blocks == flush_blocks) flush(w);
          continue;
        }
        w.base = 0;
      }
      const int bands = (top - std::min(least, top)) / (window + 1) + 1;
      const bool by_value = top == exponents - 1 || base > highest_base ||  // (sigma finite)
                            (is_double && bands > most_bands);
      if (by_value) {
        for (std::size_t i = 0; i < len; ++i) add(block[i]);
      } else if constexpr (is_double) {
        band_sums(block, len, least, top);
      } else {
        if (!s) s = std::make_unique<scatter_run>();
        scatter_sums(*s, block, len, least, top);
      }
    }
    flush(w);
    if constexpr (!is_double)
      if (s) fold_scatter(*s);
  }

  // The exponents of a block's least nonzero value (`exponents` if none) and of its largest.
  static std::pair<int, int> exponent_range(const T* x, std::size_t n) {
    typedef bits_t value_bits __attribute__((may_alias));  // the values' bits, read in place
    const auto* b = reinterpret_cast<const value_bits*>(x);
    const bits_t magnitude = ~(bits_t(1) << (sizeof(bits_t) * 8 - 1));
    // The least of a - 1, unsigned: a zero wraps to the largest, so it is never the least (and
    // the loop stays in vector registers, branch-free).
    bits_t least_less_one = ~bits_t(0), top = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const bits_t a = b[i] & magnitude;
      top = std::max(top, a);
      least_less_one = std::min(least_less_one, bits_t(a - 1));
    }
    const bits_t least = least_less_one + 1;  // 0 if every value is a zero
    return {least ? int(least >> mantissa) : exponents, int(top >> mantissa)};
  }

  // A block of doubles spread wider than one window, in bands of a window's width, from its top
  // exponent down to its least: one pass over the block, a vector register's doubles at a time
  // (eight on AVX-512), finds each value's band (a compare with each band's least magnitude: the
  // values at or above it that no band above took) and adds it, split as a window splits it (the
  // band's own sigma), into the band's lanes of high and low doubles (the other bands' lanes add
  // zeros); the lanes' sums go into the band's bins as integers. A band has a window's exponents
  // at most, and a block 256 values, so the window's bounds hold for the lanes' sums too: no add
  // rounds. The band count is a template argument, so that the lanes stay in registers. Past
  // `most_bands` bands each value goes into its bin. On the 2-core EPYC (Zen 5), 2^24 doubles
  // spread over 120 binades (4 bands): 15.2-15.4 ms; a pass over the block a band 18.7. Spread
  // over 190 / 230 / 300 / 380 binades (6, 7, 8-9, 10-11 bands): 19.6 / 23.5 / 27.1 / 33.1 ms in
  // bands, 24.4 / 27.8 / 28.0 / 27.8 value by value: bands up to 7.
  static constexpr int most_bands = 7;

  // The build's vector registers' bytes: the spread paths' vectors are as wide. (GCC splits a
  // wider one, but the doubles' bands then spilled their lanes on AVX2, 3x slower, and the
  // floats' work went value by value without SSE4, 2x slower.)
#if defined(__AVX512F__)
  static constexpr int vector_bytes = 64;
#elif defined(__AVX2__)
  static constexpr int vector_bytes = 32;
#else
  static constexpr int vector_bytes = 16;
#endif

  void band_sums(const T* x, std::size_t n, int least, int top) {
    // Bands of window + 1 exponents from top down past the least (the lowest from exponent 1,
    // with the subnormals: at least one band).
    const int bands = std::max(1, (top + 1 - std::max(least, 1) + window) / (window + 1));
    [&]<int... b>(std::integer_sequence<int, b...>) {
      ((bands == b + 1 ? band_pass<b + 1>(x, n, top) : void()), ...);
    }
    (std::make_integer_sequence<int, most_bands>{});
  }

  template <int bands> void band_pass(const T* x, std::size_t n, int top) {
    static_assert(is_double);
    constexpr int width = vector_bytes / 8;
    typedef std::int64_t longs_t __attribute__((vector_size(8 * width)));
    typedef std::int64_t longs_in_place
        __attribute__((vector_size(8 * width), aligned(8), may_alias));
    typedef double doubles_t __attribute__((vector_size(8 * width)));
    std::int64_t least[bands];  // each band's least magnitude (bits); the lowest's 0: subnormals
    double sigma[bands];
    int base[bands];
    for (int j = 0, above = top + 1; j < bands; ++j) {
      base[j] = std::max(above - (window + 1), 1);
      least[j] = base[j] == 1 ? 0 : std::int64_t(base[j]) << mantissa;
      sigma[j] = sigma_of(base[j]);
      above = base[j];
    }
    doubles_t hi[bands] = {}, lo[bands] = {};
    const std::int64_t magnitude = std::numeric_limits<std::int64_t>::max();
    std::size_t i = 0;
    for (; i + width <= n; i += width) {
      const longs_t b = *reinterpret_cast<const longs_in_place*>(x + i);
      const longs_t a = b & magnitude;
      longs_t above = {};  // -1 where a band above took the value
#pragma GCC unroll 8
      for (int j = 0; j < bands; ++j) {
        const longs_t at_or_above = a >= least[j];                  // -1 where true
        const doubles_t v = (doubles_t)(b & at_or_above & ~above);  // the value, or +0
        above = at_or_above;
        const doubles_t high = (sigma[j] + v) - sigma[j];
        hi[j] += high;
        lo[j] += v - high;
      }
    }
    for (int j = 0; j < bands; ++j) {
      double h = 0, l = 0;
      for (int k = 0; k < width; ++k) h += hi[j][k], l += lo[j][k];
      bin[base[j] + split] += units(h, base[j] + split - bias);
      bin[base[j]] += units(l, base[j] - bias);
    }
    for (; i < n; ++i) add(x[i]);
  }

  // A block of floats spread wider than one window: each value's significand, signed, into a
  // 64-bit integer of its exponent (its bin, as add() does, without the 128 bits and the
  // branches). The significands and exponents are found a vector at a time (sixteen on AVX-512),
  // then added one by one, value i into copy i mod 8 of the integers, so that neighbours of one
  // exponent do not wait on each other's add. A significand is below 2^24, so an integer takes
  // 2^39 of them; `fold_scatter` adds them into the bins (and zeros them) at the end and every
  // 2^38 values. On the 2-core EPYC (Zen 5), 2^24 spread floats: 7.4 ms this way, 12.0 by
  // classes of 16 exponents in doubles (the windows' way), 13.3 by masked bands of 22 exponents.
  // (Doubles go in bands: two such integers a value, for a double's significand's halves, took
  // 28.7 ms for 2^24 spread doubles where the bands take 19.2.)
  static constexpr int scatter_copies = 8;
  static constexpr std::uint64_t scatter_most = std::uint64_t(1) << 38;  // values before a fold
  struct scatter_run {
    std::int64_t bin[scatter_copies][exponents] = {};
    int least = exponents, top = 0;  // the exponents touched
    std::uint64_t values = 0;
  };

  void scatter_sums(scatter_run& s, const T* x, std::size_t n, int least, int top) {
    static_assert(!is_double);
    constexpr int width = vector_bytes / 4;
    typedef std::int32_t lanes_t __attribute__((vector_size(4 * width)));
    typedef std::int32_t in_place __attribute__((vector_size(4 * width), aligned(4), may_alias));
    alignas(64) std::int32_t significand[window_block], exponent[window_block];
    std::size_t i = 0;
    for (; i + width <= n; i += width) {
      const lanes_t b = *reinterpret_cast<const in_place*>(x + i);
      const lanes_t e = (b >> mantissa) & (exponents - 1);
      const lanes_t subnormal = e == 0;  // -1 where true
      const lanes_t negative = b >> 31;
      const lanes_t m = (b & ((1 << mantissa) - 1)) | (~subnormal & (1 << mantissa));
      *reinterpret_cast<lanes_t*>(significand + i) = (m ^ negative) - negative;
      // A subnormal has the place of exponent 1 (and no implicit bit).
      *reinterpret_cast<lanes_t*>(exponent + i) = e - subnormal;
    }
    std::size_t j = 0;
    for (; j + scatter_copies <= i; j += scatter_copies)
      for (int c = 0; c < scatter_copies; ++c) s.bin[c][exponent[j + c]] += significand[j + c];
    for (; j < i; ++j) s.bin[0][exponent[j]] += significand[j];
    for (; i < n; ++i) add(x[i]);
    // (A subnormal's bin is that of exponent 1.)
    s.least = std::min(s.least, std::max(least, 1)), s.top = std::max({s.top, top, 1});
    if ((s.values += n) >= scatter_most) fold_scatter(s);
  }

  void fold_scatter(scatter_run& s) {
    for (int e = s.least; e <= s.top; ++e)
      for (int c = 0; c < scatter_copies; ++c) bin[e] += s.bin[c][e], s.bin[c][e] = 0;
    s.least = exponents, s.top = 0, s.values = 0;
  }

  // 1.5 times 2^(split + 52) units of 2^(base - bias): sigma + x rounds x to whole 2^split units.
  static double sigma_of(int base) {
    double sigma = 0;
    if constexpr (is_double) {
      const std::uint64_t s = (std::uint64_t(base + split) << 52) | (std::uint64_t(1) << 51);
      std::memcpy(&sigma, &s, sizeof s);
    }
    return sigma;
  }

  // d / 2^unit as an integer, where d is a whole number of such units, at most 2^53 of them.
  static std::int64_t units(double d, int unit) {
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    const int e = int((b >> 52) & 0x7ff);
    const std::int64_t frac = std::int64_t(b & ((std::uint64_t(1) << 52) - 1));
    if (e == 0 && frac == 0) return 0;
    const std::int64_t m = frac | (e ? std::int64_t(1) << 52 : 0);
    const int shift = (unit + 1075) - (e ? e : 1);
    const std::int64_t v = shift >= 0 ? m >> shift : m << -shift;
    return b >> 63 ? -v : v;
  }

  // The running lanes into the bins, as integers of units; the lanes zero.
  void flush(window_run& w) {
    if (!w.base) return;
    std::int64_t at_base = 0, at_split = 0;  // at most 16 x 2^53 each
    for (int j = 0; j < lanes; ++j) {
      if constexpr (is_double) {
        at_split += units(w.hi[j], w.base + split - bias);
        at_base += units(w.lo[j], w.base - bias);
      } else {
        at_base += units(w.hi[j], w.base - bias);
      }
      w.hi[j] = w.lo[j] = 0;
    }
    bin[w.base] += at_base;
    if constexpr (is_double) bin[w.base + split] += at_split;
    w.blocks = 0;
  }

  // The block added into the running lanes if every value lies in the window (or is zero);
  // else false, and nothing added.
  bool window_block_sums(window_run& w, const T* x, std::size_t n) {
    typedef bits_t value_bits __attribute__((may_alias));
    const auto* b = reinterpret_cast<const value_bits*>(x);
    double hi[lanes] = {}, lo[lanes] = {};
    // The checks in the values' own width, so that they stay in vector registers:
    // the window's least magnitude, and the least above it (inf and NaN are above).
    using word = std::conditional_t<is_double, std::int64_t, std::int32_t>;
    word outside = 0;
    const word least = word(w.base) << mantissa;
    const word above = word(std::min(w.base + window + 1, exponents - 1)) << mantissa;
    const bits_t magnitude = ~(bits_t(1) << (sizeof(bits_t) * 8 - 1));
    const double sigma = sigma_of(w.base);
    const auto outside_of = [&](std::size_t i) {
      const word a = word(b[i] & magnitude);
      return (word(a != 0) & word(a < least)) | word(a >= above);
    };
    // The compiler keeps both in vector registers where a float's checks come first, in a loop
    // of their own, and a double's beside its sums (measured: either the other way round runs
    // about 2.5x slower on AVX-512).
    if constexpr (!is_double) {
      for (std::size_t i = 0; i < n; ++i) outside |= outside_of(i);
      if (outside) return false;
    }
    const auto take = [&](std::size_t i, int lane) {
      if constexpr (is_double) {
        outside |= outside_of(i);
        const double high = (sigma + x[i]) - sigma;
        hi[lane] += high;
        lo[lane] += x[i] - high;
      } else {
        hi[lane] += double(x[i]);
      }
    };
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes)
      for (int j = 0; j < lanes; ++j) take(i + j, j);
    for (int j = 0; i < n; ++i, ++j) take(i, j);
    if (outside) return false;
    for (int j = 0; j < lanes; ++j) w.hi[j] += hi[j], w.lo[j] += lo[j];
    return true;
  }

  void merge(const exact_bins& o) {
    for (int e = 0; e < exponents; ++e) bin[e] += o.bin[e];
    pos_inf += o.pos_inf, neg_inf += o.neg_inf, nan += o.nan;
  }

  // The bins as one long integer in units of 2^exact_unit_exponent (bin e holds units of
  // 2^(e - 1) of them), with the special values' counts.
  exact_total total() const {
    exact_total t;
    for (int e = 1; e < exponents - 1; ++e) t.value.add(__int128(bin[e]), unsigned(e - 1));
    t.pos_inf = pos_inf, t.neg_inf = neg_inf, t.nan = nan;
    return t;
  }
};

// f(float{}) or f(double{}) for an exact problem's data type.
template <class F> decltype(auto) visit_exact(dtype t, F&& f) {
  if (t == dtype::f32) return f(float{});
  return f(double{});
}

}  // namespace pplab::detail
