#pragma once
// What every host reduction rung shares: the accumulator of each op, its combine, and the
// dispatch from a run-time (dtype, op) to a rung's template. mean is a sum divided at the end,
// so rungs implement sum, product, min and max, and those that say so argmin and argmax, whose
// accumulator is a (value, index) pair.
#include <bit>
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
// tells them apart, from the run-time op); the nan ops of floats only where `nans` does (nanmean,
// nanvar and nanstd as op::nanvar), and of integers as their plain ops (there is no NaN to skip).
template <class T, bool args = false, bool moments_too = false, bool nans = false, class F>
decltype(auto) visit_op(op o, F&& f) {
  if (skips_nan(o)) {
    if constexpr (!std::is_floating_point_v<T>) {
      o = plain_of(o);
    } else if constexpr (nans) {
      switch (o) {
      case op::nansum:
        return f(op_tag<op::nansum>{});
      case op::nanprod:
        return f(op_tag<op::nanprod>{});
      case op::nanmin:
        return f(op_tag<op::nanmin>{});
      case op::nanmax:
        return f(op_tag<op::nanmax>{});
      default:
        break;
      }
      if constexpr (args) {
        if (o == op::nanargmin) return f(op_tag<op::nanargmin>{});
        if (o == op::nanargmax) return f(op_tag<op::nanargmax>{});
      }
      if constexpr (moments_too) {
        if (is_moments(o)) return f(op_tag<op::nanvar>{});
      }
      fail(errc::unsupported, std::string(name_of(o)) + " is not taken here (only where a rung "
                                                        "or call says it takes that op)");
    } else {
      fail(errc::unsupported, std::string(name_of(o)) + " is not taken here (only where a rung "
                                                        "or call says it leaves NaN out)");
    }
  }
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
  case op::count_nonzero:
    return f(op_tag<op::count_nonzero>{});
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

template <bool args = false, bool moments_too = false, bool nans = false, class F>
decltype(auto) visit_reduce(dtype t, op o, F&& f) {
  return visit_dtype(t, [&](auto tag) -> decltype(auto) {
    return visit_op<decltype(tag), args, moments_too, nans>(
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
// count_nonzero: a count in 64 bits.
template <class T, op O>
using acc_t = std::conditional_t<
    is_arg(O), arg_acc<T>,
    std::conditional_t<
        O == op::count_nonzero, std::int64_t,
    std::conditional_t<
        is_moments(O), moments,
        std::conditional_t<
            O == op::mean, mean_acc_t<T>,
            std::conditional_t<plain_of(O) == op::min || plain_of(O) == op::max, T, wide_t<T>>>>>>;

template <class T, op O> PPLAB_HD constexpr acc_t<T, O> identity() noexcept {
  if constexpr (is_arg(O))
    return {identity_of<T>(plain_of(O) == op::argmin ? op::min : op::max), no_index};
  else if constexpr (is_moments(O)) return {0, 0, 0};
  else return identity_of<acc_t<T, O>>(O);
}

// Element x at index i as an accumulator: the pair for argmin and argmax, one value's moments
// for var and std, one or zero for count_nonzero (x != 0: NaN counts), the value otherwise. A nan
// op lifts NaN to its identity (nanmin and nanmax need not: their combine drops NaN).
template <class T, op O> PPLAB_HD constexpr acc_t<T, O> lift(T x, std::size_t i) noexcept {
  if constexpr (skips_nan(O) && O != op::nanmin && O != op::nanmax) {
    if (x != x) return identity<T, O>();
  }
  if constexpr (O == op::count_nonzero) return std::int64_t(x != T(0));
  else if constexpr (is_arg(O)) return {x, std::int64_t(i)};
  else if constexpr (is_moments(O)) return {1, double(x), 0};
  else return acc_t<T, O>(x);
}

// var's, std's and the nan moments' shift: the moments of a run of values are taken of the
// values less one of them, and the shift goes back on the mean at the end (shifted_back). Near
// the mean, it keeps every running mean near zero, so each merge rounds at the spread's scale,
// not the mean's: at a mean of 1e9 and a spread of 1, element-by-element merges had left the
// variance of 1000 values 4e-9 off the exact one (numpy.var, two passes: 1e-14), the GPU's whole
// array 7e-10. The shift is the first finite value of the first 64 (`step` apart), 0 where there
// is none or it is past 2^960 (a value less it could overflow where the value alone does not),
// and 0 for every other op.
template <class T, op O>
PPLAB_HD double shift_for(const T* x, std::size_t n, std::ptrdiff_t step = 1) noexcept {
  if constexpr (is_moments(O)) {
    const std::size_t k = n < 64 ? n : 64;
    for (std::size_t i = 0; i < k; ++i) {
      const double v = double(x[std::ptrdiff_t(i) * step]);
      if (v - v == 0) return v < 0x1p960 && v > -0x1p960 ? v : 0.0;
    }
  }
  return 0;
}
// lift of x less `shift` (the moments' ops; lift itself for the others).
template <class T, op O>
PPLAB_HD constexpr acc_t<T, O> lift_less(T x, std::size_t i, double shift) noexcept {
  if constexpr (is_moments(O)) {
    if constexpr (skips_nan(O)) {
      if (x != x) return identity<T, O>();
    }
    return {1, double(x) - shift, 0};
  } else {
    return lift<T, O>(x, i);
  }
}
// The accumulator of values taken less `shift`, as of the values themselves.
template <class T, op O>
PPLAB_HD constexpr acc_t<T, O> shifted_back(acc_t<T, O> a, double shift) noexcept {
  if constexpr (is_moments(O)) {
    if (a.n > 0) a.mean += shift;
  }
  return a;
}

// For host loops the compiler should vectorize: all ones where x is a number (not NaN), zeros
// where it is NaN, of x's width; and x with NaN replaced by `instead`. Masks of x's bits, ands and
// ors: GCC keeps a compare whose answer picks a value as a branch (a NaN-skipping sum ran at a
// quarter of the plain one's pace), but vectorizes these.
template <class T> using bits_of = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
template <class T> inline bits_of<T> number_mask(T x) noexcept {
  using U = bits_of<T>;
  constexpr U magnitude = ~U(0) >> 1;
  const U is =
      (std::bit_cast<U>(x) & magnitude) <= std::bit_cast<U>(std::numeric_limits<T>::infinity());
  return U(0) - is;
}
template <class T> inline T number_or(T x, T instead) noexcept {
  if constexpr (std::is_floating_point_v<T>) {
    const bits_of<T> m = number_mask(x);
    return std::bit_cast<T>((std::bit_cast<bits_of<T>>(x) & m) |
                            (std::bit_cast<bits_of<T>>(instead) & ~m));
  } else {
    return x;
  }
}

// Combine two accumulators. Integer sums and products wrap modulo 2^64 (done in unsigned
// arithmetic: signed overflow would be undefined). min and max propagate NaN: a NaN operand wins;
// nanmin and nanmax keep the other operand (NaN only when both are). argmin and argmax order the
// pairs totally, NaN first, then by value, then by index, and keep the first: so any tree, any
// order of the parts, gives NumPy's answer (the first NaN, else the first extreme value); their
// nan ops never meet a NaN (lifted to the identity, whose index every element's beats).
// var's and std's moments merge as Chan, Golub and LeVeque give it: the counts add, the mean
// moves toward b's by b's share of the count, and the squared deviations add with the term the
// distance of the two means brings; a part of no element is the identity. Where that distance is
// not finite (an infinite mean, or two means far apart enough to overflow it) the mean is the
// weighted sum of the two instead (inf stays inf, inf and -inf give NaN, as NumPy's mean) and the
// squared deviations are NaN (NumPy's var of an infinity).
template <class T, op O>
PPLAB_HD constexpr acc_t<T, O> combine(acc_t<T, O> a, acc_t<T, O> b) noexcept {
  using A = acc_t<T, O>;
  constexpr op P = plain_of(O);
  if constexpr (is_moments(O)) {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    const double n = a.n + b.n, d = b.mean - a.mean, share = b.n / n;
    if (!(d - d == 0))
      return {n, a.mean * (a.n / n) + b.mean * share, std::numeric_limits<double>::quiet_NaN()};
    return {n, a.mean + d * share, a.m2 + b.m2 + d * d * a.n * share};
  } else if constexpr (is_arg(O)) {
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    if (a_nan != b_nan) return a_nan ? a : b;
    if (!a_nan) {
      if (P == op::argmax ? a.value > b.value : a.value < b.value) return a;
      if (P == op::argmax ? b.value > a.value : b.value < a.value) return b;
    }
    return a.index <= b.index ? a : b;
  } else if constexpr (O == op::mean) {
    return a + b;  // 128-bit integers or doubles: no wrap
  } else if constexpr (P == op::sum || O == op::count_nonzero) {
    if constexpr (std::is_integral_v<A>) return A(std::uint64_t(a) + std::uint64_t(b));
    else return a + b;
  } else if constexpr (P == op::product) {
    if constexpr (std::is_integral_v<A>) return A(std::uint64_t(a) * std::uint64_t(b));
    else return a * b;
  } else if constexpr (O == op::nanmin) {
    return (a < b || b != b) ? a : b;
  } else if constexpr (O == op::nanmax) {
    return (a > b || b != b) ? a : b;
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
// nanmean's answer is the moments' mean (NaN with no element).
PPLAB_HD inline double moments_value(op what, const moments& m) {
  if (what == op::nanmean) return m.n > 0 ? m.mean : std::numeric_limits<double>::quiet_NaN();
  const double v =
      m.n > 0 && m.mean - m.mean == 0 ? m.m2 / m.n : std::numeric_limits<double>::quiet_NaN();
  return plain_of(what) == op::std_dev ? sqrt(v) : v;
}
inline scalar answer_of(const moments& m, op what, std::size_t) {
  return scalar::of(moments_value(what, m));
}
template <class T> scalar answer_of(arg_acc<T> acc, op, std::size_t) {
  return scalar::of(acc.index == no_index ? std::int64_t(-1) : acc.index);
}
template <class A> scalar answer_of(A acc, op what, std::size_t n) {
  if (plain_of(what) != op::mean) {
    if constexpr (sizeof(A) <= 8) return scalar::of(acc);
  }
  return scalar::of(n ? double((long double)acc / (long double)n)
                      : std::numeric_limits<double>::quiet_NaN());
}

// Rungs that take argmin and argmax say so with `static constexpr bool args = true`; those that
// take var and std with `static constexpr bool moments = true`; those that take the nan ops
// (of floats) with `static constexpr bool nans = true`.
template <class Impl>
concept takes_args = requires {
  requires Impl::args;
};
template <class Impl>
concept takes_moments = requires {
  requires Impl::moments;
};
template <class Impl>
concept takes_nans = requires {
  requires Impl::nans;
};

// Calls Impl::template run<T, O>(x, n) for the call's dtype and op and stores the answer (var's
// and std's moments as they are: answer_bytes).
template <class Impl> void dispatch_reduce(const reduce_call& c) {
  const op what = as_for(c.p.type, c.p.what);
  visit_reduce<takes_args<Impl>, takes_moments<Impl>, takes_nans<Impl>>(
      c.p.type, what, [&](auto tag, auto otag) {
        using T = decltype(tag);
        constexpr op O = decltype(otag)::value;
        const auto acc = Impl::template run<T, O>(static_cast<const T*>(c.in), c.p.n);
        if constexpr (is_moments(O)) *reinterpret_cast<moments*>(c.out) = acc;
        else *c.out = answer_of(acc, what, c.p.n);
      });
}

}  // namespace pplab::detail
