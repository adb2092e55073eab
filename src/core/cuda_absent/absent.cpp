// The cuda backend of a build without nvcc: an executor that says why it is absent, no rungs, and
// no GPU. (CMake compiles this file instead of src/core/cuda/ when nvcc was not found.)
#include <stdexcept>

#include "core/device.hpp"
#include "core/host/host_executor.hpp"
#include "core/registry.hpp"
#include "histogram/atomic_rates.hpp"
#include "histogram/image_baseline.hpp"

namespace pplab::detail {

namespace {
constexpr const char* why = "this build has no CUDA backend (nvcc was not found when it was built)";
}

executor& cuda_executor() {
  static absent_executor ex(backend::cuda, why);
  return ex;
}

void register_cuda(registry&) {}

std::vector<ceiling> measure_gpu_atomic_rates(executor&, double) { return {}; }

std::size_t cub_rgba_histogram_scratch(std::size_t) { throw std::logic_error(why); }
void cub_rgba_histogram(const void*, std::size_t, std::uint64_t*, void*, void*) {
  throw std::logic_error(why);
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
