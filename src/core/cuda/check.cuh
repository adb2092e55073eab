#pragma once
// Every CUDA call and launch is checked; a failure throws pplab::error naming the file and line.
#include <cuda_runtime.h>

#include <string>

#include "pplab/error.hpp"

namespace pplab::detail {

[[noreturn]] inline void cuda_fail(cudaError_t e, const char* what, const char* file, int line) {
  (void)cudaGetLastError();  // a call's own error must not reappear at the next launch check
  throw error(errc::device, std::string(what) + " failed: " + cudaGetErrorString(e) + " (" + file +
                                ":" + std::to_string(line) + ")");
}

}  // namespace pplab::detail

#define PPLAB_CUDA(call)                                                                           \
  do {                                                                                             \
    const cudaError_t pplab_e_ = (call);                                                           \
    if (pplab_e_ != cudaSuccess) ::pplab::detail::cuda_fail(pplab_e_, #call, __FILE__, __LINE__);  \
  } while (0)

// After a launch: a bad configuration shows here, a fault in the kernel at the next sync.
#define PPLAB_CUDA_LAUNCHED() PPLAB_CUDA(cudaGetLastError())
