// What the histogram's cuda folder gives the lab beyond its rungs, in a build without CUDA: no
// atomic rates to measure, no CUB call (compiled instead of that folder: sources.cmake).
#include <stdexcept>

#include "histogram/atomic_rates.hpp"
#include "histogram/image_baseline.hpp"

namespace pplab::detail {

namespace {
constexpr const char* why = "this build has no CUDA backend (nvcc was not found when it was built)";
}

std::vector<ceiling> measure_gpu_atomic_rates(executor&, double) { return {}; }

std::size_t cub_rgba_histogram_scratch(std::size_t) { throw std::logic_error(why); }
void cub_rgba_histogram(const void*, std::size_t, std::uint64_t*, void*, void*) {
  throw std::logic_error(why);
}

}  // namespace pplab::detail
