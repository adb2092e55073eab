#include "matmul/matmul_common.hpp"

namespace pplab::detail {

void matmul_nccl_m01(const matmul_call&);

// The call's a, b and c are arrays of the nccl executor (core/nccl/array.hpp), split over GPUs.
void register_matmul_nccl(registry& r) {
  r.matmul.push_back({{"matmul/nccl/m01_rows_broadcast_b", pattern::matmul, backend::nccl, 1,
                       "rows of C split over the GPUs, B broadcast to every GPU, the cuda rung "
                       "on each"},
                      float_or_double,
                      nullptr,
                      matmul_nccl_m01});
}

}  // namespace pplab::detail
