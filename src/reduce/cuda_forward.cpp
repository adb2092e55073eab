// What the reduction's cuda folder gives the core beyond its rungs: the rows of a matrix in GPU
// memory reduced each on its own, forwarded to the cuda module's table (core/modules.hpp; the
// folder's add_reduce_cuda_exports), or, without the module, an error saying so.
#include <string>

#include "core/modules.hpp"
#include "pplab/error.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail {

void gpu_reduce_rows(dtype t, const void* in, std::size_t rows, std::size_t cols, std::size_t ld,
                     op o, void* out, void* stream) {
  auto* f = module_function<void(dtype, const void*, std::size_t, std::size_t, std::size_t, op,
                                 void*, void*)>(backend::cuda, "reduce_rows");
  if (!f) fail(errc::unsupported, "reduce_rows_device: the cuda backend is not loaded here");
  f(t, in, rows, cols, ld, o, out, stream);
}

}  // namespace pplab::detail
