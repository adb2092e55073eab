#pragma once
// What the mpi reduction rungs share. Each rank reduces its own part with its local backend's
// rung (a `partial` of reduce/partials.hpp: the answer and the count behind it), then the rungs
// differ only in how the partials meet: gathered to a root, MPI's tree, MPI's all-reduce, or
// all-gathered and combined in rank order on every rank.
#include <mpi.h>

#include <cstdint>

#include "reduce/partials.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail::reduce_mpi {

using reduce_parts::answer;
using reduce_parts::join;
using reduce_parts::partial;
// The partials of ranks 0, 1, ... combined in that order: the same bits on every run.
inline partial in_rank_order(const partial* parts, int ranks) {
  return reduce_parts::in_order(parts, ranks);
}

// This rank's part reduced by the local backend's rung (a mean of no elements is 0 with weight
// 0); an error on any rank is agreed on, so that every rank throws it.
partial local_partial(const reduce_call& c);

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

}  // namespace pplab::detail::reduce_mpi
