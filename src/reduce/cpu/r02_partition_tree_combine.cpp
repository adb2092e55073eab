// reduce/cpu/r02_partition_tree_combine: partition and summarize by hand. Each thread reduces its
// own contiguous section into a private partial (on its own cache line, so no false sharing),
// then the partials meet in a reduction tree: log2(threads) steps, barrier between steps, as the
// notes' shared-memory tree. Deterministic for a given thread count. Each thread's loop still
// has one accumulator, so float sums stay bound by the add latency: r03 removes that. The
// ladder's first cpu rung for var and std: their merge of two parts is one combine like any
// other (r05 is the API's).
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): f32 sum of 2^28, 8.2
// GB/s, 32% of read bandwidth.
#include <omp.h>

#include <vector>

#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_cpu {
namespace {

template <class A> struct alignas(64) padded { A value; };

struct partition_tree_combine {
  static constexpr bool args = true;
  static constexpr bool moments = true;
  static constexpr bool nans = true;
  template <class T, op O> static acc_t<T, O> run(const T* x, std::size_t n) {
    using A = acc_t<T, O>;
    std::vector<padded<A>> partial(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel
    {
      const std::size_t t = std::size_t(omp_get_thread_num());
      const std::size_t threads = std::size_t(omp_get_num_threads());
      const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
      A acc = identity<T, O>();
      for (std::size_t i = begin; i < end; ++i) acc = combine<T, O>(acc, lift<T, O>(x[i], i));
      partial[t].value = acc;
      for (std::size_t stride = 1; stride < threads; stride *= 2) {
#pragma omp barrier
        if (t % (2 * stride) == 0 && t + stride < threads)
          partial[t].value = combine<T, O>(partial[t].value, partial[t + stride].value);
      }
    }
    return partial[0].value;
  }
};

}  // namespace

extern const reduce_rung r02_partition_tree_combine{
    .info = {.step = 2,
             .summary = "per-thread partials on their own cache lines, combined in a tree"},
    .can_run = every_problem,
    .run = dispatch_reduce<partition_tree_combine>,
};

}  // namespace pplab::detail::reduce_cpu
