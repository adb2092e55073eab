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

// The same for a product of depth k whose products are each taken as three TF32 products
// (split-TF32: matmul m14, convolution c09). Each operand x is split into big, x's top 10
// mantissa bits (exact), and small, the rest rounded (or truncated) to TF32, within 2^-20 of x;
// big big + big small + small big then misses the exact product by at most
// 2^-21 + 2^-20 + 2^-20 < 2^-18 of it (the rounding of small, the dropped small small), and the
// sums add 3 k terms in fp32. fp32's own bound per term is 2^-23: at k = 1 it cannot hold.
inline double split_tf32_tolerance(std::size_t k) {
  return dot_tolerance(3 * k, dtype::f32) + 0x1.0p-18;
}

}  // namespace pplab::detail
