#include "histogram/binning.hpp"

namespace pplab::detail {

void histogram_mpi_h01(const histogram_call&);
void histogram_mpi_h02(const histogram_call&);
void histogram_mpi_h03(const histogram_call&);

// Each rung counts its rank's part with the local backend's best rung; they differ in how the
// counts are added over the ranks (all exact: the same counts every run and every rank count).
void register_histogram_mpi(std::vector<histogram_rung>& r) {
  r.push_back({{"histogram/mpi/h01_reduce_to_root", backend::mpi, 1,
                "counts added up MPI_Reduce's tree to rank 0, then broadcast"},
               any_histogram,
               nullptr,
               histogram_mpi_h01});
  r.push_back({{"histogram/mpi/h02_allreduce", backend::mpi, 2,
                "one MPI_Allreduce of the counts, in place"},
               any_histogram,
               nullptr,
               histogram_mpi_h02});
  r.push_back({{"histogram/mpi/h03_reduce_scatter", backend::mpi, 3,
                "MPI_Reduce_scatter (each rank adds its share of the bins), then "
                "MPI_Allgatherv"},
               any_histogram,
               nullptr,
               histogram_mpi_h03});
}

}  // namespace pplab::detail
