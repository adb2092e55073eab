// convolution/cuda/c08_u8_channels: a u8 image of 1, 3 or 4 interleaved channels (gray, RGB,
// RGBA), each channel filtered on its own in f32, the output f32 or rounded and saturated to u8.
// c06's register strips over all the channels at once: a block of 32 x 8 threads owns a 32 x 64
// tile of pixels, each thread a strip of S = 8 pixels down one column, all channels. The tile's
// bytes with their halo are loaded in order (consecutive threads, consecutive bytes: the rows'
// interleaved channels read as they lie), converted to f32 and split into one shared-memory plane
// per channel, so that every tap after is a plain f32 read. Square masks of 3, 5 and 7 are
// compile-time constants (their loops unroll and the taps sit in registers); other masks loop at
// run time.
#include "convolution/cuda/constant_mask.cuh"

namespace pplab::detail::gpu_conv {
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

std::size_t shared_bytes(int kh, int kw, int ch) {
  return std::size_t(block_rows * S + kh - 1) * std::size_t(tile + kw - 1) * std::size_t(ch) *
         sizeof(float);
}

// Rounded to nearest (ties to even), saturated to 0..255, NaN as 0 (fmaxf returns the number).
__device__ __forceinline__ std::uint8_t to_u8(float v) {
  return std::uint8_t(__float2uint_rn(fminf(fmaxf(v, 0.0f), 255.0f)));
}

// K > 0: a K x K mask known at compile time; K == 0: kh x kw from the image.
template <int CH, int K> __global__ void __launch_bounds__(threads) channels(interleaved f) {
  extern __shared__ float planes[];  // [CH][h][w]
  const int kh = K ? K : f.kh, kw = K ? K : f.kw, rh = kh / 2, rw = kw / 2;
  const int h = block_rows * S + kh - 1, w = tile + kw - 1;
  const int y0 = int(blockIdx.y) * block_rows * S, x0 = int(blockIdx.x) * tile;
  const int tid = int(threadIdx.y) * tile + int(threadIdx.x);
  // The tile's bytes, row by row: byte b of a tile row is channel b % CH of pixel b / CH.
  const bool inside =
      y0 - rh >= 0 && y0 - rh + h <= f.rows && x0 - rw >= 0 && x0 - rw + w <= f.cols;
  const int bytes = h * w * CH;
  for (int k = tid; k < bytes; k += threads) {
    const int ly = k / (w * CH), rest = k % (w * CH), lx = rest / CH, c = rest % CH;
    const int y = y0 - rh + ly, x = x0 - rw + lx;
    float v;
    if (inside) {
      v = float(f.in[std::size_t(y) * f.ld_in + std::size_t(x) * CH + c]);
    } else {
      const std::int64_t r = boundary_index(y, f.rows, f.mode),
                         q = boundary_index(x, f.cols, f.mode);
      v = r < 0 || q < 0 ? f.cval : float(f.in[std::size_t(r) * f.ld_in + std::size_t(q) * CH + c]);
    }
    planes[(c * h + ly) * w + lx] = v;
  }
  __syncthreads();
  const int tx = int(threadIdx.x), x = x0 + tx;
  if (x >= f.cols) return;
  const int first = int(threadIdx.y) * S;
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
        const float* row = planes + (c * h + first + q) * w + tx;
#pragma unroll
        for (int j = 0; j < K; ++j) v[j] = row[j];
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
        const float* row = planes + (c * h + first + q) * w + tx;
#pragma unroll
        for (int s = 0; s < S; ++s) {
          const int i = q - s;
          if (i >= 0 && i < kh)
            for (int j = 0; j < kw; ++j) acc[s][c] += tap<float>(i * kw + j) * row[j];
        }
      }
  }
#pragma unroll
  for (int s = 0; s < S; ++s) {
    const int y = y0 + first + s;
    if (y >= f.rows) break;
    const std::size_t at = std::size_t(y) * f.ld_out + std::size_t(x) * CH;
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      if (f.u8_out) static_cast<std::uint8_t*>(f.out)[at + c] = to_u8(acc[s][c]);
      else static_cast<float*>(f.out)[at + c] = acc[s][c];
    }
  }
}

template <int CH, int K> void launch(const interleaved& f, cudaStream_t s) {
  const std::size_t shared = shared_bytes(f.kh, f.kw, CH);
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

}  // namespace

// A tile of the largest mask (31 x 31) over 4 channels takes 94 x 62 x 4 floats, 91 KiB of
// shared memory: within what one block may have on the GPUs the build targets (227 KiB on Hopper).
bool c08_can_run(const convolution_problem& p) {
  return u8_image(p) && p.cols < (std::size_t(1) << 28) && ceil_div(p.rows, block_rows * S) < 65536;
}

void c08_run(const convolution_call& c) {
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

}  // namespace pplab::detail::gpu_conv
