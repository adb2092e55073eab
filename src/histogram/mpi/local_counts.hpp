#pragma once
// What the mpi histogram rungs share: this rank's part counted by the local backend's rung into
// the call's counts (bins + 3 slots), an error on any rank agreed on. The rungs differ only in
// how the 64-bit counts are added over the ranks.
#include "core/mpi/world.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"

namespace pplab::detail::histogram_mpi {

inline void count_local_part(const histogram_call& c) {
  std::exception_ptr failed;
  try {
    const backend local = mpi_local();
    run_rung(default_rung<histogram_rung>(local, c.p), executor_for(local), c.p, c.in, c.counts);
  } catch (...) {
    failed = std::current_exception();
  }
  mpi::agree(failed);
}

}  // namespace pplab::detail::histogram_mpi
