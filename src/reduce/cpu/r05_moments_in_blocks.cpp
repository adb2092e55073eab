// reduce/cpu/r05_moments_in_blocks: var and std at the memory's pace, the same bits whatever the
// thread count. r02 merges every element into a running (count, mean, squared deviations) triple:
// a division per element, each waiting for the one before. Here the data is cut into blocks of
// 4096 elements, fixed whatever the threads, each taking two passes in L1
// (reduce/moments_in_blocks.hpp), and the threads share the blocks.
#include <omp.h>

#include "reduce/moments_in_blocks.hpp"

namespace pplab::detail::reduce_cpu {
namespace {

void run(const reduce_call& c) {
  moments_blocks::run_in_blocks(c, [](std::size_t blocks, auto&& each) {
#pragma omp parallel for schedule(static) if (blocks > 1)
    for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b) each(std::size_t(b));
  });
}

}  // namespace

extern const reduce_rung r05_moments_in_blocks{
    .info = {.step = 5,
             .summary = "var and std: fixed blocks of 4096 in two passes each (nanmean one), "
                        "merged in block order: the same bits for any thread count"},
    .can_run = moments_problems,
    .run = run,
};

}  // namespace pplab::detail::reduce_cpu
