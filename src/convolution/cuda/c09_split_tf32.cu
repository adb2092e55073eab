// convolution/cuda/c09_split_tf32: f32 on the TF32 tensor cores within fp32's error bound, as
// matmul's m14 ("3xTF32"). Each mask row i is a banded Toeplitz matrix, so that one row of
// correlation is a matrix product: for 8 outputs x0..x0+7 of an image row,
//   out[x0 + n] += sum over k of in[x0 - kw/2 + k] * B_i[k][n],   B_i[k][n] = mask[i][k - n]
// (zero where k - n is outside the mask's row). Sixteen image rows at once make it
// mma.sync m16n8k8's shape: A = 16 rows of the input tile, 8 columns of it per k step; B = 8 x 8
// blocks of B_i, KS = (kw + 14) / 8 of them per 8 outputs (3 at kw = 15: 24 columns, of which
// 22 hold the band). Each operand is split into two TF32 values, x = big + small (the mask's as
// m14's split_tf32, its small part rounded; the image's with it truncated, split_image_value),
// and each product taken as small big + big small + big big, sums in fp32.
//   - a block of 8 warps owns a 128 x 64 tile of outputs, each warp 32 x 32 of it (2 x 4 m16n8
//     tiles, 32 accumulators a thread); the input tile with its halo in shared memory, its rows
//     padded to 4 mod 8 floats so that a fragment's 8 rows x 4 columns hit 32 banks;
//   - for each mask row: the warp's A blocks loaded and split once each, and used by every
//     8-output group whose band they reach (up to KS); B's blocks, split on the host, read as one
//     16-byte load a lane per block from the call's scratch (the same for every block: L1);
//   - any mask of 1 to 31 a side, any boundary mode (the tile's loads go through it as c04's).
// Floor, 8192^2 with 15 x 15: 8192^2 / 128 groups of 16 x 8 outputs x 15 mask rows x 3 blocks x 3
// products = 70.8 M mma of 2048 flops: 145 GFLOP at the lab's mma.sync TF32 rate (314 TFLOP/s on
// the H100) is 0.46 ms, against 0.54 ms for the 15 x 15 multiply-adds at the FMA peak: the band's
// padding (24 columns for 15 taps) and the three products leave only 1.17x of the tensor cores'
// 5.6x over the FMA pipe. Measured on the H100 (bench/results/h100-2026-11-26-convolution-c09-
// slabs.*): 0.862 ms, the tensor cores busy 53.7% of the peak, 1.02x c06; at 31 x 31, past c06,
// 8.4x c04 (...-c09-variants.txt). Opt-in, as m14 (not the rounding of a strict fp32 sum); a tile
// with a NaN or an infinity is filtered tap by tap in fp32 (below), so they reach the outputs they
// reach in strict arithmetic and no others.
#include <cstring>
#include <type_traits>
#include <vector>

#include "convolution/cuda/conv_cuda.cuh"
#include "convolution/cuda/split_tf32.cuh"
#include "core/cuda/launch.cuh"
#include "core/cuda/tensor_cores.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int warps = 8, warp_rows = 32, warp_cols = 32, NT = warp_cols / 8;
constexpr int block_out_rows = 4 * warp_rows, block_out_cols = 2 * warp_cols;

// Columns of the input tile: the second column of warps' A blocks reach 8 (NT + KS - 1) columns
// past its first output, padded to 4 mod 8 (the banks, above).
constexpr int tile_cols(int ks) {
  const int w = warp_cols + 8 * (NT + ks - 1);
  return w + (12 - w % 8) % 8;
}
inline std::size_t shared_bytes(int kh, int ks) {
  return std::size_t(block_out_rows + kh - 1) * std::size_t(tile_cols(ks)) * sizeof(float);
}
inline int blocks_of(int kw) { return (kw + 14) / 8; }  // KS: 1 at kw = 1, 3 at 15, 5 at 31

