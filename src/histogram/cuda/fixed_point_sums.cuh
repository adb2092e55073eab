#pragma once
// What the GPU rungs that sum weights in fixed point share (h13, h15, h19): a weight's exponent
// bound, a slot's scale, and the flags of the weights that are not summed (infinities, NaN), which
// decide the slot's answer as a double sum would. Integer sums are the same in any order, so
// the sums' bits do not depend on the order the atomics land in.
#include <cfloat>

#include "histogram/cuda/any_bins.cuh"

namespace pplab::detail::histogram_cuda {

enum flag : unsigned { pos_inf = 1, neg_inf = 2, nan_seen = 4 };

// e with |v| < 2^e, for finite nonzero v: from the biased exponent (subnormals: 2^-1022).
__device__ inline int exponent_above(double v) {
  const int biased = int((__double_as_longlong(v) >> 52) & 0x7ff);
  return (biased > 0 ? biased : 1) - 1022;
}

// The scale 2^k of a slot whose weights are below 2^e, 2^headroom_bits of them at most:
// k = 62 - headroom_bits - e, so that their scaled sum stays below 2^62 (and k at most 960, so
// that the tiniest weights still have a double scale).
__device__ inline double fixed_point_scale(int e, int headroom_bits) {
  const int k = 62 - headroom_bits - e;
  return ldexp(1.0, k < 960 ? k : 960);
}

// The flag of a weight that is not finite.
__device__ inline unsigned flag_of(double v) {
  return v != v ? nan_seen : v > 0 ? pos_inf : neg_inf;
}

// A slot's answer: its finite sum, unless it saw NaN or both infinities (NaN), or one (it).
__device__ inline double with_flags(double sum, unsigned f) {
  if ((f & nan_seen) || ((f & pos_inf) && (f & neg_inf)))
    return __longlong_as_double(0x7ff8000000000000ll);
  if (f & pos_inf) return __longlong_as_double(0x7ff0000000000000ll);
  if (f & neg_inf) return __longlong_as_double(0xfff0000000000000ll);
  return sum;
}

// Calls f(weights) with the call's weights as float or double, as their type says.
template <class F> void with_weights(const histogram_call& c, F&& f) {
  if (c.p.weight_type == dtype::f32) f(static_cast<const float*>(c.weights));
  else f(static_cast<const double*>(c.weights));
}

// A weighted rung's entry as the dispatch calls it (Impl::template run<T>(x, n, bin, call,
// stream)): Impl::run_with(x, weights, n, bin, call, stream), the weights as their type says.
template <class Impl> struct weights_typed {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    with_weights(c, [&](const auto* w) { Impl::run_with(x, w, n, bin, c, s); });
  }
};

}  // namespace pplab::detail::histogram_cuda
