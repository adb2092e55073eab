// histogram/mpi/h01_reduce_to_root: the histogram notes' MPI_Reduce. Each rank counts its part, the
// library adds the bins + 3 64-bit counts up its tree to rank 0, and MPI_Bcast sends the sum
// back to all. Integer sums: every combine gives the same counts.
// What limits it: the counts cross the transport twice (up, then down) and rank 0 does a whole
// vector's adds on the last step; for many bins that, not the data, sets the time.
// Measured (the 16-core host of an H200 machine, 4 ranks of one thread each,
// bench/results/h200-host-16core-2026-11-23-mpi-histogram-4.json, at an earlier commit): f32 2^28
// values into 2^10 bins in 245.7 ms, 4.54x one rank alone; into 2^20 bins 424.6 ms, 3.89x, where
// the 8 MiB of counts per rank make the combine show.
#include "histogram/mpi/local_counts.hpp"

namespace pplab::detail::histogram_mpi {
namespace {

void run(const histogram_call& c) {
  histogram_mpi::count_local_part(c);
  const int width = int(slots(c.p));
  const bool root = mpi::rank() == 0;
  mpi::check(MPI_Reduce(root ? MPI_IN_PLACE : c.counts, root ? c.counts : nullptr, width,
                        slot_type(c.p), MPI_SUM, 0, mpi::comm()),
             "MPI_Reduce");
  mpi::check(MPI_Bcast(c.counts, width, slot_type(c.p), 0, mpi::comm()), "MPI_Bcast");
}

}  // namespace

extern const histogram_rung h01_reduce_to_root{
    .info = {.step = 1, .summary = "counts added up MPI_Reduce's tree to rank 0, then broadcast"},
    .can_run = any_local_problem,
    .run = run,
};

}  // namespace pplab::detail::histogram_mpi
