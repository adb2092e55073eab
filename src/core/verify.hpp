#pragma once
// The tolerance rules, written once for the lab and the tests.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "pplab/dtype.hpp"
#include "pplab/reduce.hpp"

namespace pplab::detail {

// A sum of n terms accumulated in double (with float_accumulator: in float) errs by at most about
// n * eps * sum|x|; this is that bound over sum|x|, with room for the tree's last steps.
inline double sum_tolerance(std::size_t n, bool float_accumulator = false) {
  return 2.0 * double(n + 16) * (float_accumulator ? 0x1.0p-24 : 0x1.0p-53);
}

// A reduction's answer against the reference: integers exactly, NaN only by NaN, floats within
// sum_tolerance(n) of `scale` (the sum of |x|, or |want| when larger, or the smallest normal
// number when both are below it). `rel` is the error over that scale.
inline bool close_enough(const scalar& got, const scalar& want, double scale, std::size_t n,
                         bool float_accumulator, double& rel) {
  rel = 0;
  if (got.k != want.k) return rel = 1, false;
  if (got.k == scalar::kind::i64) return got.i == want.i;
  if (got.k == scalar::kind::u64) return got.u == want.u;
  if (got.f == want.f) return true;  // also the infinite identities of min and max
  if (std::isnan(want.f) || std::isnan(got.f)) return rel = 1, std::isnan(want.f) && std::isnan(got.f);
  // Below the smallest normal number a rounding step errs by a fixed amount, not a relative one
  // (a product of a thousand normal values can land there: 3.7e-315 in one order, one subnormal
  // step away in another), so the scale is never below that number.
  const double tiny = float_accumulator ? double(std::numeric_limits<float>::min())
                                        : std::numeric_limits<double>::min();
  const double s = std::max({scale, std::abs(want.f), tiny});
  rel = std::abs(got.f - want.f) / s;
  return rel <= sum_tolerance(n, float_accumulator);
}

// An element of a product of depth k in type t against the exact one, over the sum of the
// magnitudes of its k terms: a correct float product stays within this.
inline double dot_tolerance(std::size_t k, dtype t) {
  return 2.0 * double(k + 2) * (t == dtype::f32 ? 0x1.0p-23 : 0x1.0p-52);
}

}  // namespace pplab::detail
