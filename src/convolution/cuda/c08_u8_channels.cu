// convolution/cuda/c08_u8_channels: a u8 image of 1, 3 or 4 interleaved channels (gray, RGB,
// RGBA), each channel filtered on its own in f32, the output f32 or rounded and saturated to u8.
// c06's register strips over all the channels at once: a block of 32 x 8 threads owns a 32 x 64
// tile of pixels, each thread a strip of S = 8 pixels down one column, all channels. The tile's
// bytes with their halo are converted to f32 and kept interleaved in shared memory, in the order
// they lie in the image, so a byte's place in the tile needs no division by the channel count: a
// thread's taps of channel c are floats CH apart (3 apart for RGB, so 32 threads' reads fall in 32
// banks). Each warp stages whole tile rows: inside the image by 4-byte words (stage_words), a row
// starting at the word that holds its first byte; on the edges byte by byte (stage_bytes). Square
// masks of 3, 5 and 7 are compile-time constants (their loops unroll and the taps sit in
// registers); other masks loop at run time.
//
// The first version split the bytes into one plane per channel, each byte's row, pixel and
// channel divided out of its index, and converted with I2F and F2I (an eighth of the FMA pipe's
// rate); RGB 4096 x 4096 with 5 x 5 took 0.164 ms on an H200. Interleaved and staged a byte at a
// time it took 0.112 ms, and by words 0.104 ms (docs/convolution.md, "u8 images";
// bench/results/h200-2026-11-27-convolution-c08-word-staging.txt).
#include "convolution/cuda/constant_mask.cuh"
#include "convolution/cuda/u8_values.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int tile = 32, block_rows = 8, S = 8, threads = tile * block_rows;

struct interleaved {
  int rows, cols, kh, kw;
  boundary mode;
  float cval;
  const std::uint8_t* in;
  std::size_t ld_in;   // bytes
  void* out;           // f32 or u8
  std::size_t ld_out;  // elements
  bool u8_out;
};

// A tile row's floats: its bytes, and for a mask known at compile time room for the bytes before
// its first in that byte's 4-byte word, rounded up to whole words (stage_words).
constexpr int row_floats(int kw, int ch, bool words) {
  return words ? ((tile + kw - 1) * ch + 3 + 3) / 4 * 4 : (tile + kw - 1) * ch;
}
std::size_t shared_bytes(int kh, int kw, int ch, bool words) {
  return std::size_t(block_rows * S + kh - 1) * std::size_t(row_floats(kw, ch, words)) *
         sizeof(float);
}

// Tile byte (ly, lb) of the tile whose first pixel is (y, x): channel lb % CH of pixel lb / CH,
// outside the image as the mode says.
template <int CH>
__device__ __forceinline__ float edge_byte(const interleaved& f, int y, int x, int ly, int lb) {
  const std::int64_t r = boundary_index(y + ly, f.rows, f.mode),
                     q = boundary_index(x + lb / CH, f.cols, f.mode);
  return r < 0 || q < 0 ? f.cval
                        : to_f32(f.in[std::size_t(r) * f.ld_in + std::size_t(q) * CH + lb % CH]);
}

// The h x wb bytes of a tile (its first pixel at (y, x)) into shared memory as f32, rows `stride`
// floats apart, for a mask known at compile time. Warp row ty stages tile rows ty, ty + 8, ...;
// lane tx of it bytes tx, tx + 32, ... of each: a row's loads and stores then sit at fixed offsets
// from one address (an immediate in the instruction), so a byte costs its load, its conversion and
// its store, and a row one 64-bit add. The loads are written before the stores, all in flight at
// once where the registers allow (ptxas interleaves the two at c08's 40 registers).
template <int CH, int h, int wb, int stride>
__device__ __forceinline__ void stage_bytes(const interleaved& f, float* tile_in, int y, int x,
                                            bool inside) {
  constexpr int groups = (wb + tile - 1) / tile, steps = (h + block_rows - 1) / block_rows;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  // Only the last group of bytes and the last step of rows can fall outside the tile.
  const bool last_group = tx + (groups - 1) * tile < wb,
             last_step = ty + (steps - 1) * block_rows < h;
  const auto wanted = [&](int i, int g) {
    return (g < groups - 1 || last_group) && (i < steps - 1 || last_step);
  };
  float* to = tile_in + ty * stride + tx;
  if (inside) {
    const std::uint8_t* from = f.in + std::size_t(y + ty) * f.ld_in + std::size_t(x) * CH + tx;
    const std::size_t down = block_rows * f.ld_in;
    std::uint8_t b[steps][groups];
#pragma unroll
    for (int i = 0; i < steps; ++i)
#pragma unroll
      for (int g = 0; g < groups; ++g)
        if (wanted(i, g)) b[i][g] = from[i * down + g * tile];
#pragma unroll
    for (int i = 0; i < steps; ++i)
#pragma unroll
      for (int g = 0; g < groups; ++g)
        if (wanted(i, g)) to[i * block_rows * stride + g * tile] = to_f32(b[i][g]);
  } else {
#pragma unroll
    for (int i = 0; i < steps; ++i)
#pragma unroll
      for (int g = 0; g < groups; ++g)
        if (wanted(i, g))
          to[i * block_rows * stride + g * tile] =
              edge_byte<CH>(f, y, x, ty + i * block_rows, tx + g * tile);
  }
}

