#include "reduce/reduce_common.hpp"

namespace pplab::detail {

void reduce_mpi_r01(const reduce_call&);
void reduce_mpi_r02(const reduce_call&);
void reduce_mpi_r03(const reduce_call&);
void reduce_mpi_r04(const reduce_call&);

// The mpi ladder is a ladder of combines: each rung runs the local backend's best rung on its
// rank's part and differs only in how the partials meet.
void register_reduce_mpi(std::vector<reduce_rung>& r) {
  r.push_back({{"reduce/mpi/r01_root_gathers", backend::mpi, 1,
                "partials gathered to rank 0, combined in rank order, broadcast"},
               any_problem,
               nullptr,
               reduce_mpi_r01});
  r.push_back({{"reduce/mpi/r02_tree_reduce", backend::mpi, 2,
                "MPI_Reduce up the library's tree, then broadcast (float order: the "
                "library's)",
                false, false},
               any_problem,
               nullptr,
               reduce_mpi_r02});
  r.push_back({{"reduce/mpi/r03_allreduce", backend::mpi, 3,
                "one MPI_Allreduce (float order: the library's)", false, false},
               any_problem,
               nullptr,
               reduce_mpi_r03});
  r.push_back({{"reduce/mpi/r04_ordered_allgather", backend::mpi, 4,
                "partials all-gathered, combined in rank order on every rank: one "
                "collective, the same bits every run"},
               any_problem,
               nullptr,
               reduce_mpi_r04});
}

}  // namespace pplab::detail
