// convolution/cuda/c06_register_strip: past the notes, register blocking. A block of 32 x 8 threads
// owns a tile of outputs 64 rows tall, each thread a vertical strip of S = 8 of them in one column
// (a 32 x 64 tile), or in two neighbouring columns at f32 5 x 5 and 7 x 7 (a 64 x 64 tile, below).
// The tile's input with its halo goes to shared memory as in c04; then each thread walks the
// S + K - 1 input rows its strip needs, once: it loads the row's taps from shared memory into
// registers and adds them into every output of the strip that the row reaches (up to K of the S
// sums, each with its own mask row). Shared loads per output fall from K x K (c04) to
// K (S + K - 1) / S, and with K a compile-time constant every loop unrolls, the mask's offsets are
// immediates into the constant bank, and the sums stay in registers. The tile's loads are all in
// flight before the first is stored (tile_staging.cuh), or, from f32 5 x 5 and f64 7 x 7 up, the
// copy engine copies the tile (tile_copy_engine.cuh). Square masks of 3 to 15, and f32 ones to 31
// (past 21 x 21 the mask's rows in chunks of 8, below); other masks run c04.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 8192x8192 mask 7x7 nearest
// in 0.176 ms, 3048 GB/s (72.5% of copy bandwidth), 8.43x NPP's speed; f32 8192x8192 mask 5x5
// nearest in 0.154 ms, 3478 GB/s (82.7% of copy bandwidth), 1.64x NPP's speed.
#include "convolution/cuda/constant_mask.cuh"
#include "convolution/cuda/tile_copy_engine.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int tile = 32, block_rows = 8, S = 8;
// Outputs across a thread: two at f32 5 x 5 and 7 x 7, one elsewhere. Two neighbouring outputs
// share K - 1 of their K taps in a row, so a thread loads K + 1 values a row for 2K multiply-adds
// (in 8-byte shared loads) where one column took K for K, and stores its outputs in pairs. The
// memory-bound masks were held by their instructions as much as by the bytes (about 62% of the
// scheduler cycles issuing at 5 x 5); with the tile copied by the engine the pairs still fit the
// 40 registers that keep six blocks an SM. On an H200, 8192 x 8192, in one lab run against one
// column (bench/results/h200-2026-11-28-convolution-c06-two-columns-variants.*): 5 x 5 0.163 ->
// 0.153 ms (77.9% -> 82.8% of the copy ceiling, 1.63x NPP), 7 x 7 0.190 (strips of 16 in one
// column) -> 0.177 ms; 3 x 3 (pairs, the tile by the engine) 0.144 -> 0.150 ms, so it keeps one
// column and the threads' staging. (Before the engine, pairs took 48 registers for the threads'
// staging and ran slower: ...-c06-two-columns-not-kept.json in git's history.)
constexpr int columns(bool f32, int k) { return f32 && (k == 5 || k == 7) ? 2 : 1; }
template <class T, int K> constexpr int C = columns(sizeof(T) == 4, K);

// The staged tile: a block's outputs with the mask's halo, h rows of w columns.
template <int K> constexpr int tile_h = (block_rows * S) + K - 1;
template <class T, int K> constexpr int tile_w = staged_width((C<T, K> * tile), K / 2);
template <int K, class T> constexpr std::size_t strip_shared() {
  return std::size_t(tile_h<K>) * tile_w<T, K> * sizeof(T);
}

// The tile by the copy engine (tile_copy_engine.cuh) at f32 from 5 x 5 and f64 from 7 x 7, where
// it measured faster than the threads' staging; at f32 3 x 3 (87% of the copy ceiling with the
// threads) and f64 5 x 5 it measured slower. On an H200, 8192 x 8192, Nsight Compute with the
// clocks left free, threads -> engine: f32 5 x 5 170.5 -> 160.8 us, 7 x 7 212.0 -> 195.3, 9 x 9
// 304.5 -> 288.4, 15 x 15 777.7 -> 761.3; f64 5 x 5 277.5 -> 290.2, 7 x 7 348.8 -> 315.0
// (bench/results/h200-2026-11-27-convolution-copy-engine-kernel-times.txt).
template <class T, int K> constexpr bool by_engine = K >= (sizeof(T) == 4 ? 5 : 7);

