// convolution/cuda/c13_line_pass: a mask of one row (1 x k) or one column (k x 1), its taps a
// run-time count: the 1-D pass that SciPy's correlate1d is, and that its separable named filters
// (gaussian_filter, uniform_filter, sobel) run once per axis on arrays of any rank. c06 and c07
// compile their mask's side and take square masks; a line went to c04's output tiles, 0.705 ms
// (1 x 15) and 1.345 ms (15 x 1) on 8192^2 f32 through Python on an H200, where one read and one
// write of the image take 0.12 ms.
//   - Across (1 x k): a block stages 8 rows of 128 outputs with their halo in shared memory; a
//     thread filters 4 neighbouring outputs of a row from the 4 + 7 values that a group of 8 taps
//     reaches, read in 16-byte loads (a warp reads one row's contiguous bytes: no bank conflict).
//   - Down (k x 1): a block stages 64 rows of 32 columns with their halo; a thread filters 8
//     outputs down its column from the 8 + 7 values a group of 8 taps reaches (a warp's 32 columns
//     are 32 banks).
// A block inside the image stages by cp.async, every copy in flight at once and no register on
// the way; a block on the image's edge through the boundary, 8 loads a thread at a time.
// Per group of 8 taps: 8 tap reads (the constant bank's broadcast) and 12 (across) or 15 (down)
// shared values for 32 or 64 multiply-adds. The last group, short of 8, tests each tap: a zero
// tap past the mask would multiply an infinity into NaN. The taps are added in order, tap 0 first.
// Measured (H200, 8192^2 f32, 15 taps, bench/results/h200-2026-11-29-argmax-axes-abdb009.txt):
// across 0.255 ms, down 0.203 ms, 50% and 63% of the copy ceiling (with the stage loaded through
// registers, 8 loads a thread in flight: 0.287 and 0.246; one load at a time: 0.382 and 0.296).
// What is left is the block's load phase, not overlapped with its own work.
// A stack of images (a 3-D array's middle axis as planes x rows x cols) runs in one launch, the
// planes along the grid's z: SciPy's pass along that axis without moving it first.
#include "convolution/cuda/constant_mask.cuh"
#include "core/cuda/async_copy.cuh"
#include "core/cuda/launch.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int threads = 256, group = 8;
// Across: a block of rows_across rows x across_w outputs, X outputs a thread.
constexpr int X = 4, across_w = 128, rows_across = threads / (across_w / X);
// Down: a block of down_cols columns x down_h outputs, Y outputs a thread.
constexpr int Y = 8, down_cols = 32, down_h = threads / down_cols * Y;
// A block on the image's edge stages its loads 8 a thread at a time, all 8 in flight before the
// first of them is stored.
constexpr int stage_loads = 8;

// A staged row's length across: the outputs, the halo (k - 1), and room for the last group's
// 16-byte loads; a multiple of 4 elements, so that every row starts 16-byte aligned.
__host__ __device__ inline int across_width(int k) {
  return across_w + (k + group - 1) / group * group + 4;
}

template <class T> struct alignas(16) vec16 { T v[16 / sizeof(T)]; };

// acc[j] += tap(t0 + t) v[t + j] for the first `taps` taps of the group (all 8 unless `tail`).
template <class T, int N, bool tail>
__device__ __forceinline__ void taps_of_group(T (&acc)[N], const T* v, int t0, int taps) {
#pragma unroll
  for (int t = 0; t < group; ++t) {
    if (tail && t >= taps) break;
    const T w = tap<T>(t0 + t);
#pragma unroll
    for (int j = 0; j < N; ++j) acc[j] += w * v[t + j];
  }
}

// A stack of images (convolution_problem::planes): elements from one plane to the next.
struct planes {
  std::size_t in = 0, out = 0;
};
// Plane blockIdx.z's image and output.
template <class T> __device__ __forceinline__ void to_plane(image<T>& f, const planes& z) {
  f.in += std::size_t(blockIdx.z) * z.in, f.out += std::size_t(blockIdx.z) * z.out;
}

