// scipy.ndimage.correlate1d into integers on the GPU, in SciPy's arithmetic
// (pplab/device.hpp, correlate1d_in_scipys_order_device; the host's is
// src/convolution/scipy_order.cpp, which says the order): a thread an answer, its taps read
// through the cache, added in SciPy's order with the intrinsics that round each product and sum
// on its own (__dmul_rn, __dadd_rn: never fused into an FMA), so that an answer within a rounding
// of a whole number truncates as SciPy's does. The input is the output's integer type or double
// (the caller converts any other first); the array is (outer, n, inner) in C order.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "convolution/boundary.hpp"
#include "convolution/scipy_order.hpp"
#include "core/cuda/check.cuh"
#include "core/cuda/launch.cuh"
#include "pplab/error.hpp"

namespace pplab::detail {
namespace {

struct line_geometry {
  std::size_t outer, n, inner;
  std::size_t k;        // the weights' count
  std::int64_t before;  // the line's extension before its first element: k / 2 + origin
  int sym;              // scipy_symmetry of the weights
  boundary mode;
  double cval, divisor;
};

template <class T, class U>
__global__ void __launch_bounds__(256)
    in_scipys_order(const T* __restrict__ in, U* __restrict__ out, line_geometry g,
                    const double* __restrict__ w) {
  const std::size_t total = g.outer * g.n * g.inner;
  const std::size_t step = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t at = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; at < total;
       at += step) {
    const std::size_t c = at % g.inner, rest = at / g.inner, i = rest % g.n, o = rest / g.n;
    const T* line = in + o * g.n * g.inner + c;
    const std::int64_t first = std::int64_t(i) - g.before, n = std::int64_t(g.n);
    auto tap = [&](std::size_t t) -> double {
      const std::int64_t q = boundary_index(first + std::int64_t(t), n, g.mode);
      return q < 0 ? g.cval : double(line[std::size_t(q) * g.inner]);
    };
    const std::size_t k = g.k;
    double acc;
    if (g.sym == 0) {
      acc = __dmul_rn(tap(k - 1), w[k - 1]);
      for (std::size_t t = 0; t + 1 < k; ++t) acc = __dadd_rn(acc, __dmul_rn(tap(t), w[t]));
    } else {
      const std::size_t mid = k / 2;
      acc = __dmul_rn(tap(mid), w[mid]);
      for (std::size_t t = 0; t < mid; ++t) {
        const double lo = tap(t), hi = tap(k - 1 - t);
        const double pair = g.sym > 0 ? __dadd_rn(lo, hi) : __dsub_rn(lo, hi);
        acc = __dadd_rn(acc, __dmul_rn(pair, w[t]));
      }
    }
    if (g.divisor != 1.0) acc = __ddiv_rn(acc, g.divisor);
    out[at] = scipy_integer<U>(acc);
  }
}

template <class T, class U>
void launch(const void* in, void* out, const line_geometry& g, const double* w, cudaStream_t s) {
  const unsigned grid = resident_blocks(in_scipys_order<T, U>, 256);
  in_scipys_order<T, U><<<grid, 256, 0, s>>>(static_cast<const T*>(in), static_cast<U*>(out), g, w);
  PPLAB_CUDA_LAUNCHED();
}

}  // namespace

void scipy_order_pass_here(dtype in_type, const void* in, dtype out_type, void* out,
                           std::size_t outer, std::size_t n, std::size_t inner,
                           const double* device_weights, std::size_t k, long origin, int sym,
                           boundary mode, double cval, double divisor, void* stream) {
  const line_geometry g{outer, n, inner, k, std::int64_t(k / 2) + origin, sym, mode, cval, divisor};
  if (outer * n * inner == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  bool launched = false;
  visit_dtype(out_type, [&](auto u) {
    using U = decltype(u);
    if constexpr (std::is_integral_v<U>) {
      if (in_type == out_type) launch<U, U>(in, out, g, device_weights, s), launched = true;
      else if (in_type == dtype::f64)
        launch<double, U>(in, out, g, device_weights, s), launched = true;
    }
  });
  if (!launched)
    fail(errc::invalid_argument,
         "correlate1d_in_scipys_order on the GPU reads the output's integer type or float64, not " +
             std::string(name_of(in_type)) + " into " + std::string(name_of(out_type)));
}

}  // namespace pplab::detail
