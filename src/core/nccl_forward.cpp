// The nccl backend as the core sees it (core/modules.hpp): forwarded to its module, or, where
// this build has none or it cannot be loaded, an executor that says why.
// The forwarders called on every API call look their function up once (a module is tried once).
#include "core/host/host_executor.hpp"
#include "core/modules.hpp"

namespace pplab::detail {

executor& nccl_executor() {
  static auto* const f = module_function<executor&()>(backend::nccl, "nccl_executor");
  if (f) return f();
  static absent_executor ex(
      backend::nccl, module_built(backend::nccl)
                         ? module_why_absent(backend::nccl)
                         : "this build has no nccl backend (it needs the cuda backend and NCCL: "
                           "nccl.h and libnccl, from the CUDA toolkit or libnccl-dev)");
  return ex;
}

int nccl_gpu_count() {
  auto* f = module_function<int()>(backend::nccl, "nccl_gpu_count");
  return f ? f() : 0;
}

}  // namespace pplab::detail
