// What the convolution's cuda folder gives the API beyond its rungs, as the core sees it: the
// pass in SciPy's order on the GPU, forwarded to the cuda module's table (core/modules.hpp; the
// folder's add_convolution_cuda_exports), or, without the module, an error.
#include <stdexcept>

#include "convolution/scipy_order.hpp"
#include "core/modules.hpp"

namespace pplab::detail {

void scipy_order_pass_device(dtype in_type, const void* in, dtype out_type, void* out,
                             std::size_t outer, std::size_t n, std::size_t inner,
                             const double* device_weights, std::size_t k, long origin, int sym,
                             boundary mode, double cval, double divisor, void* stream) {
  auto* f =
      module_function<void(dtype, const void*, dtype, void*, std::size_t, std::size_t, std::size_t,
                           const double*, std::size_t, long, int, boundary, double, double, void*)>(
          backend::cuda, "scipy_order_pass");
  if (!f)
    throw std::logic_error("the pass in SciPy's order on the GPU needs the cuda backend, "
                           "which is not loaded here");
  f(in_type, in, out_type, out, outer, n, inner, device_weights, k, origin, sym, mode, cval,
    divisor, stream);
}

void scipy_correlate_device(dtype in_type, const void* in, dtype out_type, void* out,
                            const scipy_correlate_geometry& g, const double* device_weights,
                            const std::int64_t* device_offsets, const std::int32_t* device_indices,
                            const std::int32_t* device_map, void* stream) {
  auto* f = module_function<void(dtype, const void*, dtype, void*, const scipy_correlate_geometry&,
                                 const double*, const std::int64_t*, const std::int32_t*,
                                 const std::int32_t*, void*)>(backend::cuda, "scipy_correlate");
  if (!f)
    throw std::logic_error("SciPy's correlate on the GPU needs the cuda backend, which is not "
                           "loaded here");
  f(in_type, in, out_type, out, g, device_weights, device_offsets, device_indices, device_map,
    stream);
}

}  // namespace pplab::detail
