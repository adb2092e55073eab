// What the histogram's cuda folder gives the lab beyond its rungs, as the core sees it: the GPU's
// atomic rates and CUB's RGBA histogram, forwarded to the cuda module's table (core/modules.hpp;
// the folder's add_histogram_cuda_exports), or, without the module, no rates and no CUB call.
#include <stdexcept>

#include "core/modules.hpp"
#include "histogram/atomic_rates.hpp"
#include "histogram/image_baseline.hpp"
#include "histogram/points_2d.hpp"
#include "histogram/points_nd.hpp"

namespace pplab::detail {

std::vector<ceiling> measure_gpu_atomic_rates(executor& ex, double budget_s) {
  auto* f =
      module_function<std::vector<ceiling>(executor&, double)>(backend::cuda, "gpu_atomic_rates");
  return f ? f(ex, budget_s) : std::vector<ceiling>{};
}

namespace {
[[noreturn]] void no_cub() {
  throw std::logic_error("CUB's histogram needs the cuda backend, which is not loaded here");
}
}  // namespace

std::size_t cub_rgba_histogram_scratch(std::size_t pixels) {
  auto* f = module_function<std::size_t(std::size_t)>(backend::cuda, "cub_rgba_scratch");
  if (!f) no_cub();
  return f(pixels);
}

void cub_rgba_histogram(const void* pixels, std::size_t n_pixels, std::uint64_t* counts,
                        void* scratch, void* stream) {
  auto* f = module_function<void(const void*, std::size_t, std::uint64_t*, void*, void*)>(
      backend::cuda, "cub_rgba_histogram");
  if (!f) no_cub();
  f(pixels, n_pixels, counts, scratch, stream);
}

void bin_points_2d_device(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                          axis_edges ay, std::uint32_t* slots, void* stream) {
  auto* f =
      module_function<void(dtype, const void*, const void*, std::size_t, axis_edges, axis_edges,
                           std::uint32_t*, void*)>(backend::cuda, "bin_points_2d");
  if (!f) throw std::logic_error("histogram2d on the GPU needs the cuda backend, not loaded here");
  f(t, x, y, n, ax, ay, slots, stream);
}

bool count_points_2d_device(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                            axis_edges ay, std::uint64_t* counts, void* stream) {
  auto* f =
      module_function<bool(dtype, const void*, const void*, std::size_t, axis_edges, axis_edges,
                           std::uint64_t*, void*)>(backend::cuda, "count_points_2d");
  if (!f) throw std::logic_error("histogram2d on the GPU needs the cuda backend, not loaded here");
  return f(t, x, y, n, ax, ay, counts, stream);
}

void bin_points_nd_device(dtype t, const nd_points& p, std::size_t n, std::uint32_t* slots,
                          void* stream) {
  auto* f = module_function<void(dtype, const nd_points&, std::size_t, std::uint32_t*, void*)>(
      backend::cuda, "bin_points_nd");
  if (!f) throw std::logic_error("histogramdd on the GPU needs the cuda backend, not loaded here");
  f(t, p, n, slots, stream);
}

bool count_points_nd_device(dtype t, const nd_points& p, std::size_t n, std::uint64_t* counts,
                            void* stream) {
  auto* f = module_function<bool(dtype, const nd_points&, std::size_t, std::uint64_t*, void*)>(
      backend::cuda, "count_points_nd");
  if (!f) throw std::logic_error("histogramdd on the GPU needs the cuda backend, not loaded here");
  return f(t, p, n, counts, stream);
}

}  // namespace pplab::detail
