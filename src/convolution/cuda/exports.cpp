// What the convolution's cuda folder gives the API beyond its rungs, through the module's table
// (core/modules.hpp; the core's forwarder to it: src/convolution/cuda_forward.cpp).
#include <cstddef>

#include "convolution/scipy_order.hpp"
#include "core/modules.hpp"
#include "pplab/convolution.hpp"

namespace pplab::detail {

void scipy_order_pass_here(dtype in_type, const void* in, dtype out_type, void* out,
                           std::size_t outer, std::size_t n, std::size_t inner,
                           const double* device_weights, std::size_t k, long origin, int sym,
                           boundary mode, double cval, double divisor,
                           void* stream);  // scipy_order.cu

void scipy_correlate_here(dtype in_type, const void* in, dtype out_type, void* out,
                          const scipy_correlate_geometry& g, const double* device_weights,
                          const std::int64_t* device_offsets, const std::int32_t* device_indices,
                          const std::int32_t* device_map, void* stream);  // scipy_correlate.cu

void add_convolution_cuda_exports(module_exports& e) {
  e.add("scipy_order_pass", &scipy_order_pass_here);
  e.add("scipy_correlate", &scipy_correlate_here);
}

}  // namespace pplab::detail
