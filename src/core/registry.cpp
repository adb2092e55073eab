#include "core/registry.hpp"

namespace pplab::detail {

const registry& rungs() {
  static const registry r = [] {
    registry out;
    register_reduce_seq(out);
    register_reduce_cpu(out);
    register_histogram_seq(out);
    register_histogram_cpu(out);
    register_matmul_seq(out);
    register_matmul_cpu(out);
    register_cuda(out);
    register_nccl(out);
    register_mpi(out);
    return out;
  }();
  return r;
}

}  // namespace pplab::detail
