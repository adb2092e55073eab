// reduce/mpi/r04_ordered_allgather: the combine whose answer depends only on the rank count.
// MPI_Allgather gives every rank all P partials (P x 32 bytes: nothing beside the data), and
// every rank joins them in rank order itself. One collective, as r03, and the same bits on
// every run and every rank, whatever algorithm the library picks: the API's choice.
// What changes with the rank count is only where the parts begin (each rank's local rung sums
// its part in double over fixed blocks), so a float sum differs in its last bits between rank
// counts, within the bound of docs/mpi.md.
// Measured (the 16-core host of an H200 machine, 4 ranks of one thread each,
// bench/results/h200-host-16core-2026-11-23-mpi-reduce-4.json, at an earlier commit): f32 sum of
// 2^28 in 42.6 ms, 3.75x one rank alone, within noise of r01 to r03: the combine is microseconds.
#include <vector>

#include "core/mpi/world.hpp"
#include "reduce/mpi/reduce_mpi.hpp"

namespace pplab::detail::reduce_mpi {

namespace {

void run(const reduce_call& c) {
  const partial mine = local_partial(c);
  const int ranks = mpi::size();
  std::vector<partial> all(static_cast<std::size_t>(ranks));
  mpi::check(MPI_Allgather(&mine, 1, partial_type(), all.data(), 1, partial_type(), mpi::comm()),
             "MPI_Allgather");
  *c.out = answer(c.p, in_rank_order(all.data(), ranks));
}

}  // namespace

extern const reduce_rung r04_ordered_allgather{
    .info = {.step = 4,
             .summary = "partials all-gathered, combined in rank order on every rank: one "
                        "collective, the same bits every run"},
    .can_run = any_problem_or_nan,
    .run = run,
};

}  // namespace pplab::detail::reduce_mpi
