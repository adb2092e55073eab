// The nccl backend's rungs, pattern by pattern (each pattern's nccl/register.cpp).
#include "core/registry.hpp"

namespace pplab::detail {

void register_reduce_nccl(registry&);
void register_histogram_nccl(registry&);
void register_matmul_nccl(registry&);

void register_nccl(registry& r) {
  register_reduce_nccl(r);
  register_histogram_nccl(r);
  register_matmul_nccl(r);
}

}  // namespace pplab::detail
