#pragma once
// The 1-D pass of a mask of one row (1 x k) or one column (k x 1), its taps a run-time count, over
// an image or a stack of them: the kernels of c13 (a tile a block, staged, then filtered) and c14
// (a run of tiles a block in a ring of stages, the next tiles' copies in flight while it filters
// one).
//   - Across (1 x k): a tile of 16 rows of 128 outputs with their halo in shared memory; a thread
//     filters 8 neighbouring outputs of a row from the 8 + 7 values that a group of 8 taps
//     reaches, read in 16-byte loads (a warp reads two rows' contiguous bytes: no bank conflict).
//     With 4 outputs a thread (8 rows a tile) c14 ran across at 0.214 ms, 59% of the copy
//     ceiling (H200, 8192^2 f32, 15 taps), with 8 at 0.179 ms, 71%: half the shared loads and
//     tap reads a multiply-add, and half the barriers and waits an output.
//   - Down (k x 1): a tile of 64 rows of 32 columns with their halo; a thread filters 8 outputs
//     down its column from the 8 + 7 values a group of 8 taps reaches (a warp's 32 columns are 32
//     banks).
// A tile is staged by cp.async, every copy in flight at once and no register on the way; on the
// image's edge each value from where the boundary mode puts it (the constant stored). Staged
// through registers, 8 loads a thread in flight, the edge tiles had cost a 3-D array 512 values
// wide half its tiles at that pace. Where the image's rows start on 16-byte boundaries, a tile
// inside the image is copied 16 bytes at a time (a row's stage across starts up to 3 values
// before its halo for that): a copy a value had been most of the pass's instructions, and with
// a quarter of them c14 went across from 0.179 to 0.165 ms (71% -> 77% of the copy ceiling) and
// down from 0.174 to 0.149 ms (73% -> 86%; a 64 x 1024 x 1024 middle axis 0.179 -> 0.159 ms), H200,
// 8192^2 f32, 15 taps, one lab run (bench/results/h200-2026-11-29-argmax-axes-abdb009.txt).
// Per group of 8 taps: 8 tap reads (the constant bank's broadcast) and 8 shared values (16 or 15
// the first time) for 64 multiply-adds: the values the next group reaches too stay in
// registers (filter_line). The last group, short of 8, tests each tap: a zero tap past the mask
// would multiply an infinity into NaN. The taps are added in order, tap 0 first, so c13 and c14
// give the same bits.
// A stack of images (a 3-D array's middle axis as planes x rows x cols) runs in one launch, the
// planes along the grid's z: SciPy's pass along that axis without moving it first.
#include <algorithm>

#include "convolution/cuda/constant_mask.cuh"
#include "core/cuda/async_copy.cuh"
#include "core/cuda/launch.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int line_threads = 256, group = 8;
// Across: a tile of rows_across rows x across_w outputs, X outputs a thread.
constexpr int X = 8, across_w = 128, rows_across = line_threads / (across_w / X);
// Down: a tile of down_cols columns x down_h outputs, Y outputs a thread.
constexpr int Y = 8, down_cols = 32, down_h = line_threads / down_cols * Y;

// A staged row's length across: the outputs, the halo (k - 1), the up to 3 places before the halo
// that start the row at a 16-byte boundary (`lead`), and room for the last group's 16-byte loads;
// a multiple of 4 elements, so that every row starts 16-byte aligned.
__host__ __device__ inline int across_width(int k) {
  return across_w + (k + 3 + group - 1) / group * group + 4;
}
// A staged tile's elements, across and down.
__host__ __device__ inline int across_stage(int k) { return rows_across * across_width(k); }
__host__ __device__ inline int down_stage(int k) { return (down_h + k - 1 + group) * down_cols; }

template <class T> struct alignas(16) vec16 { T v[16 / sizeof(T)]; };

// acc[j] += tap(t0 + t) v[t + j] for the group's taps t, all 8 unless `checked`: then those from
// `from` to before `to` (the first group of a line that starts `lead` values early, the last
// group, short of 8).
template <class T, int N, bool checked>
__device__ __forceinline__ void taps_of_group(T (&acc)[N], const T* v, int t0, int from, int to) {
#pragma unroll
  for (int t = 0; t < group; ++t) {
    if (checked && t >= to) break;
    if (checked && t < from) continue;
    const T w = tap<T>(t0 + t);
#pragma unroll
    for (int j = 0; j < N; ++j) acc[j] += w * v[t + j];
  }
}

