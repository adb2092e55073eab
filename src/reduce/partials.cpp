// How the partials of a distributed reduction combine (see partials.hpp).
#include "reduce/partials.hpp"

#include <limits>

#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_parts {

partial join(const partial& a, const partial& b) {
  partial out = a;
  out.n = a.n + b.n;
  if (a.what == op::mean) {
    // Weighted by the counts in long double; a part with no elements weighs nothing.
    const long double total = (long double)a.value.f * a.n + (long double)b.value.f * b.n;
    out.value = scalar::of(out.n ? double(total / (long double)out.n) : 0.0);
    return out;
  }
  visit_reduce<true, false, true>(a.type, a.what, [&](auto tag, auto otag) {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    if constexpr (is_arg(O)) {
      const auto pair_of = [](const partial& p) {  // a part with no element: the identity
        return p.index < 0 ? identity<T, O>() : acc_t<T, O>{p.value.as<T>(), p.index};
      };
      const acc_t<T, O> best = combine<T, O>(pair_of(a), pair_of(b));
      if (best.index == no_index) return;  // neither has an element
      out.value = scalar::of(best.value), out.index = best.index;
    } else if constexpr (O != op::mean) {
      using A = acc_t<T, O>;
      out.value = scalar::of(combine<T, O>(a.value.as<A>(), b.value.as<A>()));
    }
  });
  return out;
}

partial in_order(const partial* parts, int count) {
  partial acc = parts[0];
  for (int r = 1; r < count; ++r) acc = join(acc, parts[r]);
  return acc;
}

scalar answer(const reduce_problem& p, const partial& all) {
  if (p.what == op::mean && all.n == 0) return scalar::of(std::numeric_limits<double>::quiet_NaN());
  if (is_arg(p.what)) return scalar::of(all.index);
  return all.value;
}

}  // namespace pplab::detail::reduce_parts
