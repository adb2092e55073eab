// reduce/mpi/r01_root_gathers: the textbook combine. Every rank sends its partial to rank 0
// (MPI_Gather), rank 0 combines them in rank order and sends the answer back to all
// (MPI_Bcast). Two collectives, and rank 0 does all the combining: P - 1 joins in a row.
// What limits it: two latencies on the critical path where an all-reduce needs one, and a root
// whose inbox grows with the rank count.
// Measured (the 16-core host of an H200 machine, 4 ranks of one thread each,
// bench/results/h200-host-16core-2026-11-23-mpi-reduce-4.json, at an earlier commit): f32 sum of
// 2^28 in 41.3 ms, 3.87x one rank alone; the combine is a few microseconds of it, so the four rungs
// are within noise of each other (r04 42.6 ms).
#include <vector>

#include "core/mpi/world.hpp"
#include "reduce/mpi/reduce_mpi.hpp"

namespace pplab::detail::reduce_mpi {

namespace {

void run(const reduce_call& c) {
  const partial mine = local_partial(c);
  const int ranks = mpi::size();
  std::vector<partial> all(mpi::rank() == 0 ? std::size_t(ranks) : 0);
  mpi::check(MPI_Gather(&mine, 1, partial_type(), all.data(), 1, partial_type(), 0, mpi::comm()),
             "MPI_Gather");
  partial out = mpi::rank() == 0 ? in_rank_order(all.data(), ranks) : mine;
  mpi::check(MPI_Bcast(&out, 1, partial_type(), 0, mpi::comm()), "MPI_Bcast");
  *c.out = answer(c.p, out);
}

}  // namespace

extern const reduce_rung r01_root_gathers{
    .info = {.step = 1,
             .summary = "partials gathered to rank 0, combined in rank order, broadcast"},
    .can_run = any_problem,
    .run = run,
};

}  // namespace pplab::detail::reduce_mpi
