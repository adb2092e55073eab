// reduce/seq/r04_moments_in_blocks: var and std on one core, in fixed blocks of 4096 elements,
// each block's two passes in L1 and the blocks' triples merged in order
// (reduce/moments_in_blocks.hpp): cpu r05's answer, bit for bit, with one thread. r01 merges an
// element at a time: a division each, one after another, and a running mean rounded at every
// element (at a mean of 1e9 and a spread of 1, its variance 1.1e-7 off the exact one).
#include "reduce/moments_in_blocks.hpp"

namespace pplab::detail::reduce_seq {

extern const reduce_rung r04_moments_in_blocks{
    .info = {.step = 4,
             .summary = "var and std: fixed blocks of 4096 in two passes each (nanmean one), "
                        "merged in block order (cpu r05's bits on one core)"},
    .can_run = moments_problems,
    .run =
        [](const reduce_call& c) {
          moments_blocks::run_in_blocks(c, [](std::size_t blocks, auto&& each) {
            for (std::size_t b = 0; b < blocks; ++b) each(b);
          });
        },
};

}  // namespace pplab::detail::reduce_seq
