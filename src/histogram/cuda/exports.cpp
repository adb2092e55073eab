// What the histogram's cuda folder gives the lab and the API beyond its rungs, through the module's
// table (core/modules.hpp; the core's forwarders to them: src/histogram/cuda_forward.cpp).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/executor.hpp"
#include "core/modules.hpp"
#include "histogram/points_2d.hpp"
#include "histogram/points_nd.hpp"
#include "pplab/ceiling.hpp"

namespace pplab::detail {

std::vector<ceiling> gpu_atomic_rates_here(executor& ex, double budget_s);  // atomic_rates.cu
std::size_t cub_rgba_scratch_here(std::size_t pixels);                      // h00_cub.cu
void cub_rgba_histogram_here(const void* pixels, std::size_t n_pixels, std::uint64_t* counts,
                             void* scratch, void* stream);
void bin_points_2d_here(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                        axis_edges ay, std::uint32_t* slots, void* stream);  // points_2d.cu
bool count_points_2d_here(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                          axis_edges ay, std::uint64_t* counts, void* stream);  // points_2d.cu
void bin_points_nd_here(dtype t, const nd_points& p, std::size_t n, std::uint32_t* slots,
                        void* stream);  // points_nd.cu
bool count_points_nd_here(dtype t, const nd_points& p, std::size_t n, std::uint64_t* counts,
                          void* stream);  // points_nd.cu

void add_histogram_cuda_exports(module_exports& e) {
  e.add("gpu_atomic_rates", &gpu_atomic_rates_here);
  e.add("cub_rgba_scratch", &cub_rgba_scratch_here);
  e.add("cub_rgba_histogram", &cub_rgba_histogram_here);
  e.add("bin_points_2d", &bin_points_2d_here);
  e.add("count_points_2d", &count_points_2d_here);
  e.add("bin_points_nd", &bin_points_nd_here);
  e.add("count_points_nd", &count_points_nd_here);
}

}  // namespace pplab::detail