// acc[j] += tap(first_tap + t) line[(lead + t + j) * stride] for t < k: the groups of 8 taps in
// order, over the N + 7 values a group reaches, held in registers. Between groups the last N - 1
// values (those the next group reaches too) move down and the 8 new ones are read (in loads of W
// values, 16 bytes, where W > 1: then the values are one row, stride 1), so each value is read
// once from shared memory. `lead` (under W) lets a line start at a 16-byte boundary though its
// first tap's value does not: the first group skips that many places.
template <class T, int N, int W>
__device__ __forceinline__ void filter_line(T (&acc)[N], const T* line, int k, int stride,
                                            int first_tap, int lead = 0) {
  constexpr int kept = N - 1 + (W > 1);  // across: the X values of 16-byte loads, one extra
  T v[kept + group];
  const auto load = [&](int from, int to, int count) {
    if constexpr (W > 1) {
#pragma unroll
      for (int q = 0; q < count / W; ++q)
        *reinterpret_cast<vec16<T>*>(v + to + q * W) =
            *reinterpret_cast<const vec16<T>*>(line + from + q * W);
    } else {
#pragma unroll
      for (int q = 0; q < count; ++q) v[to + q] = line[(from + q) * stride];
    }
  };
  load(0, 0, kept + group);
  const int places = lead + k, whole = places / group * group;
  for (int t0 = 0;; t0 += group) {
    if (t0 < whole && (t0 || !lead))
      taps_of_group<T, N, false>(acc, v, first_tap + t0 - lead, 0, group);
    else
      taps_of_group<T, N, true>(acc, v, first_tap + t0 - lead, t0 ? 0 : lead, places - t0);
    if (t0 + group > places - 1) break;
#pragma unroll
    for (int q = 0; q < kept; ++q) v[q] = v[q + group];
    load(t0 + group + kept, kept, group);
  }
}

// A block's run of `count` tiles down the image, tile j's rows from first_y + j * tile_rows,
// through a ring of `Stages` stages in shared memory (each `stage` elements): stage_tile(j, s)
// puts tile j's input in s (its copies in flight, or stored for an edge tile), filter(j, s)
// filters it. The copies of tiles j + 1 .. j + Stages - 1 are in flight while tile j is
// filtered; one stage (c13) copies, waits, then filters.
template <class T, int Stages, class Stage, class Filter>
__device__ __forceinline__ void run_of_tiles(int count, int stage, Stage&& stage_tile,
                                             Filter&& filter) {
  extern __shared__ __align__(16) unsigned char raw[];
  T* ring = reinterpret_cast<T*>(raw);
#pragma unroll
  for (int j = 0; j < Stages - 1; ++j) {
    if (j < count) stage_tile(j, ring + j * stage);
    commit_copies();  // a group for each tile, an empty one past the run: the count stays right
  }
  for (int j = 0; j < count; ++j) {
    const int ahead = j + Stages - 1;
    if (ahead < count) stage_tile(ahead, ring + (ahead % Stages) * stage);
    commit_copies();
    wait_copies<Stages - 1>();  // tile j's copies done (this thread's)
    __syncthreads();            // and every thread's, and the edge tiles' stores
    filter(j, ring + (j % Stages) * stage);
    __syncthreads();  // tile j's stage read by all before tile j + Stages is copied into it
  }
}

