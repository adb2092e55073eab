#pragma once
// What the mpi histogram rungs share: this rank's part counted by the local backend's rung into
// the call's counts (bins + 3 slots), an error on any rank agreed on. The rungs differ only in
// how the 64-bit slots (counts, or sums of weights as doubles) are added over the ranks.
#include "core/mpi/world.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"

namespace pplab::detail::histogram_mpi {

inline void count_local_part(const histogram_call& c) {
  std::exception_ptr failed;
  try {
    const backend local = mpi_local();
    run_rung(default_rung<histogram_rung>(local, c.p), executor_for(local), c.p,
             histogram_data(c.in, c.weights, c.edges), c.counts);
  } catch (...) {
    failed = std::current_exception();
  }
  mpi::agree(failed);
}

// What the slots hold, for MPI's sums: counts, or sums of weights.
inline MPI_Datatype slot_type(const histogram_problem& p) {
  return p.weighted ? MPI_DOUBLE : MPI_UINT64_T;
}
// Every problem the local backend has a rung for: counts or weights, even bins or edges.
inline bool any_local_problem(const histogram_problem&) { return true; }

}  // namespace pplab::detail::histogram_mpi
