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

namespace pplab::detail::gpu_matmul {

void m08_run(const matmul_call&);

namespace {

struct dmma_tiling {
  static constexpr int BM = 128, BN = 128, BK = 16;
  static constexpr int WM = 64, WN = 32;  // a warp's tile of C
  static constexpr int NT = BM / WM * (BN / WN) * warp;
  static constexpr int MI = WM / 16, NI = WN / 8;  // its m16n8 tiles
  static constexpr int AS = BK + 4, BS = BN + 4;   // padded rows of the shared tiles
  static constexpr int STAGES = 3;
  static constexpr std::size_t stage = std::size_t(BM) * AS + std::size_t(BK) * BS;  // doubles
  static constexpr std::size_t shared_bytes = STAGES * stage * sizeof(double);
};
using P = dmma_tiling;

// C = alpha A B + beta C over whole tiles: g.k a multiple of BK, the grid's rows and columns
// within A's and B's (padded) extents, their rows 16-byte aligned. C's edges are tested.
__global__ void __launch_bounds__(P::NT, 1)
    tensor_core_kernel(gemm<double> g, bool c_aligned, k_slices<double> slices) {
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, AS = P::AS, BS = P::BS, NT = P::NT;
  take_slice(g, slices, c_aligned);  // where K is cut, this block's slice of it
  extern __shared__ __align__(16) unsigned char shared[];
  double* const as = reinterpret_cast<double*>(shared);      // STAGES x BM x AS
  double* const bs = as + std::size_t(P::STAGES) * BM * AS;  // STAGES x BK x BS
  const int tid = int(threadIdx.x), w = tid / warp, lane = tid % warp;
  const int gq = lane / 4, tq = lane % 4;
  const int wr = w / (BN / P::WN) * P::WM, wc = w % (BN / P::WN) * P::WN;
  const std::size_t row0 = std::size_t(blockIdx.y) * BM, col0 = std::size_t(blockIdx.x) * BN;
  // A thread's 16-byte chunks of a stage: of A rows tid / 8 + 32 s, column (tid % 8) x 2; of B
  // rows tid / 64 + 4 s, column (tid % 64) x 2 (s = 0..3). Pointers moved along K per step.
  constexpr int a_rows_apart = NT / (BK / 2), b_rows_apart = NT / (BN / 2);
  const double* a_src = g.a + (row0 + tid / (BK / 2)) * g.lda + tid % (BK / 2) * 2;
  const double* b_src = g.b + std::size_t(tid / (BN / 2)) * g.ldb + col0 + tid % (BN / 2) * 2;
  const std::size_t a_skip = a_rows_apart * g.lda, b_skip = b_rows_apart * g.ldb;
  const int a_dst = tid / (BK / 2) * AS + tid % (BK / 2) * 2;
  const int b_dst = tid / (BN / 2) * BS + tid % (BN / 2) * 2;
  const std::size_t steps = g.k / BK;
  const auto fetch = [&](std::size_t step) {
    const int st = int(step % P::STAGES);
    double* sa = as + st * BM * AS + a_dst;
    double* sb = bs + st * BK * BS + b_dst;
    const double* ga = a_src + step * BK;
    const double* gb = b_src + step * BK * g.ldb;
#pragma unroll
    for (int s = 0; s < BM * BK / 2 / NT; ++s)
      copy_async<16>(sa + s * a_rows_apart * AS, ga + s * a_skip, true);
#pragma unroll
    for (int s = 0; s < BK * BN / 2 / NT; ++s)
      copy_async<16>(sb + s * b_rows_apart * BS, gb + s * b_skip, true);
  };
#pragma unroll
  for (int s = 0; s < P::STAGES - 1; ++s) {
    if (std::size_t(s) < steps) fetch(s);
    commit_copies();  // one group per step, empty or not, so the count below holds
  }
  double acc[P::MI][P::NI][4] = {};
  for (std::size_t step = 0; step < steps; ++step) {
    wait_copies<P::STAGES - 2>();  // this step's tile has landed (this thread's copies) ...
    __syncthreads();  // ... everyone's, and everyone is done with the stage refilled next
    if (step + P::STAGES - 1 < steps) fetch(step + P::STAGES - 1);
    commit_copies();
    const int st = int(step % P::STAGES);
    const double* sa = as + st * BM * AS + (wr + gq) * AS + tq;
    const double* sb = bs + st * BK * BS + tq * BS + wc + gq;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 4) {
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
  }
  store_mma_tiles(g, acc, row0 + wr, col0 + wc, lane, c_aligned);
}

// Fewer tiles of C than blocks the GPU holds at once get K cut into slices.
std::size_t wave() {
  static const std::size_t blocks = blocks_at_once<P>(tensor_core_kernel);
  return blocks;
}

}  // namespace

// Whether this build holds the kernel for this GPU's tensor cores (sm_90 code; no GPU: no).
bool m13_can_run(const matmul_problem& p) {
  static const bool built = tensor_cores_built(tensor_core_kernel);
  return p.type == dtype::f64 && grid_fits(p) && built;
}

std::size_t m13_scratch(const matmul_problem& p) {
  return whole_tile_scratch<P, double>(p, wave());
}

void m13_run(const matmul_call& c) {
  run_whole_tiles<P, double>(c, wave(), tensor_core_kernel, m08_run);
}

}  // namespace pplab::detail::gpu_matmul
