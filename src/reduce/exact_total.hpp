#pragma once
// An exact sum's answer before its rounding: the finite values' real sum as one long fixed-point
// integer (a Kulisch superaccumulator: every value is an integer times a power of two, so values
// add exactly as integers once placed at their power), and counts of the infinities and NaNs.
// Exact totals of parts add exactly, in any order (of threads, chunks, GPUs or ranks): this is
// what an exact reduction rung answers (reduce_call::total), and it is rounded once, at the end,
// to nearest double, ties to even: math.fsum's answer.
//
// The layout is plain words (the GPU rung writes it); the arithmetic is the host's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "pplab/dtype.hpp"

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

  // Adds another long integer (two's complement: the carry out of the top limb is dropped).
  void add(const long_sum& o) {
    unsigned carry = 0;
    for (int i = 0; i < limbs; ++i) {
      const std::uint64_t s = limb[i] + o.limb[i];
      const unsigned c1 = s < limb[i];
      limb[i] = s + carry;
      carry = c1 | (limb[i] < s);
    }
  }

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

// The weight of a long integer's bit 0 for data of type t (f32 or f64): the type's smallest
// subnormal, so that every value of the type is a whole number of units.
constexpr int exact_unit_exponent(dtype t) { return t == dtype::f64 ? -1074 : -149; }

struct exact_total {
  long_sum value;  // the finite values' sum, in units of 2^exact_unit_exponent(type)
  std::uint64_t pos_inf = 0, neg_inf = 0, nan = 0;
  std::uint64_t count = 0;  // the values summed: the mean's divisor

  void merge(const exact_total& o) {
    value.add(o.value);
    pos_inf += o.pos_inf, neg_inf += o.neg_inf, nan += o.nan;
    count += o.count;
  }

  // The special values' answer, or false with none to give: a NaN, or +inf with -inf, is NaN;
  // an infinity gives that of its sign.
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

  // The exact sum of data of type t, rounded once to double.
  double sum(dtype t) const {
    double answer;
    if (special(answer)) return answer;
    return value.rounded(exact_unit_exponent(t));
  }

  // The exact sum over the count, rounded once to double (count > 0).
  double mean(dtype t) const {
    const std::uint64_t n = count;
    double answer;
    if (special(answer)) return answer;
    long_sum s = value;
    const bool neg = s.negative();
    if (neg) s.negate();
    // Two limbs of fraction below the units, so that the quotient keeps 128 bits past the
    // answer's last bit; what the division leaves is only the sticky bit of the rounding.
    s.shift_limb_up();
    s.shift_limb_up();
    const bool rest = s.divide(n);
    const double v = s.rounded(exact_unit_exponent(t) - 128, rest);
    return neg ? -v : v;
  }
};

}  // namespace pplab::detail
