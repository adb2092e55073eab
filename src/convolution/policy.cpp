// The convolution rung the API runs, per backend and problem. Every choice is made here
// (docs/architecture.md). Host: the register-blocked interior, on one core or all.
#include "convolution/rung.hpp"

namespace pplab::detail {

std::vector<std::string_view> policy(backend b, const convolution_problem& p) {
  switch (b) {
  case backend::seq:
    return {"convolution/seq/c02_interior_apart"};
  case backend::cpu:
    if (p.separable && p.kh * p.kw >= 9)
      return {"convolution/cpu/c03_separable", "convolution/cpu/c02_register_blocked"};
    return {"convolution/cpu/c02_register_blocked", "convolution/cpu/c01_rows_openmp"};
  case backend::cuda:
    if (p.separable && p.kh >= 5 && p.kw >= 5)
      return {"convolution/cuda/c07_separable", "convolution/cuda/c06_register_strip",
              "convolution/cuda/c04_output_tile"};
    return {"convolution/cuda/c06_register_strip", "convolution/cuda/c04_output_tile",
            "convolution/cuda/c02_constant_mask"};
  case backend::mpi:
    return {"convolution/mpi/c01_row_slabs"};
  default:
    return {};
  }
}

}  // namespace pplab::detail
