// reduce/mpi/r02_tree_reduce: the reduction notes' MPI_Reduce. The library combines the partials up
// a tree of its choosing to rank 0 (log P steps, the joins spread over the ranks), then MPI_Bcast
// sends the answer to all. Integer sums, products, min and max use MPI's built-in operators
// on 64 bits; everything else pplab's join as an MPI operator (MPI_Op_create).
// Not reproducible for floats: the tree's shape, hence a float sum's rounding, is the library's
// choice and may change with the message size or the library's tuning. Never the default.
// Measured (the 16-core host of an H200 machine, 4 ranks of one thread each,
// bench/results/h200-host-16core-2026-11-23-mpi-reduce-4.json, at an earlier commit): f32 sum of
// 2^28 in 42.1 ms, 3.80x one rank alone; the combine is a few microseconds of it, so the four rungs
// are within noise of each other (r04 42.6 ms).
#include "core/mpi/world.hpp"
#include "reduce/mpi/reduce_mpi.hpp"

namespace pplab::detail::reduce_mpi {

namespace {

void run(const reduce_call& c) {
  const partial mine = local_partial(c);
  partial out = mine;
  if (const builtin b = builtin_for(c.p); b.op != MPI_OP_NULL)
    mpi::check(MPI_Reduce(&mine.value.u, &out.value.u, 1, b.type, b.op, 0, mpi::comm()),
               "MPI_Reduce");
  else
    mpi::check(MPI_Reduce(&mine, &out, 1, partial_type(), join_op(), 0, mpi::comm()), "MPI_Reduce");
  mpi::check(MPI_Bcast(&out, 1, partial_type(), 0, mpi::comm()), "MPI_Bcast");
  *c.out = answer(c.p, out);
}

}  // namespace

extern const reduce_rung r02_tree_reduce{
    .info = {.step = 2,
             .summary =
                 "MPI_Reduce up the library's tree, then broadcast (float order: the library's)",
             .reproducible = false},
    .can_run = any_problem,
    .run = run,
};

}  // namespace pplab::detail::reduce_mpi
