#pragma once
// What the mpi reduction rungs share. Each rank reduces its own part with its local backend's
// rung (a `partial`: the answer and the count behind it), then the rungs differ only in how the
// partials meet: gathered to a root, MPI's tree, MPI's all-reduce, or all-gathered and combined
// in rank order on every rank.
#include <mpi.h>

#include <cstdint>

#include "core/registry.hpp"

namespace pplab::detail::mpi_reduce {

// One rank's answer. Sent as bytes (a contiguous MPI type of sizeof(partial)), combined by
// `join`; it carries its dtype and op so that MPI's user function needs nothing else.
struct partial {
  scalar value;
  std::uint64_t n = 0;  // the elements behind it: a mean's weight
  dtype type = dtype::f32;
  op what = op::sum;
};

// This rank's part reduced by the local backend's rung (a mean of no elements is 0 with weight
// 0); an error on any rank is agreed on, so that every rank throws it.
partial local_partial(const reduce_call& c);

// a's elements come before b's. Exact for integers and min/max (NaN wins); float sums and
// products round once per join; means are weighted by their counts.
partial join(const partial& a, const partial& b);

// The partials of ranks 0, 1, ... combined in that order: the same bits on every run.
partial in_rank_order(const partial* parts, int ranks);

// The MPI type of one partial, and `join` as an MPI operator (commutative: MPI may combine the
// ranks in any order it likes, so a float sum may round differently with the algorithm).
MPI_Datatype partial_type();
MPI_Op join_op();

// A built-in MPI operator on 64-bit integers gives the same answer as join for integer sums,
// products, min and max: (type, op) when it does, MPI_OP_NULL when it does not.
struct builtin {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
};
builtin builtin_for(const reduce_problem& p);

// The answer of the whole reduction from the combined partial.
scalar answer(const reduce_problem& p, const partial& all);

}  // namespace pplab::detail::mpi_reduce
