// histogram/mpi/h02_allreduce: one MPI_Allreduce of the counts, in place: the sum on every rank
// in one collective (for long vectors the library's ring: each rank sends and receives about
// twice the counts' bytes, whatever the rank count).
// Measured (the 16-core host of an H200 machine, 4 ranks of one thread each,
// bench/results/h200-host-16core-2026-11-23-mpi-histogram-4.json, at an earlier commit): f32 2^28
// values into 2^10 bins in 242.6 ms, 4.59x one rank alone; into 2^20 bins 492.5 ms, 3.35x, where
// the 8 MiB of counts per rank make the combine show.
#include "histogram/mpi/local_counts.hpp"

namespace pplab::detail::histogram_mpi {
namespace {

void run(const histogram_call& c) {
  histogram_mpi::count_local_part(c);
  mpi::check(
      MPI_Allreduce(MPI_IN_PLACE, c.counts, int(slots(c.p)), slot_type(c.p), MPI_SUM, mpi::comm()),
      "MPI_Allreduce");
}

}  // namespace

extern const histogram_rung h02_allreduce{
    .info = {.step = 2, .summary = "one MPI_Allreduce of the counts, in place"},
    .can_run = any_local_problem,
    .run = run,
};

}  // namespace pplab::detail::histogram_mpi
