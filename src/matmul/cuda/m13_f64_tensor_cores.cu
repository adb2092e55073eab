// matmul/cuda/m13_f64_tensor_cores: f64 on the fp64 tensor cores. Every SIMT rung below multiplies
// doubles with DFMA, whose rate on the H200 is half the fp32 rate (the lab's fp64 FMA probe: about
// 31 TFLOP/s), so m08 stops at 0.46x cuBLAS DGEMM, which runs on the tensor cores (62-64
// TFLOP/s; 67 at the boost clock). Here a warp multiplies with mma.sync m16n8k4 f64 (sm_90): 512
// multiply-adds of doubles per instruction, in fp64 throughout, within the SIMT rungs' error
// bound (the same tolerance in the tests).
//   - a 128 x 128 tile of C per block of 8 warps, each warp 64 x 32 of it as 4 x 4 m16n8 tiles
//     (64 accumulators of 8 bytes per thread);
//   - A's and B's tiles (BK = 16) copied by cp.async through 3 shared-memory stages, no registers
//     on the way (the tensor cores take A row-major: no transpose to make);
//   - rows padded by 4 doubles (A: 20, B: 132), so the 16 lanes of each half-warp read a
//     fragment from 16 different 8-byte bank pairs (A's lane (g, t) reads row g, column t:
//     20 g + t mod 16 = 4 g + t; B's reads row t, column g: 132 t + g mod 16 = 4 t + g).
// The kernel needs whole, 16-byte aligned tiles: odd shapes are padded first (padded.cuh, as m12);
// a shape of whole tiles whose rows are not 16-byte aligned (an odd row stride) runs m08. With
// fewer tiles of C than SMs (one block per SM), K is cut into slices as m10 cuts it for m08, their
// parts added in slice order by a second pass (f64 1024^3: 64 tiles, 2 slices). Measured
// (bench/results/h200-2026-11-24-matmul-m13-split-k.*): f64 1024^3 59 us, 0.90x cuBLAS DGEMM
// (predicted ~57 us; m10's SIMT slices 0.40x), 2048^3 1.03x, 4096^3 1.02x.
// Floor at 4096^3: 137 GFLOP at 67 TFLOP/s, 2.05 ms; operands from DRAM, B read once per wave of
// 132 tiles (8 waves x 128 MiB) and A once: ~1.1 GiB at 4 TB/s, 0.3 ms, hidden under the multiply.
// Shared memory read per k step of 4: a warp's 16 MMAs (8192 FMA) take 12 fragment loads of
// 256 B, 3 KiB: 48 B per clock per SM at the tensor cores' 128 FMA per clock, of the 128 B the
// SM can read. Prediction: 0.8x cuBLAS DGEMM (cp.async pipelines of this simple kind reach about
// 80% of a tensor-core peak; the issue quotes 62-64 TFLOP/s for cuBLAS), against m08's 0.46x.
// Measured on the H200 at 4096^3 (bench/results/h200-2026-11-24-matmul-m13-steps.txt, ratios in
// the same run): 2.859 ms, 48.1 TFLOP/s, 1.01x cuBLAS DGEMM (2.888 ms) and 2.19x m08. The lab's
// new fp64 tensor-core probe reads 65.2 TFLOP/s: m13 at 74% of it, cuBLAS at 73%. The prediction
// was right in TFLOP/s (0.8 x 62 = 50) and wrong as a ratio: cuBLAS DGEMM, timed as the lab times
// (L2 flushed, median), runs at 47.6 TFLOP/s here, not 62-64. SASS: 64 DMMA, 48 fragment loads
// and 8 LDGSTS per k tile of 16, 194 registers, no spill (one block of 8 warps per SM).
#include "core/cuda/tensor_cores.cuh"
#include "matmul/cuda/tensor_core_rung.cuh"

namespace pplab::detail::matmul_cuda {

namespace {

using P = mma_tiling<double, 16, 4, 4>;  // K steps of 16, rows padded by 4 and 4

// C = alpha A B + beta C over whole tiles: g.k a multiple of BK, the grid's rows and columns
// within A's and B's (padded) extents, their rows 16-byte aligned. C's edges are tested.
__global__ void __launch_bounds__(P::NT, 1)
    tensor_core_kernel(gemm<double> g, bool c_aligned, k_slices<double> slices) {
  constexpr int AS = P::AS, BS = P::BS;
  take_slice(g, slices, c_aligned);  // where K is cut, this block's slice of it
  const warp_tile<P> at;
  double acc[P::MI][P::NI][4] = {};
  through_stages<P>(g, at, [&](const double* sa, const double* sb) {
#pragma unroll
    for (int kk = 0; kk < P::BK; kk += 4) {
      double fa[P::MI][2], fb[P::NI];
#pragma unroll
      for (int i = 0; i < P::MI; ++i) {
        fa[i][0] = sa[i * 16 * AS + kk];
        fa[i][1] = sa[(i * 16 + 8) * AS + kk];
      }
#pragma unroll
      for (int j = 0; j < P::NI; ++j) fb[j] = sb[kk * BS + j * 8];
#pragma unroll
      for (int i = 0; i < P::MI; ++i)
#pragma unroll
        for (int j = 0; j < P::NI; ++j) mma_16x8x4(acc[i][j], fa[i][0], fa[i][1], fb[j]);
    }
  });
  store_mma_tiles(g, acc, at.row0 + at.wr, at.col0 + at.wc, at.lane, c_aligned);
}

// The rung: f64 where this build holds the kernel for this GPU's tensor cores (sm_90 code).
using rung = whole_tile_rung<P, double, tensor_core_kernel, 90>;

}  // namespace

extern const matmul_rung m13_f64_tensor_cores{
    .info = {.step = 13,
             .summary = "f64 on the fp64 tensor cores (mma.sync m16n8k4), tiles by cp.async"},
    .can_run = rung::can_run,
    .scratch_bytes = rung::scratch,
    .run = rung::run,
};

}  // namespace pplab::detail::matmul_cuda
