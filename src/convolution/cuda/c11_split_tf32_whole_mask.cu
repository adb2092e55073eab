// convolution/cuda/c11_split_tf32_whole_mask: f32 on the TF32 tensor cores within fp32's error
// bound, as c09, with each image row multiplied by the whole mask at once. For the 16 outputs
// x0..x0+15 of a tile and image row r, one product of A (16 x 16: A[x][j], the image row's 16
// values from x - 8 on) with B (16 x 16: B[j][i], mask row i's tap j, zero past the mask) gives
// the row's part of every mask row at once: P[x][i] = sum over j of in[r][x - 8 + j] B[j][i],
// which output row r - i + kh/2 takes. 225 of the product's 256 multiply-adds are taps at 15 x 15,
// where c09's bands carry 15 of 24.
//   - The sums: an output's partial sum stays in one column (slot) of the accumulators while the
//     rows go by, and B's columns turn instead: at step r, slot s takes mask row
//     (r - s + kh - 1) mod 16, so slot s completes an output at every step r = s mod 16, is
//     stored and zeroed, and takes the zero rows past the mask until its next output starts. The
//     16 turns of B (the phases) are built and split on the host, 16 KiB in shared memory, and
//     read as 16-byte loads a lane per step (slots 8..15 read the phase 8 steps behind).
//   - A warp owns 2 m16 tiles (32 outputs along the row), a block 4 warps and 128 outputs along
//     the row, and goes down a column of the image for a band of output rows (384 rows, and 128
//     in the last two waves: whole_mask::plan_bands), kh - 1 more rows of input than outputs. The
//     image comes in chunks of 16 rows (one turn of the slots) into two buffers by cp.async, a
//     chunk ahead: in 16-byte pieces where the chunk lies inside the image, else element by element
//     through the boundary mode.
//   - A lane's A values of a tile are the row's x0 + g + t + 4v (v = 0..5), each split into big
//     + small (split_tf32.cuh); three TF32 products of each pair of blocks, as m14 adds them.
//   - Masks to 16 x 16, any boundary mode. An output that comes out NaN or infinite (an infinity
//     or a NaN in the image, which the zero taps multiply too) is taken again tap by tap in fp32,
//     so that they reach the outputs they reach in strict arithmetic and no others.
// Floor, 8192^2 (any mask to 16 x 16): 8192^2 / 16 outputs x 12 mma a step = 50.3 M mma of 2048
// flops, 103 GFLOP: 0.33 ms at the lab's mma.sync TF32 rate (314 TFLOP/s on the H100), against
// c09's 145 GFLOP at 15 x 15 and 0.54 ms for the 15 x 15 multiply-adds at the FMA peak. Predicted
// at m14's 60-70% of the rate: 0.47-0.55 ms. Measured on an H100 in one lab run (bench/results/
// h100-2026-11-28-convolution-c11-b9beb44.json in git's history): 0.665 ms at 15 x 15, 6.10x
// NPP, 1.12x c06, 1.29x c09, 81.5% of the strict FMA bound, the tensor cores at 49-50% of that rate
// at every mask. The miss is instructions: the first build (0.735-0.748 ms on an H100 and an H200)
// issued 6 a product by Nsight Compute (305.9 M warp instructions for 51.1 M mma on the H200), 0.53
// a scheduler a cycle, the tensor pipe 53% busy (...-c11-shapes-ncu.txt in git's history); its SASS
// had two moves a product rebuilding A's and the accumulators' registers in a row, and each step's
// completed row stored behind a branch. Storing every 8 steps (0.735 -> 0.678 ms) and A per block
// (0.678 -> 0.655; ...-c11-steps.txt) took part of that. The rest of the miss was the grid: one
// wave of long blocks kept the SMs busy 79% of the time on average; in bands of rows
// (whole_mask::plan_bands) the rung takes 0.576 ms at 15 x 15 on an H200 in one lab run
// (...-c12-bands-26cfcb6.*): 94.1% of the strict FMA bound, 7.05x NPP, 57% of the mma.sync rate.
// The moves that remain (about 700 in the 384 products of a chunk's SASS) are the next step.
#include <cstdint>
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
constexpr int table_entries = phases * 2 * 32;  // (phase, k block, lane)
constexpr std::size_t table_bytes = table_entries * sizeof(uint4);

