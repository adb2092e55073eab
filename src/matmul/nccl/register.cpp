#include "core/nccl/world.hpp"
#include "matmul/matmul_common.hpp"

namespace pplab::detail {

void matmul_nccl_m01(const matmul_call&);
void matmul_nccl_m02(const matmul_call&);
void matmul_nccl_m03(const matmul_call&);

namespace {
// m01 and m02 take arrays split over the GPUs of one process; m03 the blocks of a job's process.
bool in_one_process(const matmul_problem& p) {
  return float_or_double(p) && !nccl::job_of_processes();
}
bool in_a_job(const matmul_problem& p) { return float_or_double(p) && nccl::job_of_processes(); }
}  // namespace

// The call's a, b and c are arrays of the nccl executor (core/nccl/array.hpp).
void register_matmul_nccl(std::vector<matmul_rung>& r) {
  r.push_back({{"matmul/nccl/m01_rows_broadcast_b", backend::nccl, 1,
                "rows of C split over the GPUs, B broadcast to every GPU, the cuda rung "
                "on each (one process)"},
               in_one_process,
               nullptr,
               matmul_nccl_m01});
  r.push_back({{"matmul/nccl/m02_broadcast_overlapped", backend::nccl, 2,
                "m01 with B's broadcast hidden behind the product of the rows of B each "
                "GPU holds (one process)"},
               in_one_process,
               nullptr,
               matmul_nccl_m02});
  r.push_back({{"matmul/nccl/m03_summa", backend::nccl, 3,
                "SUMMA on a job of one process per GPU: panels broadcast along the grid's "
                "rows and columns while the last panels multiply (mpirun)"},
               in_a_job,
               nullptr,
               matmul_nccl_m03});
}

}  // namespace pplab::detail
