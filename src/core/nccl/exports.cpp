// What the nccl backend's own folder gives the core through the module's table
// (core/modules.hpp; src/core/nccl_forward.cpp forwards to these).
#include "core/executor.hpp"
#include "core/modules.hpp"

namespace pplab::detail {

executor& nccl_module_executor();
int nccl_module_gpu_count();

void add_core_nccl_exports(module_exports& e) {
  e.add("nccl_executor", &nccl_module_executor);
  e.add("nccl_gpu_count", &nccl_module_gpu_count);
}

}  // namespace pplab::detail
