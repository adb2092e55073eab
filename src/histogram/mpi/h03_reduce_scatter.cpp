// histogram/mpi/h03_reduce_scatter: for many bins. MPI_Reduce_scatter leaves each rank the sum
// of its own share of the slots (1/P of them), so no rank adds more than its share; then
// MPI_Allgatherv hands every rank the whole histogram. The ring all-reduce written out in its two
// halves: the same bytes as h02 but each half visible (the counts could stay scattered for a
// caller that only needs its share).
// Measured (the 16-core host of an H200 machine, 4 ranks of one thread each,
// bench/results/h200-host-16core-2026-11-23-mpi-histogram-4.json, at an earlier commit): f32 2^28
// values into 2^10 bins in 238.6 ms, 4.67x one rank alone; into 2^20 bins 432.9 ms, 3.81x, where
// the 8 MiB of counts per rank make the combine show.
#include <vector>

#include "histogram/mpi/local_counts.hpp"

namespace pplab::detail::histogram_mpi {
namespace {

void run(const histogram_call& c) {
  histogram_mpi::count_local_part(c);
  const int ranks = mpi::size(), me = mpi::rank();
  const std::size_t width = slots(c.p);
  std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(counts.size());
  for (int r = 0; r < ranks; ++r) {
    const part share = part_of(width, r, ranks);
    counts[std::size_t(r)] = int(share.count), displs[std::size_t(r)] = int(share.first);
  }
  const part mine = part_of(width, me, ranks);
  // 8 bytes a slot: counts, or sums of weights as doubles
  std::vector<std::uint64_t> my_sums(std::max<std::size_t>(mine.count, 1));
  mpi::check(MPI_Reduce_scatter(c.counts, my_sums.data(), counts.data(), slot_type(c.p), MPI_SUM,
                                mpi::comm()),
             "MPI_Reduce_scatter");
  mpi::check(MPI_Allgatherv(my_sums.data(), int(mine.count), slot_type(c.p), c.counts,
                            counts.data(), displs.data(), slot_type(c.p), mpi::comm()),
             "MPI_Allgatherv");
}

}  // namespace

extern const histogram_rung h03_reduce_scatter{
    .info = {.step = 3,
             .summary =
                 "MPI_Reduce_scatter (each rank adds its share of the bins), then MPI_Allgatherv"},
    .can_run = any_local_problem,
    .run = run,
};

}  // namespace pplab::detail::histogram_mpi