template <class T, int Stages>
__global__ void __launch_bounds__(line_threads, sizeof(T) == 4 ? 5 : 1) across(image<T> f, planes z, int per_block) {
  to_plane(f, z);
  const int k = f.kw, r = k / 2, width = across_width(k), total = across_stage(k);
  const int first_y = int(blockIdx.y) * rows_across * per_block, x0 = int(blockIdx.x) * across_w;
  const int count = ::min(per_block, (f.rows - first_y + rows_across - 1) / rows_across);
  // A row's stage starts `lead` places before its first tap's value, at x0 - r - lead, a
  // multiple of W (16 bytes): where the image's rows are 16-byte aligned too, a tile inside the
  // image is staged in 16-byte copies, a quarter of the copies (f32) that one a value takes.
  constexpr int W = 16 / int(sizeof(T));
  const int lead = (r + W - 1) / W * W - r, left = x0 - r - lead, halo = lead + across_w + k - 1;
  const bool rows_aligned =
      f.ld_in % W == 0 && reinterpret_cast<std::uintptr_t>(f.in) % 16 == 0;
  // Element (i, j) of a tile's stage is input (y0 + i, left + j); before the lead and past the
  // halo, zeros (never multiplied by a tap).
  const auto stage_tile = [&](int j, T* s) {
    const int y0 = first_y + j * rows_across;
    const bool inside = y0 + rows_across <= f.rows && left >= 0 && left + width <= f.cols;
    if (inside) {  // every copy in flight at once, no register on the way
      const T* first = f.in + std::size_t(y0) * f.ld_in + left;
      if (rows_aligned) {
        const int vectors = width / W;
        tile_walk at(int(threadIdx.x), vectors, line_threads);
        for (int e = int(threadIdx.x); e < rows_across * vectors; e += line_threads, at.step())
          copy_async_inside<16>(s + at.row * width + at.col * W,
                                first + std::size_t(at.row) * f.ld_in + at.col * W);
        return;
      }
      tile_walk at(int(threadIdx.x), width, line_threads);
      for (int e = int(threadIdx.x); e < total; e += line_threads, at.step())
        copy_async_inside<sizeof(T)>(s + e, first + std::size_t(at.row) * f.ld_in + at.col);
      return;
    }
    // On the image's edge each value is copied by cp.async too, from where the mode puts it;
    // the constant, and zeros past the image's rows, before the lead and past the halo, stored
    tile_walk at(int(threadIdx.x), width, line_threads);
    for (int e = int(threadIdx.x); e < total; e += line_threads, at.step()) {
      const int y = y0 + at.row, x = left + at.col;
      const std::int64_t c = x >= 0 && x < f.cols ? x : boundary_index(x, f.cols, f.mode);
      if (y >= f.rows || at.col < lead || at.col >= halo) s[e] = T(0);
      else if (c < 0) s[e] = f.cval;
      else copy_async<sizeof(T)>(s + e, f.in + std::size_t(y) * f.ld_in + c, true);
    }
  };
  const auto filter = [&](int j, const T* s) {
    const int row = int(threadIdx.x) / (across_w / X), c = int(threadIdx.x) % (across_w / X);
    const T* line = s + row * width + c * X;
    T acc[X] = {};
    filter_line<T, X, W>(acc, line, k, 1, 0, lead);
    const int y = first_y + j * rows_across + row, x = x0 + c * X;
    if (y >= f.rows) return;
    T* out = f.out + std::size_t(y) * f.ld_out + x;
    // The X outputs in 16-byte stores where they are aligned (f32: one; f64: two)
    if (x + X <= f.cols && reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
      constexpr int W = 16 / int(sizeof(T));
#pragma unroll
      for (int q = 0; q < X / W; ++q)
        *reinterpret_cast<vec16<T>*>(out + q * W) = *reinterpret_cast<const vec16<T>*>(acc + q * W);
      return;
    }
#pragma unroll
    for (int q = 0; q < X; ++q)
      if (x + q < f.cols) out[q] = acc[q];
  };
  run_of_tiles<T, Stages>(count, total, stage_tile, filter);
}

template <class T, int Stages>
__global__ void __launch_bounds__(line_threads) down(image<T> f, planes z, int per_block) {
  to_plane(f, z);
  const int k = f.kh, r = k / 2, h = down_h + k - 1;
  const int first_y = int(blockIdx.y) * down_h * per_block, x0 = int(blockIdx.x) * down_cols;
  const int count = ::min(per_block, (f.rows - first_y + down_h - 1) / down_h);
  const int tx = int(threadIdx.x) % down_cols, ty = int(threadIdx.x) / down_cols;
  const int x = x0 + tx;
  constexpr int step = line_threads / down_cols, W = 16 / int(sizeof(T));
  const bool rows_aligned =
      f.ld_in % W == 0 && reinterpret_cast<std::uintptr_t>(f.in) % 16 == 0;
  // Row i of a tile's stage is input row y0 - r + i; a column past the image's, and the group's
  // rows past the halo (never multiplied by a tap), zeros.
  const auto stage_tile = [&](int j, T* s) {
    const int y0 = first_y + j * down_h;
    const bool inside = y0 - r >= 0 && y0 - r + h + group <= f.rows && x0 + down_cols <= f.cols;
    if (inside && rows_aligned) {  // 16-byte copies, a row's 32 columns in 128 / 16 of them
      constexpr int vectors = down_cols / W;
      const T* first = f.in + std::size_t(y0 - r) * f.ld_in + x0;
      for (int e = int(threadIdx.x); e < (h + group) * vectors; e += line_threads) {
        const int i = e / vectors, q = e % vectors * W;
        copy_async_inside<16>(s + i * down_cols + q, first + std::size_t(i) * f.ld_in + q);
      }
      return;
    }
    if (inside) {  // every copy in flight at once, no register on the way
      const T* first = f.in + std::size_t(y0 - r) * f.ld_in + x;
      for (int i = ty; i < h + group; i += step)
        copy_async_inside<sizeof(T)>(s + i * down_cols + tx, first + std::size_t(i) * f.ld_in);
      return;
    }
    // On the image's edge each value is copied by cp.async too, from where the mode puts it;
    // the constant, and zeros past the image's columns and the halo, stored
    for (int i = ty; i < h + group; i += step) {
      const int y = y0 - r + i;
      const std::int64_t at = y >= 0 && y < f.rows ? y : boundary_index(y, f.rows, f.mode);
      T* to = s + i * down_cols + tx;
      if (i >= h || x >= f.cols) *to = T(0);
      else if (at < 0) *to = f.cval;
      else copy_async<sizeof(T)>(to, f.in + std::size_t(at) * f.ld_in + x, true);
    }
  };
  const auto filter = [&](int j, const T* s) {
    const T* col = s + ty * Y * down_cols + tx;
    T acc[Y] = {};
    filter_line<T, Y, 1>(acc, col, k, down_cols, 0);
    if (x >= f.cols) return;
#pragma unroll
    for (int q = 0; q < Y; ++q) {
      const int y = first_y + j * down_h + ty * Y + q;
      if (y < f.rows) f.out[std::size_t(y) * f.ld_out + x] = acc[q];
    }
  };
  run_of_tiles<T, Stages>(count, down_stage(k), stage_tile, filter);
}

