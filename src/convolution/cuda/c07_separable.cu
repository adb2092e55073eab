// convolution/cuda/c07_separable: a mask that is an outer product (mask[i][j] = col[i] row[j])
// in two 1-D passes fused in one kernel. A block of 32 x 8 threads owns a 32 x 64 output tile (8
// outputs per thread, as c06; 32 x 128 for f32 masks from 17 x 17, below): it loads the tile's input with its halo into shared memory (all
// of a thread's loads in flight before its first store), filters each of those rows across x with
// `row` into a second shared array (barrier), and each thread filters its strip of 8 outputs down
// y with `col`, each row of the first pass loaded once into a register and added into every output
// it reaches. kh + kw multiply-adds per output instead of kh x kw, and the image read once from
// memory. K is a template parameter (square masks of 3 to 33), as in c06: with a runtime K the
// first version divided by the tile's runtime width for every element it loaded and indexed the
// constant bank at run time, and ran at 29% of the copy ceiling at 7 x 7, slower than c06.
// The pass across x is register-blocked too: a thread filters X = 4 neighbouring outputs of a row
// from the K + 3 values they share, read in 16-byte loads, and stores the 4 in one. At 15 x 15
// that is 5 shared loads for 4 outputs where one output a thread took 15, and the pass had been
// half the kernel's instructions (150 loads and 150 multiply-adds a thread, bench/results/
// h100-2026-11-27-convolution-c06-c07-sass-ncu.txt). From f32 11 x 11 and f64 5 x 5 up the copy
// engine copies the tile (tile_copy_engine.cuh): 15 x 15 separable went from 61% to 75% of the
// copy ceiling on an H200.
// A stack of images (a 3-D array's last two axes under a 3-D filter: each plane filtered by the
// two axes' outer product) runs in one launch, the planes along the grid's z: a 3-D Gaussian is
// then this and one pass down the first axis, two round trips through memory instead of three
// (H200, bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, its section of 2026-11-30: 64 x
// 1024^2 f32 at 9 x 9 0.185 ms, 68.5% of copy; SciPy's 3-D Gaussian of sigma 1 on 512^3 through
// Python 0.864 ms, 7.96x cupyx, where three passes took 1.33 ms).
#include "convolution/cuda/constant_mask.cuh"
#include "convolution/cuda/tile_copy_engine.cuh"
#include "core/cuda/launch.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int tile = 32, block_rows = 8, X = 4;
// Outputs a thread filters down (S): 8, or for f32 16 from `tall_from` taps on. The pass across also
// filters the tile's K - 1 halo rows: at 33 x 33 a 64-row tile is 96 rows across, 82.5
// multiply-adds an output, where a 128-row tile's 160 take 74 (the kernel is bound by them there:
// 8192^2 f32 at 33 x 33 is 5.5 G multiply-adds, 0.20 ms at the H200's measured fp32 rate).
// Through Python on an H200 (bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, 2026-12-01,
// its third session): gaussian_filter 8192^2 sigma 4 0.364 -> 0.348 ms, sigma 2 (17 x 17) 0.247
// -> 0.238 ms; 3 blocks an SM at 33 x 33 for the 61 KB tile (5 before).
constexpr int tall_from = 17;
template <class T, int K> constexpr int S_of = sizeof(T) == 4 && K >= tall_from ? 16 : 8;

// The tile by the copy engine (tile_copy_engine.cuh) at f32 from 11 x 11 and f64 from 5 x 5,
// where it measured faster than the threads' staging; at f32 9 x 9 and f64 3 x 3 the two were
// level, below them the threads were faster. On an H200, 8192 x 8192, Nsight Compute with the
// clocks left free, threads -> engine: f32 7 x 7 153.3 -> 158.2 us, 9 x 9 160.5 -> 159.8, 11 x 11
// 189.2 -> 161.9, 15 x 15 209.5 -> 172.6; f64 3 x 3 295.5 -> 291.5, 5 x 5 361.6 -> 293.9, 15 x 15
// 465.4 -> 381.1 (bench/results/h200-2026-11-27-convolution-copy-engine-kernel-times.txt).
template <class T, int K> constexpr bool by_engine = K >= (sizeof(T) == 4 ? 11 : 5);

// The staged tile: a block's outputs with the mask's halo, tile_h rows of tile_w columns.
template <class T, int K> constexpr int tile_h = (block_rows * S_of<T, K>) + K - 1;
template <int K> constexpr int tile_w = staged_width(tile, K / 2);
template <class T, int K> constexpr std::size_t shared_bytes() {
  return std::size_t(tile_h<T, K>) * (tile_w<K> + tile) * sizeof(T);
}

// col is taps [0, K) of the constant mask, row taps [K, 2K).
template <class T, int K>
__device__ __forceinline__ void filter_separable(image<T> f, const tile_map& tiles,
                                                 const planes& z) {
  extern __shared__ __align__(128) unsigned char raw[];
  to_plane(f, z);  // a stack's plane: in the map, rows from blockIdx.z x rows on
  constexpr int r = K / 2, h = tile_h<T, K>, w = tile_w<K>, d = lead(r) - r, S = S_of<T, K>;
  T* in = reinterpret_cast<T*>(raw);  // h x w: the input tile with its halo
  T* across = in + h * w;             // h x tile: each of its rows filtered across x
  const int y0 = int(blockIdx.y) * block_rows * S, x0 = int(blockIdx.x) * tile;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y), tid = ty * tile + tx;
  stage_tile_whole<T, h, w, tile * block_rows, by_engine<T, K>>(
      f, tiles, in, y0 - r, x0 - lead(r), tid, tiles.usable ? int(blockIdx.z) * f.rows : 0);
  // The pass across: thread tid takes outputs X c .. X c + X - 1 of rows tid / (tile / X) + k
  // rows_at_once. A quarter warp's 16-byte loads and stores are one row's 128 contiguous bytes
  // (f32): no bank conflict.
  constexpr int per_row = tile / X, rows_at_once = tile * block_rows / per_row;
  constexpr int loaded = (d + X + K - 1 + 3) / 4 * 4;  // its K + 3 values, in whole pieces
  const int c = tid % per_row;
