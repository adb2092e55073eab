#pragma once
// The answers of parts of one reduction, and how they combine: what the distributed backends
// (mpi's ranks, nccl's GPUs) share. Each part is reduced by a local rung into a `partial` (its
// answer and the count behind it); partials joined in the order of their parts give an answer
// that depends only on how the data was split.
#include <cstdint>

#include "reduce/rung.hpp"

namespace pplab::detail::reduce_parts {

// One part's answer, sent between processes and GPUs as plain bytes; it carries its dtype and
// op, so that a combine needs nothing else.
struct partial {
  scalar value;          // argmin, argmax: the value found
  std::int64_t index = -1;  // argmin, argmax: its index in the whole array (-1: no element)
  std::uint64_t n = 0;   // the elements behind it: a mean's weight
  dtype type = dtype::f32;
  op what = op::sum;
};

// a's elements come before b's. Exact for integers and min/max (NaN wins); float sums and
// products round once per join; means are weighted by their counts; argmin and argmax pairs
// (their indices already the whole array's) by their total order, so in any order.
partial join(const partial& a, const partial& b);

// The partials of parts 0, 1, ... combined in that order: the same bits on every run.
partial in_order(const partial* parts, int count);

// The answer of the whole reduction from the combined partial (the mean of nothing is NaN).
scalar answer(const reduce_problem& p, const partial& all);

}  // namespace pplab::detail::reduce_parts
