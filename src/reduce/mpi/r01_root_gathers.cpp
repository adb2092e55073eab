// reduce/mpi/r01_root_gathers: the textbook combine. Every rank sends its partial to rank 0
// (MPI_Gather), rank 0 combines them in rank order and sends the answer back to all
// (MPI_Bcast). Two collectives, and rank 0 does all the combining: P - 1 joins in a row.
// What limits it: two latencies on the critical path where an all-reduce needs one, and a root
// whose inbox grows with the rank count.
#include <vector>

#include "core/mpi/world.hpp"
#include "reduce/mpi/reduce_mpi.hpp"

namespace pplab::detail {

void reduce_mpi_r01(const reduce_call& c) {
  using namespace mpi_reduce;
  const partial mine = local_partial(c);
  const int ranks = mpi::size();
  std::vector<partial> all(mpi::rank() == 0 ? std::size_t(ranks) : 0);
  mpi::check(MPI_Gather(&mine, 1, partial_type(), all.data(), 1, partial_type(), 0, mpi::comm()),
             "MPI_Gather");
  partial out = mpi::rank() == 0 ? in_rank_order(all.data(), ranks) : mine;
  mpi::check(MPI_Bcast(&out, 1, partial_type(), 0, mpi::comm()), "MPI_Bcast");
  *c.out = answer(c.p, out);
}

}  // namespace pplab::detail
