// convolution/cuda/c12_split_tf32_wgmma: c11's whole-mask products on sm_90a's warpgroup
// tensor-core instructions (wgmma), whose measured rate is about 1.6 times mma.sync's. Each image
// row times the whole mask at once, as in c11: for 64 outputs x of a tile and image row r, A (64 x
// 16: A[x][j], the row's 16 values from x - 8 on) times B (16 x 16: B[j][s], slot s's mask row at
// tap j) adds the row's part of every mask row to the 16 slots, and a slot completes an output
// each time it has taken the mask's last row. What changes:
//   - A warpgroup (the block, 4 warps) multiplies a 64 x 16 tile at once, A from registers (each
//     warp 16 rows, as mma.sync takes them) and B from shared memory by descriptor: the 16 phases
//     of B, split on the host, as K-major tiles of 16 slots x 8 taps, big and small parts (32 KiB).
//     The block goes down the image in chunks of 16 rows (c11's staging, whole_mask.cuh).
//   - The products run asynchronously, and a group's accumulators cannot be read or zeroed until
//     it is done. Two rows go as one group, each into its own set of accumulators, and a slot's
//     sum is its two sets' parts: after the group the two slots the rows completed are taken and
//     zeroed. The slot of the first row also took the second row's mask row kh, a zero row past
//     the mask: masks to 15 rows (any odd mask to 15 x 15), columns to 16.
//   - An output that comes out NaN or infinite is taken again tap by tap in fp32, as in c11.
// Floor, 8192^2 (any mask to 15 x 15): 8192^2 / 64 x 6 wgmma of 64 x 16 x 8 a row = 103 GFLOP of
// products, 0.21 ms at the H100's dense TF32 rate (494 TFLOP/s at 1.83 GHz, 1024 multiply-adds a
// cycle an SM). Shared memory is nearly as close: a row's 6 products read 3 KiB of B, and the
// block's A values (6 four-byte loads a warp) 24 cycles of the SM's 128 bytes a cycle more,
// against the products' 48 cycles. Predicted: 60-70% of the rate, 0.30-0.35 ms.
// Measured on an H200, lab runs with c11 and NPP (bench/results/h200-2026-11-28-convolution-
// c12-008b945.json): 0.658-0.661 ms at every mask, 1.01x c11, 6.14x NPP at 15 x 15, 32% of the
// wgmma rate: no faster than c11, and the prediction missed by 2x. Six builds took 0.66-0.87 ms at
// 15 x 15: a group a tile, the sets' parts taken a step apart, 0.69 / 0.67 / 0.66 ms with 2 tiles a
// block at 3 blocks an SM, 2 tiles at 4, 1 tile at 5; rows in pairs, 0.73 / 0.87 / 0.66 with 2
// tiles at 3, 2 tiles at 2, 1 tile at 5 (kept: the simpler code). Nsight Compute over the first (3
// blocks an SM): the tensor pipe 31% busy, 0.49 instructions issued a scheduler a cycle, 0.82
// of 2.7 warps eligible, L1 and shared memory 55% of their throughput: no unit is full. Nor did
// wider products help: B 32 columns wide (the slots of even and odd outputs, A's 64 rows every
// other output, 128 outputs a product and each image value loaded once) took 0.70 and 0.75 ms
// (...-c12-n32-not-kept.json in git's history), L1 and shared memory again at 55%. The bound c11
// shared was the grid: one wave of long blocks left the SMs idle a quarter of the time (75% busy on
// average), and in bands of rows (whole_mask::plan_bands) the rung takes 0.530 ms at 15 x 15 in
// one lab run (...-c12-bands-26cfcb6.*): 102.2% of the strict FMA bound, 7.65x NPP, 1.09x c11,
// 1.41x c06, 40% of the wgmma rate. Its products and the rest of its work overlap little:
// without two of the three kinds it takes 0.46 ms, without any products 0.31
// (...-whole-mask-bands.txt).
#include <cstdint>
#include <cstring>
#include <vector>

#include "convolution/cuda/conv_cuda.cuh"
#include "convolution/cuda/split_tf32.cuh"
#include "convolution/cuda/whole_mask.cuh"
#include "core/cuda/async_copy.cuh"
#include "core/cuda/launch.cuh"
#include "core/cuda/tensor_cores.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

using namespace whole_mask;
constexpr int parts = 2;                                    // big, small
constexpr unsigned tile_bytes = slots * 8 * sizeof(float);  // B of one phase, k block and part
constexpr std::size_t table_bytes = std::size_t(phases) * 2 * parts * tile_bytes;  // 32 KiB
constexpr int table_units = int(table_bytes / sizeof(uint4));

