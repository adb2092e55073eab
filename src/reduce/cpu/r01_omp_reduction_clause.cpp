// reduce/cpu/r01_omp_reduction_clause: the reduction notes' one-line OpenMP version,
// `#pragma omp parallel for reduction(+:sum)`. OpenMP splits the loop over the cores and combines
// the per-thread copies itself. Each thread still runs the sequential loop with one accumulator,
// so a float sum waits on the add latency; and the combine order is OpenMP's, so float results
// may change with the thread count. argmin and argmax through a declared reduction.
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): f32 sum of 2^28, 7.0
// GB/s, 28% of read bandwidth.
#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_cpu {
namespace {

// argmin and argmax: OpenMP has no clause for them, so the pair's combine is declared as one
// (the notes' user-defined reduction with its identity). The pairs' order is total, so the
// runtime's combine order does not change the answer.
template <class T, op O> acc_t<T, O> omp_arg(const T* x, std::ptrdiff_t len) {
  using A = acc_t<T, O>;
  A best = identity<T, O>();
#pragma omp declare reduction(pair:A : omp_out = combine<T, O>(omp_out, omp_in))                  \
    initializer(omp_priv = identity<T, O>())
#pragma omp parallel for reduction(pair : best)
  for (std::ptrdiff_t i = 0; i < len; ++i) best = combine<T, O>(best, lift<T, O>(x[i], i));
  return best;
}

struct omp_reduction_clause {
  static constexpr bool args = true;
  template <class T, op O> static acc_t<T, O> run(const T* x, std::size_t n) {
    using A = acc_t<T, O>;
    const std::ptrdiff_t len = std::ptrdiff_t(n);
    if constexpr (is_arg(O)) {
      return omp_arg<T, O>(x, len);
    } else if constexpr (O == op::count_nonzero) {
      A count = 0;
#pragma omp parallel for reduction(+ : count)
      for (std::ptrdiff_t i = 0; i < len; ++i) count += A(x[i] != T(0));
      return count;
    } else if constexpr (O == op::sum && std::is_integral_v<A>) {
      std::uint64_t s = 0;  // unsigned: wraps modulo 2^64 instead of overflowing
#pragma omp parallel for reduction(+ : s)
      for (std::ptrdiff_t i = 0; i < len; ++i) s += std::uint64_t(A(x[i]));
      return A(s);
    } else if constexpr (O == op::sum) {
      double s = 0;
#pragma omp parallel for reduction(+ : s)
      for (std::ptrdiff_t i = 0; i < len; ++i) s += double(x[i]);
      return s;
    } else if constexpr (O == op::mean) {
      // An integer mean sums in 128 bits, for which OpenMP has no reduction clause: per-thread
      // sums added under a critical section (a float mean is the double sum above).
      A s = 0;
#pragma omp parallel
      {
        A mine = 0;
#pragma omp for
        for (std::ptrdiff_t i = 0; i < len; ++i) mine += A(x[i]);
#pragma omp critical
        s += mine;
      }
      return s;
    } else if constexpr (O == op::product && std::is_integral_v<A>) {
      std::uint64_t p = 1;
#pragma omp parallel for reduction(* : p)
      for (std::ptrdiff_t i = 0; i < len; ++i) p *= std::uint64_t(A(x[i]));
      return A(p);
    } else if constexpr (O == op::product) {
      double p = 1;
#pragma omp parallel for reduction(* : p)
      for (std::ptrdiff_t i = 0; i < len; ++i) p *= double(x[i]);
      return p;
    } else {
      // OpenMP's min and max drop NaN, so NaN is noticed apart and wins at the end.
      A m = identity<T, O>();
      bool nan = false;
      if constexpr (O == op::min) {
#pragma omp parallel for reduction(min : m) reduction(|| : nan)
        for (std::ptrdiff_t i = 0; i < len; ++i) {
          nan = nan || x[i] != x[i];
          m = x[i] < m ? x[i] : m;
        }
      } else {
#pragma omp parallel for reduction(max : m) reduction(|| : nan)
        for (std::ptrdiff_t i = 0; i < len; ++i) {
          nan = nan || x[i] != x[i];
          m = x[i] > m ? x[i] : m;
        }
      }
      if constexpr (std::is_floating_point_v<A>)
        if (nan) return std::numeric_limits<A>::quiet_NaN();
      return m;
    }
  }
};

}  // namespace

extern const reduce_rung r01_omp_reduction_clause{
    .info = {.step = 1,
             .summary = "OpenMP reduction clause: per-thread copies combined by the runtime",
             .reproducible = false},
    .can_run = any_problem,
    .run = dispatch_reduce<omp_reduction_clause>,
};

}  // namespace pplab::detail::reduce_cpu