// W warps of MT m16 tiles each, at least `min_blocks` blocks an SM (registers: 128 a thread).
template <int W, int MT, int min_blocks> struct shape {
  static constexpr int blocks = min_blocks, tiles = MT, threads = 32 * W;
  static constexpr int cols = 16 * MT * W;      // outputs along a row, a block
  static constexpr int chunk_cols = cols + 24;  // from 8 left of the first to 15 past the last
  static constexpr int chunk_floats = chunk_rows * chunk_cols;
  static constexpr std::size_t shared = table_bytes + 2 * chunk_floats * sizeof(float);
};
using block_shape = shape<4, 2, 4>;

// A lane's 16 bytes of B's table, at a shared-memory address. A volatile load: the same entry is
// read again 8 steps later (as the other block of slots), and ptxas, left free to keep the first
// load's registers for it, kept 8 steps' worth (128 registers) live and spilled.
__device__ __forceinline__ uint4 phase_fragment(unsigned at) {
  uint4 v;
  asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(at));
  return v;
}

// `fragments`: the table of B's phases (host_table); `taps`: the call's kh x kw mask.
template <class S>
__global__ void __launch_bounds__(S::threads, S::blocks)
    whole_mask_filter(image<float> f, const uint4* fragments, const float* taps, bands layout) {
  extern __shared__ uint4 shared[];
  uint4* table = shared;
  float* chunks = reinterpret_cast<float*>(shared + table_entries);
  const int tid = int(threadIdx.x);
  const block_column<S> column(f, layout);
  const int y0 = column.y0, x0 = column.x0, rows_here = column.rows_here, count = column.count;
  const auto stage = [&](int c) { column.stage(f, chunks, c, tid); };
  stage(0);  // in flight while B's table is copied
  for (int v = tid; v < table_entries; v += S::threads) table[v] = fragments[v];

  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int wx = warp * 16 * S::tiles;  // the warp's first output column in the block
  const unsigned table_at = shared_address(table + lane);
  float acc[S::tiles][2][4] = {};   // [tile][slots 0-7, 8-15][m16n8 element]
  float done[S::tiles][2][2] = {};  // [tile][x, x + 8][slot 2t, 2t + 1]: completed, not stored
  bool nonfinite = false;           // an output this thread stored is NaN or infinite
  for (int c = 0; c < count; ++c) {
    wait_copies<0>();
    __syncthreads();  // chunk c is whole; every warp is done with chunk c - 1's buffer
    if (c + 1 < count) stage(c + 1);
    const unsigned a_at = shared_address(chunks + (c % 2) * S::chunk_floats + wx + g + t);
    const int first_done = chunk_rows * c - (f.kh - 1);  // the output row slot 0 completes
#pragma unroll
    for (int u = 0; u < chunk_rows; ++u) {
      // Lane (g, t)'s A of tile m, block kb: (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4),
      // the row's values at x0 + g + t + 4 v for v = 4m + 2kb + (0, 2, 1, 3). Each loaded and
      // split on its own, though blocks and tiles share values: the products take A as four
      // registers in a row, and values shared between them cost a move each (two moves an
      // HMMA, by the SASS), more than a load and a split.
      unsigned a_big[S::tiles][2][4], a_small[S::tiles][2][4];
#pragma unroll
      for (int m = 0; m < S::tiles; ++m)
#pragma unroll
        for (int kb = 0; kb < 2; ++kb)
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            const int v = 4 * m + 2 * kb + (r == 1 ? 2 : r == 2 ? 1 : r);
            split_image_value(shared_value(a_at + 4 * (u * S::chunk_cols + 4 * v)), a_big[m][kb][r],
                              a_small[m][kb][r]);
          }
      unsigned b_big[2][2][2], b_small[2][2][2];  // [slots' block][k block][register]
#pragma unroll
      for (int nb = 0; nb < 2; ++nb)
#pragma unroll
        for (int kb = 0; kb < 2; ++kb) {
          const uint4 b = phase_fragment(table_at + (((u + 8 * nb) % phases) * 2 + kb) * 512);
          b_big[nb][kb][0] = b.x, b_big[nb][kb][1] = b.y;
          b_small[nb][kb][0] = b.z, b_small[nb][kb][1] = b.w;
        }
        // Each product's kind over every block, slots' block and tile, so that the products in
        // flight do not wait on one another: small big, big small, then big big, as m14 adds them.
#pragma unroll
      for (int kind = 0; kind < 3; ++kind)
#pragma unroll
        for (int kb = 0; kb < 2; ++kb)
#pragma unroll
          for (int nb = 0; nb < 2; ++nb)
#pragma unroll
            for (int m = 0; m < S::tiles; ++m) {
              if (kind == 0) mma_16x8x8_tf32(acc[m][nb], a_small[m][kb], b_big[nb][kb]);
              if (kind == 1) mma_16x8x8_tf32(acc[m][nb], a_big[m][kb], b_small[nb][kb]);
              if (kind == 2) mma_16x8x8_tf32(acc[m][nb], a_big[m][kb], b_big[nb][kb]);
            }
      // Slot u has completed an output row: column u % 8 of the slots' block u / 8, held by the
      // lanes with t = (u % 8) / 2 as elements u % 2 (output x0 + g) and 2 + u % 2 (x0 + g + 8)
      // of each tile. They move it aside and zero the slot for its next output; every 8 steps
      // all lanes store their two rows at once (stored at each step by the 8 lanes that hold it,
      // behind a branch, the rung took 0.735 ms at 15 x 15 on the H100 against 0.678).
      const int nb = u / 8, e = u % 2;
      const bool mine = t == (u % 8) / 2;
#pragma unroll
      for (int m = 0; m < S::tiles; ++m)
#pragma unroll
        for (int h = 0; h < 2; ++h) take_if(mine, done[m][h][e], acc[m][nb][2 * h + e]);
      if (u % 8 == 7) {
#pragma unroll
        for (int row = 0; row < 2; ++row) {
          const int q = first_done + 8 * nb + 2 * t + row;
          if (q < 0 || q >= rows_here) continue;
          float* o = f.out + std::size_t(y0 + q) * f.ld_out;
#pragma unroll
          for (int m = 0; m < S::tiles; ++m)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int x = x0 + wx + 16 * m + 8 * h + g;
              if (x < f.cols) o[x] = done[m][h][row];
              nonfinite |= !isfinite(done[m][h][row]);
            }
        }
      }
    }
  }
  redo_nonfinite<S::threads>(f, taps, nonfinite, y0, x0, rows_here, S::cols, tid);
}