// MT tiles of 64 outputs along the row, a warpgroup a block, at least `min_blocks` an SM.
template <int MT, int min_blocks> struct shape {
  static constexpr int blocks = min_blocks, tiles = MT, threads = 128;
  static constexpr int cols = 64 * MT;          // outputs along a row, a block
  static constexpr int chunk_cols = cols + 24;  // from 8 left of the first to 15 past the last
  static constexpr int chunk_floats = chunk_rows * chunk_cols;
  static constexpr std::size_t shared = table_bytes + 2 * chunk_floats * sizeof(float);
};
using block_shape = shape<1, 5>;  // the fastest of three (the header)

// `table`: B's phases (host_table); `taps`: the call's kh x kw mask.
template <class S>
__global__ void __launch_bounds__(S::threads, S::blocks)
    warpgroup_filter(image<float> f, const uint4* table, const float* taps, bands layout) {
  extern __shared__ uint4 shared[];
  float* chunks = reinterpret_cast<float*>(shared + table_units);
  const int tid = int(threadIdx.x);
  const block_column<S> column(f, layout);
  const int y0 = column.y0, x0 = column.x0, rows_here = column.rows_here, count = column.count;
  const auto stage = [&](int c) { column.stage(f, chunks, c, tid); };
  stage(0);  // in flight while B's table is copied
  for (int v = tid; v < table_units; v += S::threads) shared[v] = table[v];
  wgmma_shared_stores_fence();  // before the first chunk's barrier

  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  // B of phase p, k block kb and part q (0 big, 1 small) is tile (p * 2 + kb) * 2 + q: slot s's
  // 8 taps in the 16-byte rows of core matrices, K step 128 bytes, 8 slots 256 bytes apart.
  const std::uint64_t table_desc = wgmma_tile_plain(shared_address(shared), 128, 256);
  float acc[2][S::tiles][8] = {};   // [rows: even, odd][tile][element]
  float done[S::tiles][2][2] = {};  // [tile][x, x + 8][slot 2t, 2t + 1]: completed, not stored
  bool nonfinite = false;           // an output this thread stored is NaN or infinite

  // After rows u and u + 1 (u even), both sets are idle: slots u and u + 1 have completed, each
  // the sum of its parts in the two sets, and are taken and zeroed (row u + 1 gave slot u the
  // zero row kh). Slot s is column s % 8 of block s / 8, held by the lanes with t = (s % 8) / 2 as
  // elements s % 2 (output x) and 2 + s % 2 (x + 8) of each block.
  const auto collect = [&](int u) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int s = u + e, at = 4 * (s / 8) + s % 2;
#pragma unroll
      for (int m = 0; m < S::tiles; ++m)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          take_if(t == (s % 8) / 2, done[m][h][e], acc[0][m][at + 2 * h]);
          add_take_if(t == (s % 8) / 2, done[m][h][e], done[m][h][e], acc[1][m][at + 2 * h]);
        }
    }
  };
  // Every 8 rows (u % 8 == 6, after collect) the 8 slots completed since are stored at once, each
  // lane its two: output rows first + 2t and first + 2t + 1.
  const auto store = [&](int first) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int q = first + 2 * t + e;
      if (q < 0 || q >= rows_here) continue;
      float* o = f.out + std::size_t(y0 + q) * f.ld_out;