template <class T> __global__ void __launch_bounds__(threads) across(image<T> f, planes z) {
  to_plane(f, z);
  extern __shared__ __align__(16) unsigned char raw[];
  T* s = reinterpret_cast<T*>(raw);
  const int k = f.kw, r = k / 2, width = across_width(k);
  const int y0 = int(blockIdx.y) * rows_across, x0 = int(blockIdx.x) * across_w;
  // Element (i, j) of the stage is input (y0 + i, x0 - r + j); past the halo, zeros (never
  // multiplied by a tap).
  const int total = rows_across * width, halo = across_w + k - 1;
  const bool inside = y0 + rows_across <= f.rows && x0 - r >= 0 && x0 - r + width <= f.cols;
  const T* first = f.in + std::size_t(y0) * f.ld_in + (x0 - r);
  tile_walk at(int(threadIdx.x), width, threads);
  if (inside) {  // every copy in flight at once, no register on the way
    for (int e = int(threadIdx.x); e < total; e += threads, at.step())
      copy_async_inside<sizeof(T)>(s + e, first + std::size_t(at.row) * f.ld_in + at.col);
    commit_copies();
    wait_copies<0>();
  }
  for (int base = 0; !inside && base < total; base += stage_loads * threads) {
    T v[stage_loads];
    tile_walk from = at;
#pragma unroll
    for (int q = 0; q < stage_loads; ++q, from.step()) {
      const int e = base + q * threads + int(threadIdx.x);
      const int y = y0 + from.row;
      v[q] = e < total && y < f.rows && from.col < halo ? read(f, y, x0 - r + from.col) : T(0);
    }
#pragma unroll
    for (int q = 0; q < stage_loads; ++q, at.step()) {
      const int e = base + q * threads + int(threadIdx.x);
      if (e < total) s[e] = v[q];
    }
  }
  __syncthreads();
  const int row = int(threadIdx.x) / (across_w / X), c = int(threadIdx.x) % (across_w / X);
  const T* line = s + row * width + c * X;
  constexpr int W = 16 / int(sizeof(T)), loads = (X + group) / W;
  T acc[X] = {};
  const int whole = k / group * group;
  for (int t0 = 0; t0 <= k - 1; t0 += group) {
    T v[X + group];
#pragma unroll
    for (int q = 0; q < loads; ++q)
      *reinterpret_cast<vec16<T>*>(v + q * W) =
          *reinterpret_cast<const vec16<T>*>(line + t0 + q * W);
    if (t0 < whole) taps_of_group<T, X, false>(acc, v, t0, group);
    else taps_of_group<T, X, true>(acc, v, t0, k - t0);
  }
  const int y = y0 + row, x = x0 + c * X;
  if (y >= f.rows) return;
  T* out = f.out + std::size_t(y) * f.ld_out + x;
  if constexpr (X * sizeof(T) == 16) {  // f32: the 4 outputs in one 16-byte store where aligned
    if (x + X <= f.cols && reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
      *reinterpret_cast<vec16<T>*>(out) = *reinterpret_cast<const vec16<T>*>(acc);
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < X; ++j)
    if (x + j < f.cols) out[j] = acc[j];
}

template <class T> __global__ void __launch_bounds__(threads) down(image<T> f, planes z) {
  to_plane(f, z);
  extern __shared__ __align__(16) unsigned char raw[];
  T* s = reinterpret_cast<T*>(raw);
  const int k = f.kh, r = k / 2, h = down_h + k - 1;
  const int y0 = int(blockIdx.y) * down_h, x0 = int(blockIdx.x) * down_cols;
  const int tx = int(threadIdx.x) % down_cols, ty = int(threadIdx.x) / down_cols;
  const int x = x0 + tx;
  // Row i of the stage is input row y0 - r + i; a column past the image's, and the group's rows
  // past the halo (never multiplied by a tap), zeros.
  constexpr int step = threads / down_cols;
  const bool inside = y0 - r >= 0 && y0 - r + h + group <= f.rows && x0 + down_cols <= f.cols;
  if (inside) {  // every copy in flight at once, no register on the way
    const T* first = f.in + std::size_t(y0 - r) * f.ld_in + x;
    for (int i = ty; i < h + group; i += step)
      copy_async_inside<sizeof(T)>(s + i * down_cols + tx, first + std::size_t(i) * f.ld_in);
    commit_copies();
    wait_copies<0>();
  }
  for (int base = ty; !inside && base < h + group; base += stage_loads * step) {
    T v[stage_loads];
#pragma unroll
    for (int q = 0; q < stage_loads; ++q) {
      const int i = base + q * step;
      v[q] = i < h + group && x < f.cols && i < h ? read(f, y0 - r + i, x) : T(0);
    }
#pragma unroll
    for (int q = 0; q < stage_loads; ++q)
      if (base + q * step < h + group) s[(base + q * step) * down_cols + tx] = v[q];
  }
  __syncthreads();
  const T* col = s + ty * Y * down_cols + tx;
  T acc[Y] = {};
  const int whole = k / group * group;
  for (int t0 = 0; t0 <= k - 1; t0 += group) {
    T v[Y + group - 1];
#pragma unroll
    for (int q = 0; q < Y + group - 1; ++q) v[q] = col[(t0 + q) * down_cols];
    if (t0 < whole) taps_of_group<T, Y, false>(acc, v, t0, group);
    else taps_of_group<T, Y, true>(acc, v, t0, k - t0);
  }
  if (x >= f.cols) return;
#pragma unroll
  for (int j = 0; j < Y; ++j) {
    const int y = y0 + ty * Y + j;
    if (y < f.rows) f.out[std::size_t(y) * f.ld_out + x] = acc[j];
  }
}

template <class T>
void launch(image<T> f, const T* mask, const planes& z, std::size_t count, cudaStream_t s) {
  const int k = f.kh == 1 ? f.kw : f.kh;
  const mask_in_bank<T> bank(mask, k, s);
  // The grid's z reaches 65535: a larger stack in runs of that many planes
  for (std::size_t done = 0; done < count; done += 65535) {
    const unsigned here = unsigned(std::min<std::size_t>(count - done, 65535));
    if (f.kh == 1) {
      const std::size_t bytes = std::size_t(rows_across) * across_width(k) * sizeof(T);
      allow_shared(across<T>, bytes);
      dim3 grid = tiles_over(f.rows, f.cols, rows_across, across_w);
      grid.z = here;
      across<T><<<grid, threads, bytes, s>>>(f, z);
    } else {
      const std::size_t bytes = std::size_t(down_h + k - 1 + group) * down_cols * sizeof(T);
      allow_shared(down<T>, bytes);
      dim3 grid = tiles_over(f.rows, f.cols, down_h, down_cols);
      grid.z = here;
      down<T><<<grid, threads, bytes, s>>>(f, z);
    }
    PPLAB_CUDA_LAUNCHED();
    f.in += here * z.in, f.out += here * z.out;
  }
}

// One row or one column of up to max_line_taps taps (a 1 x 1 mask runs across), on a stack of
// images too.
bool can_run(const convolution_problem& p) {
  return float_stack(p) && (p.kh == 1 || p.kw == 1) && p.kh <= max_line_taps &&
         p.kw <= max_line_taps && p.cols < (std::size_t(1) << 31) &&
         ceil_div(p.rows, p.kh == 1 ? rows_across : down_h) < 65536;
}
template <class T> void run_stack(const convolution_call& c) {
  const image<T> f = image_of<T>(c);
  if (f.rows == 0 || f.cols == 0) return;
  launch(f, static_cast<const T*>(c.mask), planes{c.plane_in, c.plane_out},
         std::max<std::size_t>(c.p.planes, 1), static_cast<cudaStream_t>(c.stream));
}
void run(const convolution_call& c) {
  if (c.p.type == dtype::f32) run_stack<float>(c);
  else run_stack<double>(c);
}

}  // namespace

extern const convolution_rung c13_line_pass{
    .info = {.step = 13,
             .summary = "a mask of one row or one column (a 1-D pass), its taps a run-time count: "
                        "groups of 8 taps over registers of staged values"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::convolution_cuda
