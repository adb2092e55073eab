// The nccl backend of a build without NCCL (or without CUDA): an executor that says why it is
// absent, and no rungs. (CMake compiles this file instead of src/core/nccl/ then.)
#include "core/host/host_executor.hpp"
#include "core/registry.hpp"
#include "core/run.hpp"
#include "pplab/device.hpp"

namespace pplab::detail {

executor& nccl_executor() {
  static absent_executor ex(backend::nccl,
                            "this build has no nccl backend (it needs the cuda backend and NCCL: "
                            "nccl.h and libnccl, from the CUDA toolkit or libnccl-dev)");
  return ex;
}

int nccl_gpu_count() { return 0; }

void register_nccl(registry&) {}

}  // namespace pplab::detail

namespace pplab {

scalar reduce_device_parts(dtype, std::span<const device_part>, op) {
  detail::require_backend(backend::nccl);  // throws: the reason it is absent
  return {};
}

histogram_result histogram_device_parts(dtype, std::span<const device_part>,
                                        const histogram_options&) {
  detail::require_backend(backend::nccl);  // throws: the reason it is absent
  return {};
}

}  // namespace pplab
