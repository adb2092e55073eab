// reduce/seq/r01_sequential_loop: the O(N) loop of the reduction notes, and the reference for every
// rung. One accumulator starts at the identity and meets each element once: N operations, but each
// waits for the one before it (the serial dependency the reduction notes point at), so a float sum
// runs at the latency of one add per element, not at the memory's pace. Measured (2-core EPYC dev
// machine, bench/results/cpu-2core-2026-11-21.json): f32 sum of 2^28, 4.2 GB/s, 16% of read
// bandwidth. argmin and argmax carry (value, index) pairs through the same loop, var and std
// (count, mean, squared deviations) triples.
#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_seq {
namespace {

struct sequential_loop {
  static constexpr bool args = true;
  static constexpr bool moments = true;
  static constexpr bool nans = true;
  template <class T, op O> static acc_t<T, O> run(const T* x, std::size_t n) {
    acc_t<T, O> acc = identity<T, O>();
    for (std::size_t i = 0; i < n; ++i) acc = combine<T, O>(acc, lift<T, O>(x[i], i));
    return acc;
  }
};

}  // namespace

extern const reduce_rung r01_sequential_loop{
    .info = {.step = 1, .summary = "one accumulator, one element after another: the reference"},
    .can_run = every_problem,
    .run = dispatch_reduce<sequential_loop>,
};

}  // namespace pplab::detail::reduce_seq
