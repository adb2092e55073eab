// The cuda backend's rungs, pattern by pattern (each pattern's cuda/register.cu).
#include "core/registry.hpp"

namespace pplab::detail {

void register_reduce_cuda(registry&);
void register_histogram_cuda(registry&);
void register_matmul_cuda(registry&);

void register_cuda(registry& r) {
  register_reduce_cuda(r);
  register_histogram_cuda(r);
  register_matmul_cuda(r);
}

}  // namespace pplab::detail
