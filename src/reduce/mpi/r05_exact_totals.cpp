// reduce/mpi/r05_exact_totals: the exact sum of a job's data. Each rank takes the exact total of
// its own part with its local backend's exact rung (the long integer before its rounding, the
// counts of infinities and NaNs, the number of values), MPI_Allgather gives every rank all P
// totals (P x 320 bytes), and every rank adds them as integers and rounds once. Integer adds do
// not care about their order or about where the parts begin, so the answer is the same bits for
// every rank count, every run, every rank, and the same as one process's: the rounded partials
// of r01-r04 cannot promise that.
#include <vector>

#include "core/mpi/world.hpp"
#include "core/run.hpp"
#include "reduce/mpi/reduce_mpi.hpp"

namespace pplab::detail::reduce_mpi {

namespace {

void run(const reduce_call& c) {
  exact_total mine;
  std::exception_ptr failed;
  try {
    const backend local = mpi_local();
    mine = exact_total_of(default_rung<reduce_rung>(local, c.p), executor_for(local), c.p, c.in);
  } catch (...) {
    failed = std::current_exception();
  }
  mpi::agree(failed);
  const int ranks = mpi::size();
  std::vector<exact_total> all(static_cast<std::size_t>(ranks));
  mpi::check(MPI_Allgather(&mine, int(sizeof mine), MPI_BYTE, all.data(), int(sizeof mine),
                           MPI_BYTE, mpi::comm()),
             "MPI_Allgather");
  exact_total whole;
  for (const exact_total& t : all) whole.merge(t);
  *c.total() = whole;
}

}  // namespace

extern const reduce_rung r05_exact_totals{
    .info = {.step = 5,
             .summary = "exact: each rank's exact total all-gathered and added as integers, "
                        "rounded once: the same bits for every rank count"},
    .can_run = exact_problems,
    .run = run,
};

}  // namespace pplab::detail::reduce_mpi
