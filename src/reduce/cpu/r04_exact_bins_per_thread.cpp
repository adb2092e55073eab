// reduce/cpu/r04_exact_bins_per_thread: the exact sum on every core, the reduction notes'
// partition and summarize with an exact combine. Each thread adds its blocks of the data into
// bins of its own (seq's r03: a 128-bit integer per exponent, blocks of 256 in a window), the
// threads' bins are added together as integers, and the whole is rounded once. Integer adds
// are associative, so which thread took which block cannot change a bit of the answer: the same
// bits for every thread count, and the same as seq's.
#include <omp.h>

#include <memory>

#include "reduce/exact_bins.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail::reduce_cpu {
namespace {

constexpr std::size_t block = std::size_t(1) << 16;  // a thread's share, many windows long

template <class T> exact_total bins_per_thread(const T* x, std::size_t n) {
  auto total = std::make_unique<exact_bins<T>>();
  const std::size_t blocks = (n + block - 1) / block;
#pragma omp parallel if (blocks > 1)
  {
    auto mine = std::make_unique<exact_bins<T>>();  // 32 KiB for double: not the stack
#pragma omp for schedule(static)
    for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b) {
      const std::size_t i0 = std::size_t(b) * block;
      mine->add_all(x + i0, std::min(block, n - i0));
    }
#pragma omp critical(pplab_exact_bins)
    total->merge(*mine);
  }
  return total->total();
}

}  // namespace

extern const reduce_rung r04_exact_bins_per_thread{
    .info = {.step = 4,
             .summary = "exact: bins per thread, added as integers, rounded once"},
    .can_run = exact_problems,
    .run =
        [](const reduce_call& c) {
          visit_exact(c.p.type, [&](auto tag) {
            using T = decltype(tag);
            *c.total() = bins_per_thread(static_cast<const T*>(c.in), c.p.n);
            c.total()->count = c.p.n;
          });
        },
};

}  // namespace pplab::detail::reduce_cpu
