// The nccl backend of a build without NCCL (or without CUDA): an executor that says why it is
// absent. (CMake compiles this file instead of src/core/nccl/ then.)
#include "core/host/host_executor.hpp"

namespace pplab::detail {

executor& nccl_executor() {
  static absent_executor ex(backend::nccl,
                            "this build has no nccl backend (it needs the cuda backend and NCCL: "
                            "nccl.h and libnccl, from the CUDA toolkit or libnccl-dev)");
  return ex;
}

int nccl_gpu_count() { return 0; }

}  // namespace pplab::detail
