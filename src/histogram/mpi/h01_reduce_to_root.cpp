// histogram/mpi/h01_reduce_to_root: the histogram notes' MPI_Reduce. Each rank counts its part, the
// library adds the bins + 3 64-bit counts up its tree to rank 0, and MPI_Bcast sends the sum
// back to all. Integer sums: every combine gives the same counts.
// What limits it: the counts cross the transport twice (up, then down) and rank 0 does a whole
// vector's adds on the last step; for many bins that, not the data, sets the time.
#include "histogram/mpi/local_counts.hpp"

namespace pplab::detail::histogram_mpi {
namespace {

void run(const histogram_call& c) {
  histogram_mpi::count_local_part(c);
  const int width = int(slots(c.p));
  const bool root = mpi::rank() == 0;
  mpi::check(MPI_Reduce(root ? MPI_IN_PLACE : c.counts, root ? c.counts : nullptr, width,
                        MPI_UINT64_T, MPI_SUM, 0, mpi::comm()),
             "MPI_Reduce");
  mpi::check(MPI_Bcast(c.counts, width, MPI_UINT64_T, 0, mpi::comm()), "MPI_Bcast");
}

}  // namespace

extern const histogram_rung h01_reduce_to_root{
    .info = {.id = "histogram/mpi/h01_reduce_to_root",
             .where = backend::mpi,
             .step = 1,
             .summary = "counts added up MPI_Reduce's tree to rank 0, then broadcast"},
    .can_run = any_histogram,
    .run = run,
};

}  // namespace pplab::detail::histogram_mpi
