#pragma once
// The exact sum of floats: every value is an integer times a power of two (its significand m,
// 24 or 53 bits, at its exponent e), so values of one exponent add exactly as integers. One
// integer per exponent (a "bin", Neal's large accumulator) takes each value with one integer
// add; bins from different threads, GPUs or ranks add exactly in any order; and the bins
// together, sum over e of bin[e] 2^(e - bias), are one long fixed-point integer (a Kulisch
// superaccumulator) that is rounded once, to nearest double, ties to even. So the answer is the
// real sum rounded once, the same bits for every order: what math.fsum answers.
//
// Capacity: a bin is 128 bits; it takes 2^74 significands of double or 2^64 window sums of a
// block of floats (below 2^63 each), far past any array in memory (`most_adds`).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace pplab::detail {

// The long fixed-point integer: two's complement, `limbs` words of 64 bits, bit 0 worth
// 2^-1074 (double's smallest subnormal) for double data or 2^-149 for float data.
struct long_sum {
  static constexpr int limbs = 36;  // 2304 bits: double's 2098-bit range and 2^128 headroom
  std::uint64_t limb[limbs] = {};

  // Adds v * 2^pos (v signed), carrying through the limbs above.
  void add(__int128 v, unsigned pos) {
    if (v == 0) return;
    const unsigned q = pos / 64, r = pos % 64;
    // v << r as 192 bits, sign-extended; then every limb above gets the sign's extension.
    const unsigned __int128 u = static_cast<unsigned __int128>(v);
    const std::uint64_t ext = v < 0 ? ~std::uint64_t(0) : 0;
    const std::uint64_t w0 = std::uint64_t(u << r);
    const std::uint64_t w1 = r ? std::uint64_t(u >> (64 - r)) : std::uint64_t(u >> 64);
    const std::uint64_t w2 = r ? std::uint64_t((u >> 64) >> (64 - r)) | (ext << r) : ext;
    const std::uint64_t words[3] = {w0, w1, w2};
    unsigned carry = 0;
    for (int i = int(q); i < limbs; ++i) {
      const std::uint64_t w = i - int(q) < 3 ? words[i - int(q)] : ext;
      if (w == 0 && carry == 0 && i - int(q) >= 3) break;  // nothing left to add
      const std::uint64_t a = limb[i];
      const std::uint64_t s = a + w;
      const unsigned c1 = s < a;
      limb[i] = s + carry;
      carry = c1 | (limb[i] < s);
    }
  }

  bool negative() const { return limb[limbs - 1] >> 63; }

  void negate() {
    unsigned carry = 1;
    for (std::uint64_t& l : limb) {
      l = ~l + carry;
      carry = carry && l == 0;
    }
  }