// Tiles a block filters in a run: one where a block a tile fills the GPU less than `waves`
// times over; more where there are tiles enough, up to `most`, so that a block's first copies
// and its last tile's filtering, which nothing overlaps, are a small part of its time.
inline int tiles_per_block(std::size_t tiles, int most, int waves = 8) {
  const std::size_t blocks = std::size_t(sm_count()) * std::size_t(waves);
  return int(std::clamp<std::size_t>(tiles / std::max<std::size_t>(blocks, 1), 1, most));
}

// `Across` and `Down` stages in each block's ring (1: c13; 2 or more: c14), `Most` tiles in a
// block's run.
template <int Across, int Down, int Most, class T>
void launch_line(image<T> f, const T* mask, const planes& z, std::size_t count, cudaStream_t s) {
  const int k = f.kh == 1 ? f.kw : f.kh;
  const mask_in_bank<T> bank(mask, k, s);
  const bool across_x = f.kh == 1;
  const int tile_rows = across_x ? rows_across : down_h,
            tile_cols = across_x ? across_w : down_cols;
  const std::size_t tiles_y = std::size_t((f.rows + tile_rows - 1) / tile_rows);
  const std::size_t tiles_x = std::size_t((f.cols + tile_cols - 1) / tile_cols);
  const int per_block = Most == 1 ? 1 : tiles_per_block(tiles_y * tiles_x * count, Most);
  const std::size_t bytes = across_x ? std::size_t(Across) * across_stage(k) * sizeof(T)
                                     : std::size_t(Down) * down_stage(k) * sizeof(T);
  const auto kernel = across_x ? across<T, Across> : down<T, Down>;
  allow_shared(kernel, bytes);
  // The grid's z reaches 65535: a larger stack in runs of that many planes
  for (std::size_t done = 0; done < count; done += 65535) {
    const unsigned here = unsigned(std::min<std::size_t>(count - done, 65535));
    const dim3 grid(unsigned(tiles_x), unsigned((tiles_y + per_block - 1) / per_block), here);
    kernel<<<grid, line_threads, bytes, s>>>(f, z, per_block);
    PPLAB_CUDA_LAUNCHED();
    f.in += here * z.in, f.out += here * z.out;
  }
}

// One row or one column of up to max_line_taps taps (a 1 x 1 mask runs across), on a stack of
// images too.
inline bool line_can_run(const convolution_problem& p) {
  return float_stack(p) && (p.kh == 1 || p.kw == 1) && p.kh <= max_line_taps &&
         p.kw <= max_line_taps && p.cols < (std::size_t(1) << 31) &&
         ceil_div(p.rows, p.kh == 1 ? rows_across : down_h) < 65536;
}

template <int Across, int Down, int Most, class T> void run_line(const convolution_call& c) {
  const image<T> f = image_of<T>(c);
  if (f.rows == 0 || f.cols == 0) return;
  launch_line<Across, Down, Most>(f, static_cast<const T*>(c.mask), planes{c.plane_in, c.plane_out},
                                  std::max<std::size_t>(c.p.planes, 1),
                                  static_cast<cudaStream_t>(c.stream));
}
template <int Across, int Down, int Most> void run_line(const convolution_call& c) {
  if (c.p.type == dtype::f32) run_line<Across, Down, Most, float>(c);
  else run_line<Across, Down, Most, double>(c);
}

}  // namespace
}  // namespace pplab::detail::convolution_cuda