// B's 16 phases as lane (g, t) of mma m16n8k8 takes them: for phase p and k block kb, B's (t, g)
// and (t + 4, g) of block kb, that is slot g's mask row i = (p - g + kh - 1) mod 16 at A's
// columns j = 8 kb + t and 8 kb + t + 4 (mask column j - 8 + kw/2); big parts then small parts.
std::vector<uint4> host_table(const float* mask, int kh, int kw) {
  std::vector<uint4> out(table_entries);
  for (int p = 0; p < phases; ++p)
    for (int kb = 0; kb < 2; ++kb)
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        const auto tap = [&](int j) { return slot_tap(mask, kh, kw, p, g, j); };
        uint4& v = out[std::size_t((p * 2 + kb) * 32 + lane)];
        split_on_host(tap(8 * kb + t), v.x, v.z);
        split_on_host(tap(8 * kb + t + 4), v.y, v.w);
      }
  return out;
}

bool can_run(const convolution_problem& p) {
  static const bool built = kernel_built_for(whole_mask_filter<block_shape>, 80);
  return built && p.type == dtype::f32 && float_or_double(p) && p.kh <= max_side &&
         p.kw <= max_side && fits(p, chunk_rows) && block_shape::shared <= max_shared_per_block();
}
std::size_t scratch(const convolution_problem& p) {
  return table_bytes + p.kh * p.kw * sizeof(float);
}
void run(const convolution_call& c) {
  dispatch<whole_mask::rung<whole_mask_filter<block_shape>, block_shape, host_table>>(c);
}

}  // namespace

extern const convolution_rung c11_split_tf32_whole_mask{
    .info = {.step = 11,
             .summary = "f32 on the TF32 tensor cores within fp32's error: each image row times "
                        "the whole mask at once, the mask rows as the product's columns (opt-in)",
             .opt_in = true,
             .tf32_split = true},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::convolution_cuda