  // The highest set bit, or -1 for zero (of a non-negative value).
  int top_bit() const {
    for (int i = limbs - 1; i >= 0; --i)
      if (limb[i]) return i * 64 + 63 - __builtin_clzll(limb[i]);
    return -1;
  }
  bool bit(int b) const { return b >= 0 && (limb[b / 64] >> (b % 64)) & 1; }
  bool any_below(int b) const {  // any set bit below b
    for (int i = 0; i < limbs && i * 64 < b; ++i) {
      const int upto = b - i * 64;
      const std::uint64_t mask = upto >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << upto) - 1;
      if (limb[i] & mask) return true;
    }
    return false;
  }
  // The `count` bits (at most 64) from bit b up, as an integer.
  std::uint64_t bits_at(int b, int count) const {
    std::uint64_t v = 0;
    for (int k = count - 1; k >= 0; --k) v = (v << 1) | std::uint64_t(bit(b + k));
    return v;
  }

  // Divides this non-negative value by d in place; answers whether a remainder was left.
  bool divide(std::uint64_t d) {
    unsigned __int128 rem = 0;
    for (int i = limbs - 1; i >= 0; --i) {
      const unsigned __int128 cur = (rem << 64) | limb[i];
      limb[i] = std::uint64_t(cur / d);
      rem = cur % d;
    }
    return rem != 0;
  }
  // Shifts this non-negative value left by 64 bits (its top limb must be free).
  void shift_limb_up() {
    for (int i = limbs - 1; i > 0; --i) limb[i] = limb[i - 1];
    limb[0] = 0;
  }

  // The value times 2^unit_exponent, rounded once to double: nearest, ties to even; past
  // double's range, +-inf. `sticky`: a part below bit 0 was lost (a division's remainder), which
  // breaks a tie upward; the callers keep enough bits below the answer's last one that it never
  // has to decide more than that.
  double rounded(int unit_exponent, bool sticky = false) const {
    long_sum a = *this;
    const bool neg = a.negative();
    if (neg) a.negate();
    const int h = a.top_bit();
    if (h < 0) return neg ? -0.0 : 0.0;
    // The lowest bit kept: 53 bits down from the top, but not below double's smallest subnormal
    // (2^-1074), so that a subnormal answer is rounded here once and not again by ldexp.
    const int low = std::max({h - 52, -1074 - unit_exponent, 0});
    std::uint64_t mant = a.bits_at(low, h - low + 1);
    const bool guard = a.bit(low - 1);
    const bool rest = a.any_below(low - 1) || sticky;
    if (guard && (rest || (mant & 1))) ++mant;
    const double v = std::ldexp(double(mant), low + unit_exponent);  // mant <= 2^53: exact
    return neg ? -v : v;
  }
};