#pragma unroll
  for (int k = 0; k < (h + rows_at_once - 1) / rows_at_once; ++k) {
    const int row = tid / per_row + k * rows_at_once;
    if (row < h) {
      T v[loaded];
      read_vec<loaded>(v, in + row * w + X * c);
      T acc[X];
#pragma unroll
      for (int o = 0; o < X; ++o) {
        acc[o] = 0;
#pragma unroll
        for (int j = 0; j < K; ++j) acc[o] += tap<T>(K + j) * v[d + o + j];
      }
      write_vec<X>(across + row * tile + X * c, acc);
    }
  }
  __syncthreads();  // every row filtered across
  const int x = x0 + tx;
  if (x >= f.cols) return;
  const int first = ty * S;
  T acc[S];
#pragma unroll
  for (int s = 0; s < S; ++s) acc[s] = 0;
#pragma unroll
  for (int q = 0; q < S + K - 1; ++q) {
    const T v = across[(first + q) * tile + tx];
#pragma unroll
    for (int s = 0; s < S; ++s)
      if (q - s >= 0 && q - s < K) acc[s] += tap<T>(q - s) * v;
  }
  store_strip(f, acc, y0 + first, x);
}

// f32 with six blocks an SM, 40 registers a thread, as c06's small masks (left to itself the
// compiler takes 42-44, and an SM five blocks); f64 keeps the registers the compiler picks.
template <class T, int K>
__global__ void __launch_bounds__(tile* block_rows)
    separable(image<T> f, const __grid_constant__ tile_map tiles, planes z) {
  filter_separable<T, K>(f, tiles, z);
}
template <class T, int K>
__global__ void __launch_bounds__(tile* block_rows, 6)
    separable_six_blocks(image<T> f, const __grid_constant__ tile_map tiles, planes z) {
  filter_separable<T, K>(f, tiles, z);
}

// `count` planes, z apart (one image: 1).
template <class T, int K>
void launch(image<T> f, const planes& z, std::size_t count, cudaStream_t s) {
  auto kernel = [] {  // only the one launched is compiled
    // Past 15 x 15 a thread's K + 3 values of the pass across do not fit in 40 registers.
    if constexpr (sizeof(T) == 4 && K <= 15) return separable_six_blocks<T, K>;
    else return separable<T, K>;
  }();
  allow_shared(kernel, shared_bytes<T, K>());
  // The grid's z reaches 65535: a larger stack in runs of that many planes
  for (std::size_t done = 0; done < count; done += 65535) {
    const unsigned here = unsigned(std::min<std::size_t>(count - done, 65535));
    dim3 grid = tiles_over(f.rows, f.cols, block_rows * S_of<T, K>, tile);
    grid.z = here;
    kernel<<<grid, dim3(tile, block_rows), shared_bytes<T, K>(), s>>>(
        f, tile_map_for<T, tile_h<T, K>, tile_w<K>, by_engine<T, K>>(f, kernel, here, z.in), z);
    PPLAB_CUDA_LAUNCHED();
    f.in += here * z.in, f.out += here * z.out;
  }
}

template <class T> void run_typed(const convolution_call& c) {
  const image<T> f = image_of<T>(c);
  if (f.rows == 0 || f.cols == 0) return;
  const auto s = static_cast<cudaStream_t>(c.stream);
  const T* mask = static_cast<const T*>(c.mask);
  const mask_in_bank<T> bank(mask + f.kh * f.kw, f.kh + f.kw, s);  // the factors alone
  const std::size_t count = std::max<std::size_t>(c.p.planes, 1);
  with_odd_side<3, 33>(f.kh, [&]<int K>() {
    launch<T, K>(f, planes{c.plane_in, c.plane_out}, count, s);
  });
}

// Square masks of 3 to 33 (a Gaussian of sigma 2 is 17 x 17, of sigma 4 33 x 33: past 31, the
// API takes outer products alone, and c15 their other sides): f64 at 15 x 15 takes 78 x 80 x 8
// bytes, past the default 48 KiB, and at 33 x 33 96 x 96 x 8. At 33 x 33 (H200, 4096^2 f32) c07
// took 0.090 ms, c15 (its taps a run-time count) 0.159. A stack of such images too.
bool can_run(const convolution_problem& p) {
  return float_stack(p) && p.separable && p.cols < (std::size_t(1) << 31) &&
         ceil_div(p.rows, std::size_t(block_rows * S_of<double, 3>)) < 65536 && p.kh == p.kw && p.kh >= 3 &&
         p.kh <= 33;
}
void run(const convolution_call& c) {
  if (c.p.type == dtype::f32) run_typed<float>(c);
  else run_typed<double>(c);
}

}  // namespace

extern const convolution_rung c07_separable{
    .info =
        {.step = 7,
         .summary =
             "an outer-product mask as two 1-D passes fused in one kernel, through shared memory"},
    .can_run = can_run,
    .run = run,
    .explain = [](const convolution_problem& p) { return tile_intensity(p, 32, 64); },
};

}  // namespace pplab::detail::convolution_cuda
