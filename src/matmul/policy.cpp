// The matmul rung the API runs, per backend: the packed micro-kernel on the cpu, the shape table of
// m11 on the GPU (docs/matmul.md); OpenBLAS and cuBLAS (m00) are the baselines they are measured
// against, never the default.
#include "matmul/rung.hpp"

namespace pplab::detail {

std::vector<std::string_view> policy(backend b, const matmul_problem&) {
  switch (b) {
  case backend::seq:
    return {"matmul/seq/m01_triple_loop"};
  case backend::cpu:
    return {"matmul/cpu/m03_packed_microkernel"};
  case backend::cuda:
    // m08 where m11's scratch (split K, or padded copies for odd sizes) does not fit.
    return {"matmul/cuda/m11_by_shape", "matmul/cuda/m08_double_buffered"};
  case backend::nccl:
    return {"matmul/nccl/m02_broadcast_overlapped", "matmul/nccl/m03_summa"};
  case backend::mpi:
    return {"matmul/mpi/m01_summa"};
  default:
    return {};
  }
}

}  // namespace pplab::detail