// `mask`: the call's kh x kw taps, after B's blocks in the scratch.
template <int KS>
__global__ void __launch_bounds__(warps * 32)
    split_tf32_filter(image<float> f, const uint4* b, const float* mask) {
  extern __shared__ float in[];
  constexpr int W = tile_cols(KS);
  const int kh = f.kh, rh = f.kh / 2, rw = f.kw / 2, h = block_out_rows + kh - 1;
  const int y0 = int(blockIdx.y) * block_out_rows, x0 = int(blockIdx.x) * block_out_cols;
  const int tid = int(threadIdx.x);
  // The tile, 8 loads in flight a thread before they are stored; a tile wholly inside the image
  // skips the boundary's test.
  const bool inside =
      y0 - rh >= 0 && y0 - rh + h <= f.rows && x0 - rw >= 0 && x0 - rw + W <= f.cols;
  bool nonfinite = false;
  for (int first = 0; first < h * W; first += 8 * warps * 32) {
    float staged[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const int k = first + tid + u * warps * 32, ly = k / W, lx = k % W;
      if (k < h * W)
        staged[u] = inside ? f.in[std::size_t(y0 - rh + ly) * f.ld_in + (x0 - rw + lx)]
                           : read(f, y0 - rh + ly, x0 - rw + lx);
    }
#pragma unroll
    for (int u = 0; u < 8; ++u)
      if (first + tid + u * warps * 32 < h * W) {
        in[first + tid + u * warps * 32] = staged[u];
        nonfinite |= !isfinite(staged[u]);
      }
  }
  // The tile and its halo are whole. A NaN or an infinity in it would reach, through the band's
  // zeros (0 x inf is NaN) and the split (inf - inf), outputs that do not read it: such a tile is
  // filtered tap by tap in fp32 instead, as strict arithmetic has it.
  if (__syncthreads_or(nonfinite)) {
    for (int o = tid; o < block_out_rows * block_out_cols; o += warps * 32) {
      const int ly = o / block_out_cols, lx = o % block_out_cols, y = y0 + ly, x = x0 + lx;
      if (y >= f.rows || x >= f.cols) continue;
      float sum = 0;
      for (int i = 0; i < kh; ++i)
        for (int j = 0; j < f.kw; ++j) sum += mask[i * f.kw + j] * in[(ly + i) * W + lx + j];
      f.out[std::size_t(y) * f.ld_out + x] = sum;
    }
    return;
  }
  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int wr = (warp / 2) * warp_rows, wc = (warp % 2) * warp_cols;
  float acc[2][NT][4] = {};
  // B's blocks of the next mask row are read while this one's products run.
  uint4 b_next[KS];
#pragma unroll
  for (int s = 0; s < KS; ++s) b_next[s] = __ldg(b + s * 32 + lane);
  for (int i = 0; i < kh; ++i) {
    unsigned b_big[KS][2], b_small[KS][2];
#pragma unroll
    for (int s = 0; s < KS; ++s) {
      b_big[s][0] = b_next[s].x, b_big[s][1] = b_next[s].y;
      b_small[s][0] = b_next[s].z, b_small[s][1] = b_next[s].w;
    }
    if (i + 1 < kh) {
#pragma unroll
      for (int s = 0; s < KS; ++s) b_next[s] = __ldg(b + ((i + 1) * KS + s) * 32 + lane);
    }
    // A block c: tile rows wr + 16 m + i + (g, g + 8), tile columns wc + 8 c + (t, t + 4).
#pragma unroll
    for (int c = 0; c < NT + KS - 1; ++c) {
      unsigned a_big[2][4], a_small[2][4];
#pragma unroll
      for (int m = 0; m < 2; ++m) {
        const float* at = in + (wr + 16 * m + i + g) * W + wc + 8 * c + t;
        const float v[4] = {at[0], at[8 * W], at[4], at[8 * W + 4]};
#pragma unroll
        for (int e = 0; e < 4; ++e) split_image_value(v[e], a_big[m][e], a_small[m][e]);
      }
      // Each product's kind over every 8-output group that block c reaches (n: outputs 8n to
      // 8n + 7, with B_i's block s = c - n), so that the products in flight do not wait on one
      // another: small big, big small, then big big, as m14 adds them.
#pragma unroll
      for (int kind = 0; kind < 3; ++kind)
#pragma unroll
        for (int n = 0; n < NT; ++n) {
          const int s = c - n;
          if (s < 0 || s >= KS) continue;
#pragma unroll
          for (int m = 0; m < 2; ++m) {
            if (kind == 0) mma_16x8x8_tf32(acc[m][n], a_small[m], b_big[s]);
            if (kind == 1) mma_16x8x8_tf32(acc[m][n], a_big[m], b_small[s]);
            if (kind == 2) mma_16x8x8_tf32(acc[m][n], a_big[m], b_big[s]);
          }
        }
    }
  }
  // Lane (g, t) holds outputs (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1) of each m16n8.
#pragma unroll
  for (int m = 0; m < 2; ++m)
#pragma unroll
    for (int n = 0; n < NT; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int y = y0 + wr + 16 * m + g + (e / 2) * 8, x = x0 + wc + 8 * n + 2 * t + e % 2;
        if (y < f.rows && x < f.cols) f.out[std::size_t(y) * f.ld_out + x] = acc[m][n][e];
      }
}

