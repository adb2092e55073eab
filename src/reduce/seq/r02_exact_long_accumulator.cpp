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
  exact_total t;
  t.count = n;
  for (std::size_t i = 0; i < n; ++i) exact_bins<T>::add_to_total(t, x[i]);
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
