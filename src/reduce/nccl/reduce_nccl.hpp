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
// (count, dtype, op) goes from pinned_partials()[k] before its local rung runs; with back_to_host,
// the partial comes back into that slot right behind its rung, on the same stream (one pass over
// the GPUs: the next GPU's work is enqueued a device switch sooner).
std::vector<nccl::device_buffer> local_partials(const reduce_call& c, bool back_to_host = false);

// Pinned host memory kept between calls: one partial per member of this process, then one
// more, whose value put_answer copies the answer from.
partial* pinned_partials();

// The answer, from the combined partial held on the host, written where the call's output lies.
void put_answer(const reduce_call& c, const partial& all);
// `bytes` of an answer held in pinned host memory written where the call's output lies, enqueued
// on the first member's stream and not waited for: whoever reads the output reads it behind that
// stream (the executor's copies, the lab's wait for every GPU), and the pinned slot is written
// again only after the next call has waited for every stream.
void write_answer(const reduce_call& c, const void* answer, std::size_t bytes);

}  // namespace pplab::detail::reduce_nccl