// Adds mask rows i0 .. i0 + R - 1 (those below K) into a strip's S x C sums: each of the S + R - 1
// input rows they reach (those inside the tile's S + K - 1) loaded once, its K + C - 1 values
// added into every sum the row reaches. `in`: the strip's first input row at this thread's first
// tap, rows w apart. With R = K (i0 = 0) the whole mask, every index known at compile time. With
// C = 2 (f32) a row is read in 8-byte pieces from the even column at or before the first tap
// (`skip` values early; the tile's rows start 16-byte aligned).
template <int K, int C> constexpr int skip = C == 2 ? (lead(K / 2) - K / 2) % 2 : 0;
template <class T, int K, int C, int R>
__device__ __forceinline__ void add_rows(const T* in, int w, int i0, T (&acc)[S][C]) {
  constexpr int first = skip<K, C>, n = C == 2 ? (first + K + 2) / 2 * 2 : K;  // values a row
  in -= first;
#pragma unroll
  for (int q = 0; q < S + R - 1; ++q) {  // input row i0 + q of the strip (halo included)
    if (R < K && i0 + q >= S + K - 1) break;
    T v[n];
    const T* row = in + (i0 + q) * w;
    if constexpr (C == 2) {
      static_assert(sizeof(T) == 4, "pairs of f32 columns");
#pragma unroll
      for (int j = 0; j < n; j += 2) {
        const float2 two = *reinterpret_cast<const float2*>(row + j);
        v[j] = two.x, v[j + 1] = two.y;
      }
    } else {
#pragma unroll
      for (int j = 0; j < n; ++j) v[j] = row[j];
    }
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const int i = q - s;  // the mask row that input row q is for output s
      if (i >= 0 && i < R && (R == K || i0 + i < K)) {
#pragma unroll
        for (int j = 0; j < K; ++j)
#pragma unroll
          for (int c = 0; c < C; ++c) acc[s][c] += tap<T>((i0 + i) * K + j) * v[first + j + c];
      }
    }
  }
}

// A thread's S x C outputs from row y, column x into the image's output (those inside it): with
// C = 2 in 8-byte stores where the pair lies inside and the rows allow it.
template <class T, int C>
__device__ __forceinline__ void store_columns(const image<T>& f, const T (&acc)[S][C], int y,
                                              int x) {
  T* o = f.out + std::size_t(y) * f.ld_out + std::size_t(x);
  const int left = f.rows - y;
  [[maybe_unused]] const bool pairs =
      C == 2 && x + 1 < f.cols && f.ld_out % 2 == 0 && reinterpret_cast<std::uintptr_t>(o) % 8 == 0;
#pragma unroll
  for (int s = 0; s < S; ++s, o += f.ld_out) {
    if (s >= left) break;
    if constexpr (C == 2) {
      if (pairs) *reinterpret_cast<float2*>(o) = make_float2(acc[s][0], acc[s][1]);
      else {
        o[0] = acc[s][0];
        if (x + 1 < f.cols) o[1] = acc[s][1];
      }
    } else {
      o[0] = acc[s][0];
    }
  }
}

// f32 masks past 15 x 15, measured on the H200 (whole calls on 8192 x 8192, three builds of each
// K in one call: bench/results/h200-2026-11-27-convolution-c06-to-31.txt): ptxas unrolls the whole
// strip to 21 x 21 (17 x 17 1.15 ms, 21 x 21 1.78; in chunks 2.3 and 2.8); from 23 x 23 it kept
// the loop over rows and read the taps by run-time index (31 x 31 10.6 ms), so the mask's rows go
// in chunks of 8 (31 x 31 4.5 ms), at two blocks an SM where that measured faster (23 x 23 2.28
// against 2.59-2.73, 29 x 29 4.46 against 5.26-5.38, though both spill; 31 x 31 spills 1.2 KB
// there and took 9.6 ms).
template <int K> constexpr bool by_chunks = K > 21;
template <class T, int K> constexpr bool two_blocks = sizeof(T) == 4 && (K == 23 || K == 29);

