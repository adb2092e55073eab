// What the reduction's cuda folder gives the core beyond its rungs: the rows of a matrix in GPU
// memory reduced each on its own, and the columns of a stack of matrices, forwarded to the cuda module's table (core/modules.hpp; the
// folder's add_reduce_cuda_exports), or, without the module, an error saying so.
#include <string>

#include "core/modules.hpp"
#include "pplab/error.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail {

void gpu_reduce_rows(dtype t, const void* in, std::size_t rows, std::size_t cols, std::size_t ld,
                     op o, void* out, bool own, void* stream) {
  auto* f = module_function<void(dtype, const void*, std::size_t, std::size_t, std::size_t, op,
                                 void*, bool, void*)>(backend::cuda, "reduce_rows");
  if (!f) fail(errc::unsupported, "reduce_rows_device: the cuda backend is not loaded here");
  f(t, in, rows, cols, ld, o, out, own, stream);
}

std::size_t gpu_reduce_columns_scratch(dtype t, op o, std::size_t outer, std::size_t rows,
                                       std::size_t cols) {
  auto* f = module_function<std::size_t(dtype, op, std::size_t, std::size_t, std::size_t)>(
      backend::cuda, "reduce_columns_scratch");
  if (!f) fail(errc::unsupported, "reduce_axis_device: the cuda backend is not loaded here");
  return f(t, o, outer, rows, cols);
}

void gpu_reduce_columns(dtype t, const void* in, std::size_t outer, std::size_t rows,
                        std::size_t cols, op o, void* out, bool own, void* scratch, void* stream) {
  auto* f = module_function<void(dtype, const void*, std::size_t, std::size_t, std::size_t, op,
                                 void*, bool, void*, void*)>(backend::cuda, "reduce_columns");
  if (!f) fail(errc::unsupported, "reduce_axis_device: the cuda backend is not loaded here");
  f(t, in, outer, rows, cols, o, out, own, scratch, stream);
}

}  // namespace pplab::detail
