#include "core/registry.hpp"

namespace pplab::detail {

void matmul_mpi_m01(const matmul_call&);
void matmul_mpi_m02(const matmul_call&);

namespace {
bool any_matmul(const matmul_problem&) { return true; }
}  // namespace

// The call's a, b and c are this rank's blocks (grid.hpp's layout); m, n, k the whole product's.
void register_matmul_mpi(registry& r) {
  r.matmul.push_back({{"matmul/mpi/m01_summa", pattern::matmul, backend::mpi, 1,
                       "SUMMA on a 2-D grid of ranks: panels broadcast along rows and columns"},
                      any_matmul,
                      nullptr,
                      matmul_mpi_m01});
  r.matmul.push_back({{"matmul/mpi/m02_summa_overlapped", pattern::matmul, backend::mpi, 2,
                       "SUMMA with the next panel's broadcasts started before this multiply"},
                      any_matmul,
                      nullptr,
                      matmul_mpi_m02});
}

}  // namespace pplab::detail
