// scipy.ndimage.correlate1d into integers on the GPU, in SciPy's arithmetic
// (pplab/device.hpp, correlate1d_in_scipys_order_device; the host's is
// src/convolution/scipy_order.cpp, which says the order): a thread an answer, its taps read
// through the cache, added in SciPy's order with the intrinsics that round each product and sum
// on its own (__dmul_rn, __dadd_rn: never fused into an FMA), so that an answer within a rounding
// of a whole number truncates as SciPy's does. The input is the output's integer type or double
// (the caller converts any other first); the array is (outer, n, inner) in C order. Lines
// contiguous or at least 32 apart go through the tiled kernel below instead.
#include <cuda_runtime.h>

#include <algorithm>
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

// One answer's sum in SciPy's order, its taps from tap(t), t in [0, k): the weights' symmetry
// (sym) pairs the taps first, as SciPy's correlate1d does; the divisor (an integer filter's
// mean) last.
template <class Tap>
__device__ inline double scipy_line_sum(const Tap& tap, const line_geometry& g,
                                        const double* __restrict__ w) {
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
  return g.divisor != 1.0 ? __ddiv_rn(acc, g.divisor) : acc;
}

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
    out[at] = scipy_integer<U>(scipy_line_sum(tap, g, w));
  }
}

// The same sums a block a tile: `positions` answers along the line times `columns` neighbouring
// lines (the inner index: 32 where the lines are strided, each position's 32 values side by side
// in memory; 1 where the lines are contiguous, 1024 positions of one line). The tile's input,
// extended by the mode, is staged once in shared memory as doubles (32-bit indices within it);
// each thread then adds four answers' taps from it, a warp reading consecutive doubles. So each
// input value is read and converted once a tile, not once a tap, and no answer divides 64-bit
// indices.
constexpr int tile_threads = 256;
struct tile_geometry {
  int columns, positions;
  __host__ __device__ int staged_rows(std::size_t k) const { return positions + int(k) - 1; }
};
inline tile_geometry tile_for(std::size_t inner) {
  return inner == 1 ? tile_geometry{1, 4 * tile_threads} : tile_geometry{32, 4 * tile_threads / 32};
}

template <class T, class U>
__global__ void __launch_bounds__(tile_threads)
    in_scipys_order_tiles(const T* __restrict__ in, U* __restrict__ out, line_geometry g,
                          tile_geometry tg, const double* __restrict__ w) {
  extern __shared__ double staged[];  // staged_rows x columns, a row a position
  const int columns = tg.columns, rows = tg.staged_rows(g.k);
  const std::int64_t n = std::int64_t(g.n), inner = std::int64_t(g.inner);
  const std::int64_t along = (n + tg.positions - 1) / tg.positions;
  const std::int64_t across = (inner + columns - 1) / columns;
  const std::int64_t tiles = std::int64_t(g.outer) * along * across;
  const int column = int(threadIdx.x) % columns, lane_row = int(threadIdx.x) / columns;
  const int row_step = tile_threads / columns;  // a thread's answers: positions this far apart
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::int64_t o = tile / (along * across), rest = tile % (along * across);
    const std::int64_t p0 = rest / across * tg.positions, c0 = rest % across * columns;
    const T* line = in + o * n * inner + c0;
    const bool column_inside = c0 + column < inner;
    __syncthreads();  // the last tile's reads are done
    for (int r = lane_row; r < rows; r += row_step) {
      const std::int64_t q = boundary_index(p0 - g.before + r, n, g.mode);
      staged[r * columns + column] = !column_inside ? 0.0
                                     : q < 0        ? g.cval
                                                    : double(line[q * inner + column]);
    }
    __syncthreads();
    if (!column_inside) continue;
    U* dst = out + o * n * inner + c0 + column;
    for (int j = 0; j < 4; ++j) {
      const int p = lane_row + j * row_step;
      if (p0 + p >= n) break;
      const double* x = staged + p * columns + column;  // the answer's first tap
      auto tap = [&](std::size_t t) { return x[t * columns]; };
      dst[(p0 + p) * inner] = scipy_integer<U>(scipy_line_sum(tap, g, w));
    }
  }
}

template <class T, class U>
void launch(const void* in, void* out, const line_geometry& g, const double* w, cudaStream_t s) {
  // Tiles where the lines are contiguous or at least 32 apart and the staged input fits the
  // default shared memory; the thread an answer otherwise.
  const tile_geometry tg = tile_for(g.inner);
  const std::size_t bytes = std::size_t(tg.staged_rows(g.k)) * tg.columns * sizeof(double);
  if ((g.inner == 1 || g.inner >= 32) && bytes <= (std::size_t(48) << 10)) {
    const auto kernel = in_scipys_order_tiles<T, U>;
    const std::size_t tiles = g.outer * ((g.n + tg.positions - 1) / tg.positions) *
                              ((g.inner + tg.columns - 1) / tg.columns);
    const unsigned grid =
        unsigned(std::min<std::size_t>(tiles, resident_blocks(kernel, tile_threads, bytes)));
    kernel<<<grid, tile_threads, bytes, s>>>(static_cast<const T*>(in), static_cast<U*>(out), g, tg,
                                             w);
  } else {
    const unsigned grid = resident_blocks(in_scipys_order<T, U>, 256);
    in_scipys_order<T, U>
        <<<grid, 256, 0, s>>>(static_cast<const T*>(in), static_cast<U*>(out), g, w);
  }
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
