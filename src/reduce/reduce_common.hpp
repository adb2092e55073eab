#pragma once
// What every host reduction rung shares: the accumulator of each op, its combine, and the
// dispatch from a run-time (dtype, op) to a rung's template. mean is a sum divided at the end,
// so rungs implement sum, product, min and max only.
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/visit.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail {

// The one place a run-time (dtype, op) of a reduction becomes types, for host rungs, GPU rungs
// and the staging code alike: f(T{}, op_tag<O>{}) with T the element type and O the operator.
// A mean is a sum divided at the end (the caller divides): of floats, visited as the double sum;
// of integers, as op::mean, whose accumulator is 128 bits wide.
template <class T, class F> decltype(auto) visit_op(op o, F&& f) {
  switch (o) {
  case op::product:
    return f(op_tag<op::product>{});
  case op::min:
    return f(op_tag<op::min>{});
  case op::max:
    return f(op_tag<op::max>{});
  case op::mean:
    if constexpr (!std::is_floating_point_v<T>) return f(op_tag<op::mean>{});
    [[fallthrough]];
  default:
    return f(op_tag<op::sum>{});
  }
}

template <class F> decltype(auto) visit_reduce(dtype t, op o, F&& f) {
  return visit_dtype(t, [&](auto tag) -> decltype(auto) {
    return visit_op<decltype(tag)>(o, [&](auto otag) -> decltype(auto) { return f(tag, otag); });
  });
}

// Accumulator: sums and products in 64 bits (floats in double), min and max in the element type.
// An integer mean sums in 128 bits: no input a machine can hold makes that sum wrap, so the mean
// of 64-bit integers is right whatever their size (a float mean is a double sum).
template <class T>
using mean_acc_t =
    std::conditional_t<std::is_floating_point_v<T>, double,
                       std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>>;
template <class T, op O>
using acc_t = std::conditional_t<O == op::mean, mean_acc_t<T>,
                                 std::conditional_t<O == op::min || O == op::max, T, wide_t<T>>>;

template <class T, op O> PPLAB_HD constexpr acc_t<T, O> identity() noexcept {
  return identity_of<acc_t<T, O>>(O);
}

// Combine two accumulators. Integer sums and products wrap modulo 2^64 (done in unsigned
// arithmetic: signed overflow would be undefined). min and max propagate NaN: a NaN operand wins.
template <class T, op O>
PPLAB_HD constexpr acc_t<T, O> combine(acc_t<T, O> a, acc_t<T, O> b) noexcept {
  using A = acc_t<T, O>;
  if constexpr (O == op::mean) {
    return a + b;  // 128-bit integers or doubles: no wrap
  } else if constexpr (O == op::sum) {
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

// The operator as a callable, for code generic over the combine (the CUDA toolbox).
template <class T, op O> struct op_combine {
  PPLAB_HD constexpr acc_t<T, O> operator()(acc_t<T, O> a, acc_t<T, O> b) const noexcept {
    return combine<T, O>(a, b);
  }
};

// The answer of a reduction from its accumulator: a mean divides the sum by n (in long double,
// from a 128-bit integer sum or a double one).
template <class A> scalar answer_of(A acc, op what, std::size_t n) {
  if (what != op::mean) {
    if constexpr (sizeof(A) <= 8) return scalar::of(acc);
  }
  return scalar::of(n ? double((long double)acc / (long double)n)
                      : std::numeric_limits<double>::quiet_NaN());
}

// Calls Impl::template run<T, O>(x, n) for the call's dtype and op and stores the answer.
template <class Impl> void dispatch_reduce(const reduce_call& c) {
  visit_reduce(c.p.type, c.p.what, [&](auto tag, auto otag) {
    using T = decltype(tag);
    *c.out =
        answer_of(Impl::template run<T, decltype(otag)::value>(static_cast<const T*>(c.in), c.p.n),
                  c.p.what, c.p.n);
  });
}

}  // namespace pplab::detail
