#pragma once
// What the nccl reduction rungs share: every GPU reduces its slice of the array with the cuda
// backend's best rung into a partial (reduce/partials.hpp) in its own memory; the rungs differ
// in how the partials meet.
#include <vector>

#include "core/nccl/array.hpp"
#include "reduce/partials.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail::reduce_nccl {

using reduce_parts::partial;

// One partial per member of this process, on its GPU, enqueued on its stream. Each GPU's header
// (count, dtype, op) goes from pinned_partials()[k] before its local rung runs.
std::vector<nccl::device_buffer> local_partials(const reduce_call& c);

// Pinned host memory kept between calls: one partial per member of this process, then one
// more, whose value put_answer copies the answer from.
partial* pinned_partials();

// The answer, from the combined partial held on the host, written where the call's output lies.
void put_answer(const reduce_call& c, const partial& all);
// `bytes` of an answer held in pinned host memory written where the call's output lies.
void write_answer(const reduce_call& c, const void* answer, std::size_t bytes);

}  // namespace pplab::detail::reduce_nccl
