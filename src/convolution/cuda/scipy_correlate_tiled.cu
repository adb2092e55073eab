// scipy.ndimage.correlate of rank 2 or more on the GPU, in SciPy's arithmetic, a block a tile
// (the general kernel, scipy_correlate.cu, says the order and takes what does not fit here).
// A block's answers are a tile of 32 rows x 64 columns on the last two axes. For each group of
// kept weights that share their indices on the leading axes (consecutive in C order), the block
// stages the input its tile reads for them, the tile with its halo, once in shared memory as
// doubles, each axis's index through the mode's table (cval where constant mode reads outside);
// then every weight of the group is one shared read per answer, a product and a sum rounded on
// their own (__dmul_rn, __dadd_rn), in C order, into registers. So the edges cost what the
// interior costs, and each input value is converted once a group, not once a weight.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "convolution/scipy_order.hpp"
#include "core/cuda/check.cuh"
#include "core/cuda/launch.cuh"
#include "core/visit.hpp"

namespace pplab::detail {
namespace {

using geometry = scipy_correlate_geometry;

// A thread's answers: 4 neighbouring rows in 2 columns 32 apart, so that a warp's reads of the
// staged input are 32 consecutive doubles (no bank conflict).
constexpr int warps = 8, threads = 32 * warps;
constexpr int rows_per_thread = 4, columns_per_lane = 2;
constexpr int tile_rows = warps * rows_per_thread, tile_columns = 32 * columns_per_lane;

struct tile_shape {
  int rows, columns;  // the staged input: the tile and its halo
  std::size_t bytes;  // dynamic shared memory: the staged input, the taps, the two tables
};
__host__ __device__ inline tile_shape shape_of(const geometry& g) {
  tile_shape s{};
  s.rows = tile_rows + int(g.side[g.rank - 2]) - 1;
  s.columns = tile_columns + int(g.side[g.rank - 1]) - 1;
  s.bytes = std::size_t(s.rows) * s.columns * sizeof(double) +
            g.taps * (sizeof(double) + 2 * sizeof(std::int32_t)) +
            std::size_t(s.rows + s.columns) * sizeof(std::int32_t);
  return s;
}

template <class U> __device__ U stored(double v) {
  if constexpr (std::is_integral_v<U>) return scipy_integer<U>(v);
  else return U(v);
}

template <class T, class U>
__global__ void __launch_bounds__(threads, 4)
    correlate_tiles(const T* __restrict__ in, U* __restrict__ out, geometry g,
                    const double* __restrict__ w, const std::int32_t* __restrict__ index,
                    const std::int32_t* __restrict__ map) {
  extern __shared__ double shared[];
  const tile_shape s = shape_of(g);
  const int rank = g.rank, ay = rank - 2, ax = rank - 1, taps = int(g.taps);
  double* staged = shared;
  double* tap_w = staged + s.rows * s.columns;
  auto* tap_at = reinterpret_cast<std::int32_t*>(tap_w + taps);  // the weight's offset in staged
  std::int32_t* row_from = tap_at + taps;  // each staged row's index on its axis, -1 outside
  std::int32_t* column_from = row_from + s.rows;
  // Each group's first tap holds where the group ends (its other taps: 0), found once a block.
  std::int32_t* group_end = column_from + s.columns;
  auto same_plane = [&](int t, int u) {
    for (int a = 0; a < ay; ++a)
      if (index[std::size_t(t) * rank + a] != index[std::size_t(u) * rank + a]) return false;
    return true;
  };
  for (int t = threadIdx.x; t < taps; t += threads) {
    const std::int32_t* j = index + std::size_t(t) * rank;
    tap_w[t] = w[t];
    tap_at[t] = j[ay] * s.columns + j[ax];
    int end = 0;
    if (t == 0 || !same_plane(t, t - 1))
      for (end = t + 1; end < taps && same_plane(end, t);) ++end;
    group_end[t] = end;
  }
  const std::int64_t ny = std::int64_t(g.shape[ay]), nx = std::int64_t(g.shape[ax]);
  const std::int64_t across = (nx + tile_columns - 1) / tile_columns;
  const std::int64_t per_plane = (ny + tile_rows - 1) / tile_rows * across;
  const std::int64_t tiles = std::int64_t(g.count) / (ny * nx) * per_plane;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const float per_column = 1.0f / float(s.columns);
  const int first = warp * rows_per_thread * s.columns + lane;  // the thread's first answer's
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::int64_t plane = tile / per_plane, at = tile % per_plane;
    const std::int64_t y0 = at / across * tile_rows, x0 = at % across * tile_columns;
    __syncthreads();  // the last tile's reads of the tables and the staged input are done
    for (int r = threadIdx.x; r < s.rows; r += threads)
      row_from[r] = y0 + r < ny + g.side[ay] - 1 ? map[g.map_at[ay] + y0 + r] : -1;
    for (int c = threadIdx.x; c < s.columns; c += threads)
      column_from[c] = x0 + c < nx + g.side[ax] - 1 ? map[g.map_at[ax] + x0 + c] : -1;
    std::int64_t i[scipy_correlate_max_rank];  // the plane's index on each leading axis
    for (std::int64_t a = ay - 1, rest = plane; a >= 0; --a) {
      i[a] = rest % std::int64_t(g.shape[a]);
      rest /= std::int64_t(g.shape[a]);
    }
    double acc[rows_per_thread][columns_per_lane] = {};
    for (int t = 0; t < taps;) {
      // The group's plane: where its first element lies, or outside (constant mode's cval).
      std::int64_t from = 0;
      bool outside = false;
      for (int a = 0; a < ay; ++a) {
        const std::int32_t q = map[g.map_at[a] + i[a] + index[std::size_t(t) * rank + a]];
        outside = outside || q < 0;
        from = from * std::int64_t(g.shape[a]) + (q < 0 ? 0 : q);
      }
      from *= ny * nx;
      __syncthreads();  // the tables are written; the last group's reads are done
      // The staged elements shared evenly (a warp a row left a third of the lanes idle at 67
      // columns, 1.1-1.7x slower); each one's row by a float multiply (exact: fewer than 2^15
      // elements, so (e + 0.5) / columns is never within float's error of a whole number).
      for (int e = threadIdx.x; e < s.rows * s.columns; e += threads) {
        const int r = int((float(e) + 0.5f) * per_column), c = e - r * s.columns;
        const std::int32_t qy = row_from[r], qx = column_from[c];
        staged[e] = outside || qy < 0 || qx < 0 ? g.cval : double(in[from + qy * nx + qx]);
      }
      __syncthreads();
#pragma unroll 2
      for (const int end = group_end[t]; t < end; ++t) {
        const double wt = tap_w[t];
        const double* x = staged + (first + tap_at[t]);
#pragma unroll
        for (int r = 0; r < rows_per_thread; ++r)
#pragma unroll
          for (int c = 0; c < columns_per_lane; ++c)
            acc[r][c] = __dadd_rn(acc[r][c], __dmul_rn(wt, x[r * s.columns + 32 * c]));
      }
    }
    U* dst = out + plane * ny * nx;
#pragma unroll
    for (int r = 0; r < rows_per_thread; ++r)
#pragma unroll
      for (int c = 0; c < columns_per_lane; ++c) {
        const std::int64_t y = y0 + warp * rows_per_thread + r, x = x0 + lane + 32 * c;
        if (y < ny && x < nx) dst[y * nx + x] = stored<U>(acc[r][c]);
      }
  }
}

template <class T, class U>
void launch(const void* in, void* out, const geometry& g, std::size_t bytes, const double* w,
            const std::int32_t* index, const std::int32_t* map, cudaStream_t stream) {
  const auto kernel = correlate_tiles<T, U>;
  allow_shared(kernel, bytes);
  const std::size_t ny = g.shape[g.rank - 2], nx = g.shape[g.rank - 1];
  const std::size_t tiles = g.count / (ny * nx) * ((ny + tile_rows - 1) / tile_rows) *
                            ((nx + tile_columns - 1) / tile_columns);
  const unsigned grid =
      unsigned(std::min<std::size_t>(tiles, resident_blocks(kernel, threads, bytes)));
  kernel<<<grid, threads, bytes, stream>>>(static_cast<const T*>(in), static_cast<U*>(out), g, w,
                                           index, map);
  PPLAB_CUDA_LAUNCHED();
}

}  // namespace

// Whether the tiled kernel takes this call (then it is queued on `stream`): rank 2 or more, the
// last two axes long enough that most of a tile's threads have answers, the staged input and
// the taps within a block's shared memory; otherwise the general kernel runs it.
bool scipy_correlate_tiled(dtype in_type, const void* in, dtype out_type, void* out,
                           const geometry& g, const double* w, const std::int32_t* index,
                           const std::int32_t* map, void* stream) {
  if (g.rank < 2 || g.shape[g.rank - 2] < tile_rows / 4 || g.shape[g.rank - 1] < tile_columns / 4)
    return false;
  const tile_shape shape = shape_of(g);
  if (shape.bytes > max_shared_per_block() || shape.rows * shape.columns >= 1 << 15) return false;
  const std::size_t bytes = shape.bytes;
  const auto s = static_cast<cudaStream_t>(stream);
  bool launched = false;
  visit_dtype(out_type, [&](auto u) {
    using U = decltype(u);
    if (in_type == out_type) launch<U, U>(in, out, g, bytes, w, index, map, s), launched = true;
    else if (in_type == dtype::f64)
      launch<double, U>(in, out, g, bytes, w, index, map, s), launched = true;
  });
  return launched;
}

}  // namespace pplab::detail