template <class T, int K>
__device__ __forceinline__ void filter_strip(const image<T>& f, const tile_map& tiles) {
  extern __shared__ __align__(128) unsigned char raw[];
  T* in = reinterpret_cast<T*>(raw);
  constexpr int C = convolution_cuda::C<T, K>, r = K / 2, h = tile_h<K>, w = tile_w<T, K>;
  const int y0 = int(blockIdx.y) * block_rows * S, x0 = int(blockIdx.x) * tile * C;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y), tid = ty * tile + tx;
  // A tile of two columns a thread that the threads stage (on the image's edges) goes in two
  // halves, which keeps the 40 registers.
  stage_tile_whole<T, h, w, tile * block_rows, by_engine<T, K>, C == 2>(f, tiles, in, y0 - r,
                                                                        x0 - lead(r), tid);
  const int x = x0 + C * tx;
  if (x >= f.cols) return;
  const int first = ty * S;  // the strip's first row in the tile
  T acc[S][C];
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int c = 0; c < C; ++c) acc[s][c] = 0;
  const T* const strip_in = in + first * w + C * tx + lead(r) - r;
  if constexpr (!by_chunks<K>) {
    add_rows<T, K, C, K>(strip_in, w, 0, acc);
  } else {  // mask rows in chunks of 8, each chunk's S + 7 input rows loaded once
#pragma unroll 1
    for (int i0 = 0; i0 < K; i0 += 8) add_rows<T, K, C, 8>(strip_in, w, i0, acc);
  }
  store_columns(f, acc, y0 + first, x);
}

// The f32 masks up to 9 x 9 are bound by memory and want every warp an SM can hold: six blocks,
// 40 registers a thread (left to itself the compiler takes 44 since the 16-byte staging, and an SM
// five blocks). The others keep the registers the compiler picks, hence two kernels: one kernel
// asking the others for one block an SM (`__launch_bounds__(256, 1)`) is not the same as asking
// nothing: ptxas then gave f32 15 x 15 220 registers against 102, and f64 15 x 15 244 against 182.
template <class T, int K> constexpr bool six_blocks = sizeof(T) == 4 && K <= 9;
template <class T, int K>
__global__ void __launch_bounds__(tile* block_rows)
    strip(image<T> f, const __grid_constant__ tile_map tiles) {
  filter_strip<T, K>(f, tiles);
}
template <class T, int K>
__global__ void __launch_bounds__(tile* block_rows, 6)
    strip_six_blocks(image<T> f, const __grid_constant__ tile_map tiles) {
  filter_strip<T, K>(f, tiles);
}

template <class T, int K>
__global__ void __launch_bounds__(tile* block_rows, 2)
    strip_two_blocks(image<T> f, const __grid_constant__ tile_map tiles) {
  filter_strip<T, K>(f, tiles);
}

template <class T, int K> void launch(const image<T>& f, cudaStream_t s) {
  auto kernel = [] {  // only the one launched is compiled
    if constexpr (six_blocks<T, K>) return strip_six_blocks<T, K>;
    else if constexpr (two_blocks<T, K>) return strip_two_blocks<T, K>;
    else return strip<T, K>;
  }();
  kernel<<<tiles_over(f.rows, f.cols, block_rows * S, tile * C<T, K>), dim3(tile, block_rows),
           strip_shared<K, T>(), s>>>(
      f, tile_map_for<T, tile_h<K>, tile_w<T, K>, by_engine<T, K>>(f, kernel));
  PPLAB_CUDA_LAUNCHED();
}

struct rung {
  template <class T> static void run(const image<T>& f, const T* mask, void*, cudaStream_t s) {
    const mask_in_bank<T> bank(mask, f.kh * f.kw, s);
    const auto go = [&]<int K>() { launch<T, K>(f, s); };
    if constexpr (sizeof(T) == 4) with_odd_side<3, 31>(f.kh, go);
    else with_odd_side<3, 15>(f.kh, go);  // f64 past 15 x 15 runs c04
  }
};

std::size_t tile_cols(const convolution_problem& p) {
  return std::size_t(tile * columns(p.type == dtype::f32, int(p.kh)));
}
bool can_run(const convolution_problem& p) {
  return p.kh == p.kw && p.kh >= 3 && p.kh <= (p.type == dtype::f32 ? 31 : 15) &&
         fits(p, block_rows * S);
}
void run(const convolution_call& c) { dispatch<rung>(c); }

}  // namespace

extern const convolution_rung c06_register_strip{
    .info = {.step = 6,
             .summary = "each thread a strip of 8 outputs (two columns of 8 at f32 5 x 5 and 7 x "
                        "7), each input row's taps loaded once into registers"},
    .can_run = can_run,
    .run = run,
    .explain = [](const convolution_problem& p) { return tile_intensity(p, tile_cols(p), 64); },
};

}  // namespace pplab::detail::convolution_cuda
