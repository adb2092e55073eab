// histogram/mpi/h02_allreduce: one MPI_Allreduce of the counts, in place: the sum on every rank
// in one collective (for long vectors the library's ring: each rank sends and receives about
// twice the counts' bytes, whatever the rank count).
#include "histogram/mpi/local_counts.hpp"

namespace pplab::detail::histogram_mpi {
namespace {

void run(const histogram_call& c) {
  histogram_mpi::count_local_part(c);
  mpi::check(
      MPI_Allreduce(MPI_IN_PLACE, c.counts, int(slots(c.p)), MPI_UINT64_T, MPI_SUM, mpi::comm()),
      "MPI_Allreduce");
}

}  // namespace

extern const histogram_rung h02_allreduce{
    .info = {.id = "histogram/mpi/h02_allreduce",
             .where = backend::mpi,
             .step = 2,
             .summary = "one MPI_Allreduce of the counts, in place"},
    .can_run = any_histogram,
    .run = run,
};

}  // namespace pplab::detail::histogram_mpi