#pragma unroll
      for (int m = 0; m < S::tiles; ++m)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int x = x0 + 64 * m + 16 * warp + 8 * h + g;
          if (x < f.cols) o[x] = done[m][h][e];
          nonfinite |= !isfinite(done[m][h][e]);
        }
    }
  };

  for (int c = 0; c < count; ++c) {
    wait_copies<0>();
    __syncthreads();  // chunk c is whole; every warp is done with chunk c - 1's buffer
    if (c + 1 < count) stage(c + 1);
    const unsigned a_at = shared_address(chunks + (c % 2) * S::chunk_floats + 16 * warp + g + t);
    const int first_done = chunk_rows * c - (f.kh - 1);  // the output row slot 0 completes
#pragma unroll
    for (int u = 0; u < chunk_rows; u += 2) {
      // Lane (g, t)'s A of row u + w, tile m, k block kb: (g, t), (g + 8, t), (g, t + 4),
      // (g + 8, t + 4), the row's values at x + g + t + 4 v for v = 2 kb + (0, 2, 1, 3): six
      // values a tile, each loaded once (shared memory is as busy as the tensor cores) and split.
      unsigned a_big[2][S::tiles][2][4], a_small[2][S::tiles][2][4];
#pragma unroll
      for (int w = 0; w < 2; ++w)
#pragma unroll
        for (int m = 0; m < S::tiles; ++m) {
          unsigned big[6], small[6];
#pragma unroll
          for (int v = 0; v < 6; ++v)
            split_image_value(shared_value(a_at + 4 * ((u + w) * S::chunk_cols + 64 * m + 4 * v)),
                              big[v], small[v]);
#pragma unroll
          for (int kb = 0; kb < 2; ++kb)
#pragma unroll
            for (int r = 0; r < 4; ++r) {
              const int v = 2 * kb + (r == 1 ? 2 : r == 2 ? 1 : r);
              a_big[w][m][kb][r] = big[v], a_small[w][m][kb][r] = small[v];
            }
        }
      wgmma_fence();  // A's registers, and the sets zeroed by collect, before the products
      // small big, big small, big big, as m14 adds them; consecutive products go to the 4
      // accumulators of two rows and two tiles, so that they do not wait on one another.
#pragma unroll
      for (int kind = 0; kind < 3; ++kind)
#pragma unroll
        for (int kb = 0; kb < 2; ++kb)
#pragma unroll
          for (int w = 0; w < 2; ++w)
#pragma unroll
            for (int m = 0; m < S::tiles; ++m) {
              const int part = kind == 1 ? 1 : 0;
              const std::uint64_t b =
                  table_desc + (((u + w) * 2 + kb) * 2 + part) * (tile_bytes >> 4);
              wgmma_64x16x8_tf32(acc[w][m], kind == 0 ? a_small[w][m][kb] : a_big[w][m][kb], b);
            }
      wgmma_commit();
      wgmma_wait<0>();
      collect(u);
      if (u % 8 == 6) store(first_done + u - 6);
    }
  }
  redo_nonfinite<S::threads>(f, taps, nonfinite, y0, x0, rows_here, S::cols, tid);
}

// B's 16 phases as the products read them: tile (p * 2 + kb) * 2 + q holds, for slot s and
// k = 0..7, part q (big, small) of slot s's tap at A's column j = 8 kb + k at phase p (slot_tap),
// at word (s / 8) * 64 + (k / 4) * 32 + (s % 8) * 4 + k % 4 of the tile: core matrices of 8 slots
// x 4 taps, the K step 128 bytes, the next 8 slots 256 bytes on.
std::vector<uint4> host_table(const float* mask, int kh, int kw) {
  std::vector<unsigned> words(table_bytes / sizeof(unsigned));
  for (int p = 0; p < phases; ++p)
    for (int kb = 0; kb < 2; ++kb)
      for (int s = 0; s < slots; ++s)
        for (int k = 0; k < 8; ++k) {
          const std::size_t tile = std::size_t((p * 2 + kb) * 2) * (tile_bytes / sizeof(unsigned));
          const std::size_t at = (s / 8) * 64 + (k / 4) * 32 + (s % 8) * 4 + k % 4;
          split_on_host(slot_tap(mask, kh, kw, p, s, 8 * kb + k), words[tile + at],
                        words[tile + tile_bytes / sizeof(unsigned) + at]);
        }
  std::vector<uint4> out(table_units);
  std::memcpy(out.data(), words.data(), table_bytes);
  return out;
}

bool can_run(const convolution_problem& p) {
  static const bool built = kernel_built_for(warpgroup_filter<block_shape>, 90) && wgmma_in_build();
  return built && p.type == dtype::f32 && float_or_double(p) && p.kh < slots && p.kw <= max_side &&
         fits(p, chunk_rows) && block_shape::shared <= max_shared_per_block();
}
std::size_t scratch(const convolution_problem& p) {
  return table_bytes + p.kh * p.kw * sizeof(float);
}
void run(const convolution_call& c) {
  dispatch<whole_mask::rung<warpgroup_filter<block_shape>, block_shape, host_table>>(c);
}

}  // namespace

extern const convolution_rung c12_split_tf32_wgmma{
    .info = {.step = 12,
             .summary =
                 "f32 on the TF32 tensor cores within fp32's error: c11's whole-mask products as "
                 "warpgroup products (wgmma, sm_90a), two sets of sums in turn (opt-in)",
             .opt_in = true,
             .tf32_split = true},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::convolution_cuda
