// The cuda backend of a build without nvcc: an executor that says why it is absent, and no GPU.
// (CMake compiles this file instead of src/core/cuda/ when nvcc was not found.)
#include "core/device.hpp"
#include "core/host/host_executor.hpp"
#include "pplab/device.hpp"

namespace pplab::detail {

namespace {
constexpr const char* why = "this build has no CUDA backend (nvcc was not found when it was built)";
}

executor& cuda_executor() {
  static absent_executor ex(backend::cuda, why);
  return ex;
}

std::size_t free_device_bytes() { return 0; }

const gpu_info& gpu() {
  static const gpu_info none = [] {
    gpu_info g;
    g.why_absent = why;
    return g;
  }();
  return none;
}

}  // namespace pplab::detail

// Without CUDA there is no stream to run on: a scope changes nothing (every device call fails).
pplab::stream_scope::stream_scope(void* stream) : previous_(stream), had_previous_(false) {}
pplab::stream_scope::~stream_scope() = default;
