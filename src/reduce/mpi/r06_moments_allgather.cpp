// reduce/mpi/r06_moments_allgather: var and std of a job's data. Each rank takes the moments of its
// own part (count, mean, squared deviations from the mean) with its local backend's rung, before
// the last step; MPI_Allgather gives every rank all P of them (P x 24 bytes), and every rank merges
// them in rank order with the same combine that merges two halves of one array (Chan, Golub and
// LeVeque), then takes the variance (or its root) once. A rounded variance per rank could not be
// merged at all: the means are needed. The same bits on every run and every rank; between rank
// counts only where the parts begin changes, so the answer differs in its last bits at most.
#include <vector>

#include "core/mpi/world.hpp"
#include "core/run.hpp"
#include "reduce/mpi/reduce_mpi.hpp"
#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_mpi {

namespace {

void run(const reduce_call& c) {
  moments mine;
  std::exception_ptr failed;
  try {
    const backend local = mpi_local();
    mine = moments_of(default_rung<reduce_rung>(local, c.p), executor_for(local), c.p, c.in);
  } catch (...) {
    failed = std::current_exception();
  }
  mpi::agree(failed);
  const int ranks = mpi::size();
  std::vector<moments> all(static_cast<std::size_t>(ranks));
  mpi::check(MPI_Allgather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine),
                           MPI_BYTE, mpi::comm()),
             "MPI_Allgather");
  moments whole;
  for (const moments& m : all) whole = combine<double, op::var>(whole, m);
  *reinterpret_cast<moments*>(c.out) = whole;
}

}  // namespace

extern const reduce_rung r06_moments_allgather{
    .info = {.step = 6,
             .summary = "var and std: each rank's (count, mean, squared deviations) all-gathered "
                        "and merged in rank order on every rank"},
    .can_run = moments_problems,
    .run = run,
};

}  // namespace pplab::detail::reduce_mpi
