// reduce/seq/r03_exact_bins: the exact sum at a plain sum's pace on one core. Values of one
// exponent add exactly as integers, so one 128-bit integer per exponent (a bin, Neal's large
// accumulator) takes each value with one add and no carry chain; and a block of 256 values whose
// exponents lie within a window are added as they are (or, doubles, in two parts) into
// one double where no add can round (reduce/exact_bins.hpp says how and why), in vector
// registers. The bins become one long integer once, at the end, and that is rounded once.
// Measured (2-core EPYC, bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its last
// section): 2^26 f32 12.1 ms and f64 23.6 ms against the plain sequential loop's 55.5 ms.
#include <memory>

#include "reduce/exact_bins.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail::reduce_seq {

extern const reduce_rung r03_exact_bins{
    .info = {.step = 3, .summary = "exact: a 128-bit bin per exponent, blocks in a window"},
    .can_run = exact_problems,
    .run =
        [](const reduce_call& c) {
          visit_exact(c.p.type, [&](auto tag) {
            using T = decltype(tag);
            auto bins = std::make_unique<exact_bins<T>>();  // 32 KiB for double: not the stack
            bins->add_all(static_cast<const T*>(c.in), c.p.n);
            *c.total() = bins->total();
            c.total()->count = c.p.n;
          });
        },
};

}  // namespace pplab::detail::reduce_seq
