// What the convolution's cuda folder gives the API beyond its rungs, through the module's table
// (core/modules.hpp; the core's forwarder to it: src/convolution/cuda_forward.cpp).
#include <cstddef>

#include "core/modules.hpp"
#include "pplab/convolution.hpp"

namespace pplab::detail {

void scipy_order_pass_here(dtype in_type, const void* in, dtype out_type, void* out,
                           std::size_t outer, std::size_t n, std::size_t inner,
                           const double* device_weights, std::size_t k, long origin, int sym,
                           boundary mode, double cval, double divisor,
                           void* stream);  // scipy_order.cu

void add_convolution_cuda_exports(module_exports& e) {
  e.add("scipy_order_pass", &scipy_order_pass_here);
}

}  // namespace pplab::detail
