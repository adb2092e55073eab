// The convolution rung the API runs, per backend and problem. Every choice is made here
// (docs/architecture.md). Host: the register-blocked interior, on one core or all.
#include "convolution/rung.hpp"

namespace pplab::detail {

std::vector<std::string_view> policy(backend b, const convolution_problem&) {
  switch (b) {
  case backend::seq:
    return {"convolution/seq/c02_interior_apart"};
  case backend::cpu:
    return {"convolution/cpu/c02_register_blocked", "convolution/cpu/c01_rows_openmp"};
  case backend::cuda:
    return {"convolution/cuda/c06_register_strip", "convolution/cuda/c04_output_tile",
            "convolution/cuda/c02_constant_mask"};
  case backend::mpi:
    return {"convolution/mpi/c01_row_slabs"};
  default:
    return {};
  }
}

}  // namespace pplab::detail