// Four bytes as f32, each by one byte permute (the byte under the exponent of 2^23, as to_f32) and
// one subtraction.
__device__ __forceinline__ float4 to_f32x4(std::uint32_t w) {
  const auto one = [w](unsigned k) {
    return __uint_as_float(__byte_perm(w, 0x4B000000u, 0x7540u + k)) - 8388608.0f;
  };
  return make_float4(one(0), one(1), one(2), one(3));
}

// The h rows of a tile inside the image as 4-byte words into shared memory as f32, for a mask known
// at compile time: `from` is the word at or before the tile's first byte in its first row (the
// image's rows a multiple of 4 bytes apart), and a tile row of wb floats takes wb / 4 words. Warp
// row ty stages tile rows ty, ty + 8, ...; lane tx of it words tx, tx + 32, ... of each, at fixed
// offsets from one address; every load is issued before the first store. A word costs one load,
// four permutes, four subtractions and one 16-byte store: against stage_bytes' load, subtraction
// and store for every byte, about half the instructions.
template <int h, int wb>
__device__ __forceinline__ void stage_words(const std::uint32_t* from, std::size_t ld_words,
                                            float* tile_in) {
  constexpr int words = wb / 4, groups = (words + tile - 1) / tile,
                steps = (h + block_rows - 1) / block_rows;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  const bool last_group = tx + (groups - 1) * tile < words,
             last_step = ty + (steps - 1) * block_rows < h;
  const auto wanted = [&](int i, int g) {
    return (g < groups - 1 || last_group) && (i < steps - 1 || last_step);
  };
  from += ty * ld_words + tx;
  float4* to = reinterpret_cast<float4*>(tile_in + ty * wb) + tx;
  const std::size_t down = block_rows * ld_words;
  std::uint32_t w[steps][groups];
#pragma unroll
  for (int i = 0; i < steps; ++i)
#pragma unroll
    for (int g = 0; g < groups; ++g)
      if (wanted(i, g)) w[i][g] = from[i * down + g * tile];
#pragma unroll
  for (int i = 0; i < steps; ++i)
#pragma unroll
    for (int g = 0; g < groups; ++g)
      if (wanted(i, g)) to[i * block_rows * (wb / 4) + g * tile] = to_f32x4(w[i][g]);
}

