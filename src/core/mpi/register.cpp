// The mpi backend's rungs, pattern by pattern (each pattern's mpi/register.cpp).
#include "core/registry.hpp"

namespace pplab::detail {

void register_reduce_mpi(registry&);
void register_histogram_mpi(registry&);
void register_matmul_mpi(registry&);

void register_mpi(registry& r) {
  register_reduce_mpi(r);
  register_histogram_mpi(r);
  register_matmul_mpi(r);
}

}  // namespace pplab::detail
