// reduce/mpi/r03_allreduce: one MPI_Allreduce, the answer on every rank in one collective
// (recursive doubling or a ring, as the library picks). Built-in operators for integers, the
// join operator otherwise, as r02. What limits it: one collective's latency, the floor of any
// combine; but for floats the library's order again decides the rounding: not reproducible.
// Measured (the 16-core host of an H200 machine, 4 ranks of one thread each,
// bench/results/h200-host-16core-2026-11-23-mpi-reduce-4.json, at an earlier commit): f32 sum of
// 2^28 in 41.4 ms, 3.86x one rank alone; the combine is a few microseconds of it, so the four rungs
// are within noise of each other (r04 42.6 ms).
#include "core/mpi/world.hpp"
#include "reduce/mpi/reduce_mpi.hpp"

namespace pplab::detail::reduce_mpi {

namespace {

void run(const reduce_call& c) {
  const partial mine = local_partial(c);
  partial out = mine;
  if (const builtin b = builtin_for(c.p); b.op != MPI_OP_NULL)
    mpi::check(MPI_Allreduce(&mine.value.u, &out.value.u, 1, b.type, b.op, mpi::comm()),
               "MPI_Allreduce");
  else
    mpi::check(MPI_Allreduce(&mine, &out, 1, partial_type(), join_op(), mpi::comm()),
               "MPI_Allreduce");
  *c.out = answer(c.p, out);
}

}  // namespace

extern const reduce_rung r03_allreduce{
    .info = {.step = 3,
             .summary = "one MPI_Allreduce (float order: the library's)",
             .reproducible = false},
    .can_run = any_problem,
    .run = run,
};

}  // namespace pplab::detail::reduce_mpi
