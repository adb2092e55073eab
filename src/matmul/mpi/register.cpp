#include "matmul/matmul_common.hpp"

namespace pplab::detail {

void matmul_mpi_m01(const matmul_call&);
void matmul_mpi_m02(const matmul_call&);

// The call's a, b and c are this rank's blocks (grid.hpp's layout); m, n, k the whole product's.
void register_matmul_mpi(std::vector<matmul_rung>& r) {
  r.push_back({{"matmul/mpi/m01_summa", backend::mpi, 1,
                "SUMMA on a 2-D grid of ranks: panels broadcast along rows and columns"},
               float_or_double,
               nullptr,
               matmul_mpi_m01});
  r.push_back({{"matmul/mpi/m02_summa_overlapped", backend::mpi, 2,
                "SUMMA with the next panel's broadcasts started before this multiply"},
               float_or_double,
               nullptr,
               matmul_mpi_m02});
}

}  // namespace pplab::detail