// B_i's blocks as lane (g, t) of mma m16n8k8 takes them: (t, g) and (t + 4, g) of block s, that
// is mask[i][8 s + t - g] and mask[i][8 s + t + 4 - g]; big parts then small parts.
std::size_t fragment_bytes(int kh, int kw) {
  return std::size_t(kh) * std::size_t(blocks_of(kw)) * 32 * sizeof(uint4);
}
std::vector<uint4> fragments(const float* mask, int kh, int kw) {
  const int ks = blocks_of(kw);
  std::vector<uint4> out(std::size_t(kh) * std::size_t(ks) * 32);
  for (int i = 0; i < kh; ++i)
    for (int s = 0; s < ks; ++s)
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        const auto tap = [&](int j) { return j >= 0 && j < kw ? mask[i * kw + j] : 0.0f; };
        uint4& v =
            out[(std::size_t(i) * std::size_t(ks) + std::size_t(s)) * 32 + std::size_t(lane)];
        split_on_host(tap(8 * s + t - g), v.x, v.z);
        split_on_host(tap(8 * s + t + 4 - g), v.y, v.w);
      }
  return out;
}

template <int KS>
void launch(const image<float>& f, const uint4* b, const float* mask, cudaStream_t s) {
  const std::size_t shared = shared_bytes(f.kh, KS);
  allow_shared(split_tf32_filter<KS>, shared);
  split_tf32_filter<KS>
      <<<tiles_over(f.rows, f.cols, block_out_rows, block_out_cols), warps * 32, shared, s>>>(f, b,
                                                                                              mask);
  PPLAB_CUDA_LAUNCHED();
}

// Through dispatch, as the other rungs: only its f32 instance does anything (can_run).
struct rung {
  template <class T>
  static void run(const image<T>& f, const T* mask, void* scratch, cudaStream_t s) {
    if constexpr (std::is_same_v<T, float>) {
      const float* taps_on_gpu = fragments_and_taps_to(scratch, fragments(mask, f.kh, f.kw), mask,
                                                       std::size_t(f.kh) * std::size_t(f.kw), s);
      const auto* frags = static_cast<const uint4*>(scratch);
      switch (blocks_of(f.kw)) {
      case 1:
        return launch<1>(f, frags, taps_on_gpu, s);
      case 2:
        return launch<2>(f, frags, taps_on_gpu, s);
      case 3:
        return launch<3>(f, frags, taps_on_gpu, s);
      case 4:
        return launch<4>(f, frags, taps_on_gpu, s);
      default:
        return launch<5>(f, frags, taps_on_gpu, s);
      }
    }
  }
};

bool can_run(const convolution_problem& p) {
  static const bool built = kernel_built_for(split_tf32_filter<3>, 80);
  return built && p.type == dtype::f32 && float_or_double(p) && fits(p, block_out_rows) &&
         shared_bytes(int(p.kh), blocks_of(int(p.kw))) <= max_shared_per_block();
}
std::size_t scratch(const convolution_problem& p) {
  return fragment_bytes(int(p.kh), int(p.kw)) + p.kh * p.kw * sizeof(float);
}
void run(const convolution_call& c) { dispatch<rung>(c); }

}  // namespace

extern const convolution_rung c09_split_tf32{
    .info = {.step = 9,
             .summary = "f32 on the TF32 tensor cores within fp32's error: each mask row a banded "
                        "Toeplitz matrix, each product as three TF32 products (opt-in)",
             .opt_in = true,
             .tf32_split = true},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
    .explain = [](const convolution_problem& p) { return tile_intensity(p, 64, 128); },
};

}  // namespace pplab::detail::convolution_cuda
