#pragma once
// What every host reduction rung shares: the accumulator of each op, its combine, and the
// dispatch from a run-time (dtype, op) to a rung's template. mean is a sum divided at the end,
// so rungs implement sum, product, min and max, and those that say so argmin and argmax, whose
// accumulator is a (value, index) pair.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/visit.hpp"
#include "pplab/error.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail {

// The one place a run-time (dtype, op) of a reduction becomes types, for host rungs, GPU rungs
// and the staging code alike: f(T{}, op_tag<O>{}) with T the element type and O the operator.
// A mean is a sum divided at the end (the caller divides): of floats, visited as the double sum;
// of integers, as op::mean, whose accumulator is 128 bits wide.
// argmin and argmax are visited only where `args` says the code takes them; var and std only
// where `moments_too` does, both as op::var (their accumulator is one: the answer's last step
// tells them apart, from the run-time op).
template <class T, bool args = false, bool moments_too = false, class F>
decltype(auto) visit_op(op o, F&& f) {
  if constexpr (moments_too) {
    if (is_moments(o)) return f(op_tag<op::var>{});
  } else if (is_moments(o)) {
    fail(errc::unsupported, std::string(name_of(o)) + " is not taken here (only where a rung "
                                                      "or call says it takes var and std)");
  }
  if constexpr (args) {
    if (o == op::argmin) return f(op_tag<op::argmin>{});
    if (o == op::argmax) return f(op_tag<op::argmax>{});
  } else if (is_arg(o)) {
    fail(errc::unsupported, std::string(name_of(o)) + " is not taken here (only where a rung "
                                                      "or call says it takes argmin and argmax)");
  }
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

template <bool args = false, bool moments_too = false, class F>
decltype(auto) visit_reduce(dtype t, op o, F&& f) {
  return visit_dtype(t, [&](auto tag) -> decltype(auto) {
    return visit_op<decltype(tag), args, moments_too>(
        o, [&](auto otag) -> decltype(auto) { return f(tag, otag); });
  });
}

// The accumulator of argmin and argmax: the best value met and its index. The identity's index
// is no_index, which every element's index beats; a rung answers -1 for it (no element).
inline constexpr std::int64_t no_index = std::numeric_limits<std::int64_t>::max();
template <class T> struct arg_acc {
  T value;
  std::int64_t index;
};

// Accumulator: sums and products in 64 bits (floats in double), min and max in the element type.
// An integer mean sums in 128 bits: no input a machine can hold makes that sum wrap, so the mean
// of 64-bit integers is right whatever their size (a float mean is a double sum).
template <class T>
using mean_acc_t =
    std::conditional_t<std::is_floating_point_v<T>, double,
                       std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>>;
// var and std: moments (rung.hpp), in double whatever T (as NumPy's var of integers).
template <class T, op O>
using acc_t = std::conditional_t<
    is_arg(O), arg_acc<T>,
    std::conditional_t<
        is_moments(O), moments,
        std::conditional_t<O == op::mean, mean_acc_t<T>,
                           std::conditional_t<O == op::min || O == op::max, T, wide_t<T>>>>>;

template <class T, op O> PPLAB_HD constexpr acc_t<T, O> identity() noexcept {
  if constexpr (is_arg(O)) return {identity_of<T>(O == op::argmin ? op::min : op::max), no_index};
  else if constexpr (is_moments(O)) return {0, 0, 0};
  else return identity_of<acc_t<T, O>>(O);
}

// Element x at index i as an accumulator: the pair for argmin and argmax, one value's moments
// for var and std, the value otherwise.
template <class T, op O> PPLAB_HD constexpr acc_t<T, O> lift(T x, std::size_t i) noexcept {
  if constexpr (is_arg(O)) return {x, std::int64_t(i)};
  else if constexpr (is_moments(O)) return {1, double(x), 0};
  else return acc_t<T, O>(x);
}

// Combine two accumulators. Integer sums and products wrap modulo 2^64 (done in unsigned
// arithmetic: signed overflow would be undefined). min and max propagate NaN: a NaN operand wins.
// argmin and argmax order the pairs totally, NaN first, then by value, then by index, and keep
// the first: so any tree, any order of the parts, gives NumPy's answer (the first NaN, else the
// first extreme value). var's and std's moments merge as Chan, Golub and LeVeque give it: the
// counts add, the mean moves toward b's by b's share of the count, and the squared deviations
// add with the term the distance of the two means brings; a part of no element is the identity.
template <class T, op O>
PPLAB_HD constexpr acc_t<T, O> combine(acc_t<T, O> a, acc_t<T, O> b) noexcept {
  using A = acc_t<T, O>;
  if constexpr (is_moments(O)) {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    const double n = a.n + b.n, d = b.mean - a.mean, share = b.n / n;
    return {n, a.mean + d * share, a.m2 + b.m2 + d * d * a.n * share};
  } else if constexpr (is_arg(O)) {
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    if (a_nan != b_nan) return a_nan ? a : b;
    if (!a_nan) {
      if (O == op::argmax ? a.value > b.value : a.value < b.value) return a;
      if (O == op::argmax ? b.value > a.value : b.value < a.value) return b;
    }
    return a.index <= b.index ? a : b;
  } else if constexpr (O == op::mean) {
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
// The variance of moments m (NaN with no element, or where an infinity or a NaN made the mean
// one: NumPy's var is NaN there), or its square root for std.
PPLAB_HD inline double moments_value(op what, const moments& m) {
  const double v =
      m.n > 0 && m.mean - m.mean == 0 ? m.m2 / m.n : std::numeric_limits<double>::quiet_NaN();
  return what == op::std_dev ? sqrt(v) : v;
}
inline scalar answer_of(const moments& m, op what, std::size_t) {
  return scalar::of(moments_value(what, m));
}
template <class T> scalar answer_of(arg_acc<T> acc, op, std::size_t) {
  return scalar::of(acc.index == no_index ? std::int64_t(-1) : acc.index);
}
template <class A> scalar answer_of(A acc, op what, std::size_t n) {
  if (what != op::mean) {
    if constexpr (sizeof(A) <= 8) return scalar::of(acc);
  }
  return scalar::of(n ? double((long double)acc / (long double)n)
                      : std::numeric_limits<double>::quiet_NaN());
}

// Rungs that take argmin and argmax say so with `static constexpr bool args = true`; those that
// take var and std with `static constexpr bool moments = true`.
template <class Impl>
concept takes_args = requires {
  requires Impl::args;
};
template <class Impl>
concept takes_moments = requires {
  requires Impl::moments;
};

// Calls Impl::template run<T, O>(x, n) for the call's dtype and op and stores the answer (var's
// and std's moments as they are: answer_bytes).
template <class Impl> void dispatch_reduce(const reduce_call& c) {
  visit_reduce<takes_args<Impl>, takes_moments<Impl>>(c.p.type, c.p.what, [&](auto tag, auto otag) {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    const auto acc = Impl::template run<T, O>(static_cast<const T*>(c.in), c.p.n);
    if constexpr (is_moments(O)) *reinterpret_cast<moments*>(c.out) = acc;
    else *c.out = answer_of(acc, c.p.what, c.p.n);
  });
}

}  // namespace pplab::detail
