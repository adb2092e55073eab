// What the histogram's cuda folder gives the lab beyond its rungs, through the module's table
// (core/modules.hpp; the core's forwarders to them: src/histogram/cuda_forward.cpp).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/executor.hpp"
#include "core/modules.hpp"
#include "pplab/ceiling.hpp"

namespace pplab::detail {

std::vector<ceiling> gpu_atomic_rates_here(executor& ex, double budget_s);  // atomic_rates.cu
std::size_t cub_rgba_scratch_here(std::size_t pixels);                      // h00_cub.cu
void cub_rgba_histogram_here(const void* pixels, std::size_t n_pixels, std::uint64_t* counts,
                             void* scratch, void* stream);

void add_histogram_cuda_exports(module_exports& e) {
  e.add("gpu_atomic_rates", &gpu_atomic_rates_here);
  e.add("cub_rgba_scratch", &cub_rgba_scratch_here);
  e.add("cub_rgba_histogram", &cub_rgba_histogram_here);
}

}  // namespace pplab::detail
