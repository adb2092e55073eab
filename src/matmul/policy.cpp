// The matmul rung the API runs, per backend: the packed micro-kernel on the cpu (docs/matmul.md);
// OpenBLAS (m00) is the baseline it is measured against, never the default.
#include "core/run.hpp"

namespace pplab::detail {

std::vector<std::string_view> policy(backend b, const matmul_problem&) {
  switch (b) {
  case backend::seq:
    return {"matmul/seq/m01_triple_loop"};
  case backend::cpu:
    return {"matmul/cpu/m03_packed_microkernel"};
  case backend::cuda:
    return {"matmul/cuda/m03_tiled_w32"};  // the register-tiled rungs are still to come
  default:
    return {};
  }
}

}  // namespace pplab::detail
