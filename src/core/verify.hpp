#pragma once
// The tolerance rules, written once for the lab and the tests of every pattern.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "pplab/dtype.hpp"

namespace pplab::detail {

// A sum of n terms accumulated in double (with float_accumulator: in float) errs by at most about
// n * eps * sum|x|; this is that bound over sum|x|, with room for the tree's last steps.
inline double sum_tolerance(std::size_t n, bool float_accumulator = false) {
  return 2.0 * double(n + 16) * (float_accumulator ? 0x1.0p-24 : 0x1.0p-53);
}

// An element of a product of depth k in type t against the exact one, over the sum of the
// magnitudes of its k terms: a correct float product stays within this.
inline double dot_tolerance(std::size_t k, dtype t) {
  return 2.0 * double(k + 2) * (t == dtype::f32 ? 0x1.0p-23 : 0x1.0p-52);
}

}  // namespace pplab::detail