// Bins for float (T = float) or double (T = double) data, with counts of the special values.
template <class T> struct exact_bins {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  static constexpr bool is_double = std::is_same_v<T, double>;
  using bits_t = std::conditional_t<is_double, std::uint64_t, std::uint32_t>;
  using bin_t = __int128;
  static constexpr int mantissa = is_double ? 52 : 23;
  static constexpr int exponents = is_double ? 2048 : 256;
  static constexpr int unit_exponent = is_double ? -1074 : -149;  // the weight of bin 1's unit
  static constexpr std::uint64_t most_adds =
      is_double ? std::uint64_t(1) << 62 : std::uint64_t(1) << 38;

  bin_t bin[exponents] = {};
  std::uint64_t pos_inf = 0, neg_inf = 0, nan = 0;

  void add(T v) { add_to(bin, v); }

  // v into `to` (these bins or a like array: add_all's second set).
  void add_to(bin_t* to, T v) {
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
    to[e + (e == 0)] += (m ^ sign) - sign;
  }

  // x[0, n) added a block of 256 values at a time: the block's largest exponent E sets a window
  // of exponents below it, and every value in the window is its significand shifted into place
  // and added into a 64-bit integer: branch-free work the compiler puts in vector registers
  // (variable 64-bit shifts). A float's 24 bits go whole into one integer, within 31 exponents of
  // E; a double's 53 in two parts, the low 26 bits and the high 27 (26 exponents up), within 28
  // of E. Every term is below 2^55, so 256 of them cannot overflow; each integer then goes into
  // its bin. A value below the window, an infinity or a NaN goes into its own bin, one at a time.
  void add_all(const T* x, std::size_t n) {
    for (std::size_t i0 = 0; i0 < n; i0 += window_block)
      add_block(x + i0, std::min(window_block, n - i0));
  }

  static constexpr std::size_t window_block = 256;
  static constexpr int window = is_double ? 28 : 31;
  static constexpr int low_bits = 26;  // a double's significand: its low part

  void add_block(const T* x, std::size_t n) {
    typedef bits_t value_bits __attribute__((may_alias));  // the values' bits, read in place
    const auto* b = reinterpret_cast<const value_bits*>(x);
    constexpr int top_exponent = exponents - 1;
    constexpr bits_t frac_mask = (bits_t(1) << mantissa) - 1;
    int top = 1;  // the largest exponent (subnormals as 1; inf and NaN included: they go apart)
    for (std::size_t i = 0; i < n; ++i) {
      const int e = int((b[i] >> mantissa) & top_exponent);
      top = e > top ? e : top;
    }
    const int base = std::max(top - window, 1);
    std::int64_t low = 0, high = 0;
    unsigned apart = 0;
    if constexpr (is_double) {
      // Every quantity 64 bits wide and the signs applied as (t ^ s) - s, s = 0 or -1: the form
      // in which the compiler vectorizes the two sums.
      std::int64_t outside = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t e = std::int64_t((b[i] >> mantissa) & top_exponent);
        const std::int64_t ee = e + (e == 0);
        const std::int64_t m = std::int64_t(b[i] & frac_mask) | (std::int64_t(e != 0) << mantissa);
        const std::int64_t inside = (ee >= base) & (e != top_exponent);
        const std::int64_t sign = -std::int64_t(b[i] >> 63), keep = -inside;
        const std::int64_t shift = (ee - base) & keep;
        const std::int64_t lo = ((m & ((std::int64_t(1) << low_bits) - 1)) << shift) & keep;
        const std::int64_t hi = ((m >> low_bits) << shift) & keep;
        low += (lo ^ sign) - sign;
        high += (hi ^ sign) - sign;
        outside |= inside ^ 1;
      }
      apart = unsigned(outside);
    } else {
      // 32-bit exponents and a 64-bit term: the form in which it vectorizes fastest here
      for (std::size_t i = 0; i < n; ++i) {
        const int e = int((b[i] >> mantissa) & top_exponent), ee = e ? e : 1;
        const std::int64_t m =
            std::int64_t(e ? (b[i] & frac_mask) | (bits_t(1) << mantissa) : b[i] & frac_mask);
        const bool inside = ee >= base && e != top_exponent;
        const std::int64_t term = inside ? m << (ee - base) : 0;
        low += b[i] >> 31 ? -term : term;
        apart |= unsigned(!inside);
      }
    }
    if (!apart) {
      bin[base] += low;
      if constexpr (is_double) bin[base + low_bits] += high;
      return;
    }
    // Some values outside the window (data of exponents far apart): the whole block one value
    // at a time instead, each into its own bin (no branch on where each value falls).
    for (std::size_t i = 0; i < n; ++i) add(x[i]);
  }

  void merge(const exact_bins& o) {
    for (int e = 0; e < exponents; ++e) bin[e] += o.bin[e];
    pos_inf += o.pos_inf, neg_inf += o.neg_inf, nan += o.nan;
  }

  // The special values' answer, or false with none to give.
  bool special(double& answer) const {
    if (nan || (pos_inf && neg_inf)) {
      answer = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    if (pos_inf || neg_inf) {
      answer = pos_inf ? std::numeric_limits<double>::infinity()
                       : -std::numeric_limits<double>::infinity();
      return true;
    }
    return false;
  }

  // The bins as one long integer in units of 2^unit_exponent: bin e holds units of 2^(e - 1).
  long_sum folded() const {
    long_sum s;
    for (int e = 1; e < exponents - 1; ++e) s.add(__int128(bin[e]), unsigned(e - 1));
    return s;
  }

  // The exact sum, rounded once to double.
  double sum() const {
    double answer;
    if (special(answer)) return answer;
    return folded().rounded(unit_exponent);
  }

  // The exact sum over n, rounded once to double (n > 0).
  double mean(std::uint64_t n) const {
    double answer;
    if (special(answer)) return answer;
    long_sum s = folded();
    const bool neg = s.negative();
    if (neg) s.negate();
    // Two limbs of fraction below the units, so that the quotient keeps 128 bits past the
    // answer's last bit; what the division leaves is only the sticky bit of the rounding.
    s.shift_limb_up();
    s.shift_limb_up();
    const bool rest = s.divide(n);
    const double v = s.rounded(unit_exponent - 128, rest);
    return neg ? -v : v;
  }
};

}  // namespace pplab::detail
