// reduce/seq/r02_exact_long_accumulator: the textbook exact sum (Kulisch's long accumulator).
// Every float is an integer (its significand) times a power of two, so one fixed-point integer
// wide enough for the type's whole range holds any sum of them exactly: each value is added at
// its place, its carry running up through the words above. No rounding until the end, so the
// order of the adds cannot matter, which is what a reduction tree needs of its operator. The
// cost: a multi-word add with a carry chain per value, one after another: a few ns per value,
// far from memory speed (r03 and the cpu and cuda rungs keep the idea and shed the cost).
#include "reduce/exact_bins.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail::reduce_seq {
namespace {

template <class T> exact_total long_accumulator(const T* x, std::size_t n) {
  using bits_t = typename exact_bins<T>::bits_t;
  constexpr int mantissa = exact_bins<T>::mantissa, top = exact_bins<T>::exponents - 1;
  exact_total t;
  t.count = n;
  for (std::size_t i = 0; i < n; ++i) {
    bits_t b;
    std::memcpy(&b, x + i, sizeof b);
    const int e = int((b >> mantissa) & top);
    const bits_t frac = b & ((bits_t(1) << mantissa) - 1);
    const bool neg = b >> (sizeof(bits_t) * 8 - 1);
    if (e == top) {  // inf or NaN
      if (frac) ++t.nan;
      else if (neg) ++t.neg_inf;
      else ++t.pos_inf;
      continue;
    }
    // A subnormal (e = 0) has no implicit bit and the place of e = 1.
    const __int128 m = __int128(frac | (bits_t(e != 0) << mantissa));
    t.value.add(neg ? -m : m, unsigned(e ? e - 1 : 0));
  }
  return t;
}

}  // namespace

extern const reduce_rung r02_exact_long_accumulator{
    .info = {.step = 2,
             .summary = "exact: each value added into one long fixed-point integer (Kulisch)"},
    .can_run = exact_problems,
    .run =
        [](const reduce_call& c) {
          visit_exact(c.p.type, [&](auto tag) {
            using T = decltype(tag);
            *c.total() = long_accumulator(static_cast<const T*>(c.in), c.p.n);
          });
        },
};

}  // namespace pplab::detail::reduce_seq
