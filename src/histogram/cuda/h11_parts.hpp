#pragma once
// What h12 (the sampled choice) takes of the two rungs it chooses between: their records, and h11
// in two calls: the sample (on the call's stream; the counts untouched), whose last block writes
// 1 to the returned device word if its hot slots hold at least hot_enough of the samples, else 0
// (hot_enough > 0; n > 0); then the counting.
#include "histogram/rung.hpp"

namespace pplab::detail::histogram_cuda {
extern const histogram_rung h10_block_multisplit, h11_partial_privatized;
const unsigned* h11_find_hot(const histogram_call&, double hot_enough);
void h11_count(const histogram_call&);
}  // namespace pplab::detail::histogram_cuda
