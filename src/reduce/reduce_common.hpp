#pragma once
// What every host reduction rung shares: the accumulator of each op, its combine, and the
// dispatch from a run-time (dtype, op) to a rung's template. mean is a sum divided at the end,
// so rungs implement sum, product, min and max only.
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/registry.hpp"

namespace pplab::detail {

// Accumulator: sums and products in 64 bits (floats in double), min and max in the element type.
template <class T, op O>
using acc_t = std::conditional_t<O == op::min || O == op::max, T, wide_t<T>>;

template <class T, op O> constexpr acc_t<T, O> identity() noexcept {
  return identity_of<acc_t<T, O>>(O);
}

// Combine two accumulators. Integer sums and products wrap modulo 2^64 (done in unsigned
// arithmetic: signed overflow would be undefined). min and max propagate NaN: a NaN operand wins.
template <class T, op O> constexpr acc_t<T, O> combine(acc_t<T, O> a, acc_t<T, O> b) noexcept {
  using A = acc_t<T, O>;
  if constexpr (O == op::sum || O == op::mean) {
    if constexpr (std::is_integral_v<A>) return A(std::uint64_t(a) + std::uint64_t(b));
    else return a + b;
  } else if constexpr (O == op::product) {
    if constexpr (std::is_integral_v<A>) return A(std::uint64_t(a) * std::uint64_t(b));
    else return a * b;
  } else if constexpr (O == op::min) {
    return (a < b || a != a) ? a : b;
  } else {
    return (a > b || a != a) ? a : b;
  }
}

// Calls Impl::template run<T, O>(x, n) for the call's dtype and op (mean through sum) and
// stores the scalar answer.
template <class Impl> void dispatch_reduce(const reduce_call& c) {
  visit_dtype(c.p.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(c.in);
    switch (c.p.what) {
    case op::sum:
      *c.out = scalar::of(Impl::template run<T, op::sum>(x, c.p.n));
      break;
    case op::product:
      *c.out = scalar::of(Impl::template run<T, op::product>(x, c.p.n));
      break;
    case op::min:
      *c.out = scalar::of(Impl::template run<T, op::min>(x, c.p.n));
      break;
    case op::max:
      *c.out = scalar::of(Impl::template run<T, op::max>(x, c.p.n));
      break;
    case op::mean: {
      const auto s = Impl::template run<T, op::sum>(x, c.p.n);
      *c.out =
          scalar::of(c.p.n ? double(s) / double(c.p.n) : std::numeric_limits<double>::quiet_NaN());
      break;
    }
    }
  });
}

inline bool any_problem(const reduce_problem&) { return true; }

}  // namespace pplab::detail