// K > 0: a K x K mask known at compile time; K == 0: kh x kw from the image.
template <int CH, int K> __global__ void __launch_bounds__(threads) channels(interleaved f) {
  // [h][wb]: the tile's bytes in their order, as f32, from `shift` floats into each row
  extern __shared__ __align__(16) float tile_in[];
  const int kh = K ? K : f.kh, kw = K ? K : f.kw, rh = kh / 2, rw = kw / 2;
  const int h = block_rows * S + kh - 1, wb = row_floats(kw, CH, K > 0);
  const int y0 = int(blockIdx.y) * block_rows * S, x0 = int(blockIdx.x) * tile;
  const int tid = int(threadIdx.y) * tile + int(threadIdx.x);
  const int y = y0 - rh, x = x0 - rw;
  const bool inside = y >= 0 && y + h <= f.rows && x >= 0 && x + (tile + kw - 1) <= f.cols;
  int shift = 0;  // the tile's first byte's place in its word, where the tile is staged by words
  if constexpr (K > 0) {
    // By words where the rows are a multiple of 4 bytes apart and the words stay inside the row.
    const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(f.in) + std::size_t(x) * CH;
    const int lead = int(first % 4);
    if (inside && reinterpret_cast<std::uintptr_t>(f.in) % 4 == 0 && f.ld_in % 4 == 0 &&
        std::size_t(x) * CH - lead + wb <= std::size_t(f.cols) * CH) {
      shift = lead;
      stage_words<block_rows * S + K - 1, row_floats(K, CH, true)>(
          reinterpret_cast<const std::uint32_t*>(f.in + std::size_t(y) * f.ld_in +
                                                 std::size_t(x) * CH - lead),
          f.ld_in / 4, tile_in);
    } else {
      stage_bytes<CH, block_rows * S + K - 1, (tile + K - 1) * CH, row_floats(K, CH, true)>(
          f, tile_in, y, x, inside);
    }
  } else {
    // The byte's row and place stepped from the thread's first (tile_walk).
    tile_walk at(tid, wb, threads);
    for (int k = tid; k < h * wb; k += threads, at.step())
      tile_in[k] = inside ? to_f32(f.in[std::size_t(y + at.row) * f.ld_in + std::size_t(x) * CH +
                                        std::size_t(at.col)])
                          : edge_byte<CH>(f, y, x, at.row, at.col);
  }
  __syncthreads();
  const int tx = int(threadIdx.x), col = x0 + tx;
  if (col >= f.cols) return;
  const int strip = int(threadIdx.y) * S;
  float acc[S][CH];
#pragma unroll
  for (int s = 0; s < S; ++s)
#pragma unroll
    for (int c = 0; c < CH; ++c) acc[s][c] = 0;
  if constexpr (K > 0) {
#pragma unroll
    for (int q = 0; q < S + K - 1; ++q)
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        float v[K];
        const float* row = tile_in + (strip + q) * wb + shift + tx * CH + c;
#pragma unroll
        for (int j = 0; j < K; ++j) v[j] = row[j * CH];
#pragma unroll
        for (int s = 0; s < S; ++s) {
          const int i = q - s;
          if (i >= 0 && i < K) {
#pragma unroll
            for (int j = 0; j < K; ++j) acc[s][c] += tap<float>(i * K + j) * v[j];
          }
        }
      }
  } else {
    for (int q = 0; q < S + kh - 1; ++q)
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        const float* row = tile_in + (strip + q) * wb + tx * CH + c;
#pragma unroll
        for (int s = 0; s < S; ++s) {
          const int i = q - s;
          if (i >= 0 && i < kh)
            for (int j = 0; j < kw; ++j) acc[s][c] += tap<float>(i * kw + j) * row[j * CH];
        }
      }
  }
  const int left = f.rows - (y0 + strip);
  const std::size_t at = std::size_t(y0 + strip) * f.ld_out + std::size_t(col) * CH;
  if (f.u8_out) {
    std::uint8_t* o = static_cast<std::uint8_t*>(f.out) + at;
#pragma unroll
    for (int s = 0; s < S; ++s, o += f.ld_out)
      if (s < left)
#pragma unroll
        for (int c = 0; c < CH; ++c) o[c] = to_u8(acc[s][c]);
  } else {
    float* o = static_cast<float*>(f.out) + at;
#pragma unroll
    for (int s = 0; s < S; ++s, o += f.ld_out)
      if (s < left)
#pragma unroll
        for (int c = 0; c < CH; ++c) o[c] = acc[s][c];
  }
}

template <int CH, int K> void launch(const interleaved& f, cudaStream_t s) {
  const std::size_t shared = shared_bytes(f.kh, f.kw, CH, K > 0);
  auto kernel = channels<CH, K>;
  if (shared > 48 * 1024)
    PPLAB_CUDA(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  kernel<<<tiles_over(f.rows, f.cols, block_rows * S, tile), dim3(tile, block_rows), shared, s>>>(
      f);
  PPLAB_CUDA_LAUNCHED();
}

template <int CH> void launch_channels(const interleaved& f, cudaStream_t s) {
  if (f.kh == f.kw && f.kh == 3) return launch<CH, 3>(f, s);
  if (f.kh == f.kw && f.kh == 5) return launch<CH, 5>(f, s);
  if (f.kh == f.kw && f.kh == 7) return launch<CH, 7>(f, s);
  launch<CH, 0>(f, s);
}

// A tile of the largest mask (31 x 31) over 4 channels takes 94 x 62 x 4 floats, 91 KiB of
// shared memory: within what one block may have on the GPUs the build targets (227 KiB on Hopper).
bool can_run(const convolution_problem& p) {
  return u8_image(p) && p.cols < (std::size_t(1) << 28) && ceil_div(p.rows, block_rows * S) < 65536;
}

void run(const convolution_call& c) {
  const convolution_problem& p = c.p;
  if (p.rows == 0 || p.cols == 0) return;
  const auto s = static_cast<cudaStream_t>(c.stream);
  const mask_in_bank<float> bank(static_cast<const float*>(c.mask), int(p.kh * p.kw), s);
  const interleaved f{int(p.rows),
                      int(p.cols),
                      int(p.kh),
                      int(p.kw),
                      p.mode,
                      float(p.cval),
                      static_cast<const std::uint8_t*>(c.in),
                      c.ld_in,
                      c.out,
                      c.ld_out,
                      p.u8_out};
  switch (p.channels) {
  case 1:
    return launch_channels<1>(f, s);
  case 3:
    return launch_channels<3>(f, s);
  default:
    return launch_channels<4>(f, s);
  }
}

}  // namespace

extern const convolution_rung c08_u8_channels{
    .info = {.step = 8,
             .summary = "a u8 image's channels: c06's strips over all channels, the bytes kept "
                        "interleaved in shared memory as f32"},
    .can_run = can_run,
    .run = run,
    .explain = [](const convolution_problem& p) { return tile_intensity(p, 32, 64); },
};

}  // namespace pplab::detail::convolution_cuda
