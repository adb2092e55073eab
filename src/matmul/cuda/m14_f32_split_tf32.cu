// matmul/cuda/m14_f32_split_tf32: f32 on the TF32 tensor cores within fp32's error bound,
// "3xTF32". A TF32 value keeps 10 bits of mantissa (fp32: 23), so one TF32 product per
// multiply-add loses about 3 decimal digits (cuBLAS's FAST_TF32 mode, never pplab's). Here every
// operand is split in registers into two TF32 values, x = big + small to 2^-22 of x (split_tf32),
// and each product is taken as small big + big small + big big: three tensor-core products per
// multiply-add, the fourth (small small, under 2^-20 of the product) dropped; the sums are in fp32.
// Not the rounding of a SIMT fp32 FMA chain, so not bit-equal to m08; held to split_tf32_tolerance
// (core/verify.hpp: fp32's K-scaled bound plus 2^-18 a term, which the split can reach where K
// is tiny: at K = 1 fp32's bound of 6 x 2^-23 was missed once in a sanitizer run), and the lab
// records every row's measured error beside its time. Opt-in only: the
// policy keeps strict fp32 (and the issue's fp32 targets are against strict cuBLAS SGEMM); an
// infinity in A or B gives NaN where strict arithmetic gives an infinity (split_tf32).
//   - a 128 x 128 tile of C per block of 8 warps, each warp 64 x 32 of it as 4 x 4 m16n8 tiles
//     (64 fp32 accumulators per thread), mma.sync m16n8k8 tf32; two blocks per SM (127 registers);
//   - A's and B's tiles (BK = 32) copied by cp.async through 3 shared-memory stages (105 KiB);
//   - rows padded (A: 36 floats, B: 136) so a warp's fragment reads hit 32 different banks (A's
//     lane (g, t) reads row g, column t: 36 g + t mod 32 = 4 g + t; B's row t, column g:
//     136 t + g mod 32 = 8 t + g);
//   - odd shapes padded and K cut into slices for few tiles of C, as m13 (tensor_core_rung.cuh).
// Floor at 4096^3: 3 x 137 GFLOP of TF32 products at the lab's mma.sync TF32 rate (315 TFLOP/s
// measured; Hopper's 495 are for its wgmma instructions) is 1.31 ms, 105 TFLOP/s of fp32 work,
// against cuBLAS's strict SGEMM at 51. Issue: per k step of 8 a warp's 48 MMAs come with 24 shared
// loads and 3 instructions to split each value, ~190 instructions: at 16 warps per SM the
// schedulers are busy under half the cycles the tensor cores need. Predicted 70-75% of the floor,
// as m13 reached of its own (75%): ~1.5x cuBLAS strict SGEMM. Measured on the H200
// (bench/results/h200-2026-11-24-matmul-m14-steps.*, ratios in the same run): 4096^3 2.036 ms, 67.5
// TFLOP/s, 1.31x cuBLAS strict SGEMM and 1.48x m11 (64% of the floor); 8192^3 1.33x, 4093^3 1.36x,
// 1024^3 1.33x, 128 x 8192 x 8192 1.21x, 8192 x 8192 x 128 1.57x. One block per SM (141 registers)
// 1.18x; A's fragments by ldmatrix instead of 4 shared loads: no change; BK = 16 with 4 stages
// 0.98x. The miss, from Nsight Compute (bench/results/h200-2026-11-24-ncu-m14-4096.txt): the tensor
// pipe is busy 58% of the cycles and the issue slots 42%; of the 8.8 cycles between a warp's
// instructions, 2.85 are waits for the tensor pipe while other warps' products hold it, 1.67 fixed
// latencies, 0.36 the barrier. The inner loop alone, fragments from shared memory with no global
// traffic (m14-steps record, run 9), runs at 299 TFLOP/s of products unsplit and 237 split: the
// split costs a fifth, the barrier 2-3%, and the cp.async fills the rest. Not kept, same record:
// reading the next k step's fragments ahead (1.32x), splitting A a row tile at a time (1.30x), and
// splitting each operand once by a first pass (an experiment on branch wip/m15-split-once,
// bench/results/h200-2026-11-24-matmul-m15-experiment.txt: 0.86x m14), which removed the split but
// doubled the shared-memory fill and the barriers. Occupancy and the products' dependencies are not
// the limit: a register-resident probe with m14's warps per SM and its 16 accumulators of 3
// dependent products runs at the full 315 TFLOP/s (run 8). Splitting each value once per block in
// shared memory (run 10, branch wip/m14-split-in-shared: K steps of 16, twice the fragment loads)
// 1.10x. Error (the lab's Freivalds measure): 2.6e-7 at 8192^3 against 6.9e-8 for cuBLAS strict
// (3.8x; 0.4-12x across the shapes), far inside the tolerance (2 (K + 2) 2^-23: 2e-3 at K = 8192).
#include "core/cuda/tensor_cores.cuh"
#include "matmul/cuda/tensor_core_rung.cuh"

namespace pplab::detail::matmul_cuda {

namespace {

using P = mma_tiling<float, 32, 4, 8>;  // K steps of 32, rows padded by 4 and 8

// C = alpha A B + beta C over whole tiles: g.k a multiple of BK, the grid's rows and columns
// within A's and B's (padded) extents, their rows 16-byte aligned. C's edges are tested.
__device__ __forceinline__ void multiply_tiles(const gemm<float>& g, bool c_aligned) {
  constexpr int AS = P::AS, BS = P::BS;
  const warp_tile<P> at;
  float acc[P::MI][P::NI][4] = {};
  through_stages<P>(g, at, [&](const float* sa, const float* sb) {
#pragma unroll
    for (int kk = 0; kk < P::BK; kk += 8) {
      unsigned a_big[P::MI][4], a_small[P::MI][4], b_big[P::NI][2], b_small[P::NI][2];
#pragma unroll
      for (int i = 0; i < P::MI; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e)  // rows g, g + 8, g, g + 8; columns t, t, t + 4, t + 4
          split_tf32(sa[(i * 16 + e % 2 * 8) * AS + kk + e / 2 * 4], a_big[i][e], a_small[i][e]);
#pragma unroll
      for (int j = 0; j < P::NI; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e)  // rows t, t + 4
          split_tf32(sb[(kk + e * 4) * BS + j * 8], b_big[j][e], b_small[j][e]);
      }
      // The small cross terms first, the big product last: each sum meets the largest term with
      // the small ones already in it.
#pragma unroll
      for (int i = 0; i < P::MI; ++i)
#pragma unroll
        for (int j = 0; j < P::NI; ++j) mma_16x8x8_tf32(acc[i][j], a_small[i], b_big[j]);
#pragma unroll
      for (int i = 0; i < P::MI; ++i)
#pragma unroll
        for (int j = 0; j < P::NI; ++j) mma_16x8x8_tf32(acc[i][j], a_big[i], b_small[j]);
#pragma unroll
      for (int i = 0; i < P::MI; ++i)
#pragma unroll
        for (int j = 0; j < P::NI; ++j) mma_16x8x8_tf32(acc[i][j], a_big[i], b_big[j]);
    }
  });
  store_mma_tiles(g, acc, at.row0 + at.wr, at.col0 + at.wc, at.lane, c_aligned);
}

__global__ void __launch_bounds__(P::NT, 2)
    split_tf32_kernel(gemm<float> g, bool c_aligned, k_slices<float> slices) {
  take_slice(g, slices, c_aligned);  // where K is cut, this block's slice of it
  multiply_tiles(g, c_aligned);
}

// A stack of products (numpy.matmul's 3-D operands, torch.bmm's) in one launch: block z
// multiplies product z, its matrices z strides along, as m19 does for strict fp32. A launch per
// product through the API took 54 ms for 4096 products of 128^3 on an H200 (torch.bmm, strict:
// 0.55 ms); one launch 0.291 ms, 1.59x cuBLAS's strict strided batch, and 256 x 512^3 1.051 ms,
// 1.31x (bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, its section of 2026-11-30).
__global__ void __launch_bounds__(P::NT, 2)
    split_tf32_stack_kernel(gemm<float> g, bool c_aligned) {
  const std::size_t z = blockIdx.z;
  g.a += z * g.stride_a, g.b += z * g.stride_b, g.c += z * g.stride_c;
  multiply_tiles(g, c_aligned);
}

// The rung: f32 on a GPU whose tensor cores this build's kernel runs on (sm_80 code and later).
using rung = whole_tile_rung<P, float, split_tf32_kernel, 80>;

matmul_problem one_of(const matmul_problem& p) {
  matmul_problem one = p;
  one.batch = 1;
  return one;
}

// One product as the rung runs it; a stack as each of its products.
bool can_run(const matmul_problem& p) { return rung::can_run(one_of(p)); }
std::size_t scratch(const matmul_problem& p) { return rung::scratch(one_of(p)); }

constexpr std::size_t most_z = 65535;  // the grid's third dimension

// A stack of whole, aligned tiles (every product's matrices 16 bytes aligned: the strides whole
// vectors) in launches of up to 65535 products; any other stack one product at a time, each as
// the rung runs one (padded copies and K slices in the scratch, reused product after product on
// the one stream).
void run_stack(const matmul_call& c) {
  const gemm<float> g = typed<float>(c);
  const alignment<float> aligned(g);
  const auto s = static_cast<cudaStream_t>(c.stream);
  if (g.m && g.n && g.k && whole_tiles<P>(g.m, g.n, g.k) && aligned.a && aligned.b) {
    allow_shared(split_tf32_stack_kernel, P::shared_bytes);
    const bool c_aligned = rows_aligned(g.c, g.ldc) && g.stride_c % 2 == 0;  // pairs stored
    for (std::size_t first = 0; first < c.p.batch; first += most_z) {
      gemm<float> part = g;
      part.a += first * g.stride_a, part.b += first * g.stride_b, part.c += first * g.stride_c;
      const auto count = unsigned(std::min(most_z, c.p.batch - first));
      const dim3 grid(unsigned(g.n / P::BN), unsigned(g.m / P::BM), count);
      split_tf32_stack_kernel<<<grid, P::NT, P::shared_bytes, s>>>(part, c_aligned);
      PPLAB_CUDA_LAUNCHED();
    }
    return;
  }
  for (std::size_t i = 0; i < c.p.batch; ++i) {
    matmul_call one = c;
    one.p.batch = 1;
    one.a = static_cast<const float*>(c.a) + i * c.stride_a;
    one.b = static_cast<const float*>(c.b) + i * c.stride_b;
    one.c = static_cast<float*>(c.c) + i * c.stride_c;
    rung::run(one);
  }
}

void run(const matmul_call& c) {
  if (c.p.batch > 1) run_stack(c);
  else rung::run(c);
}

}  // namespace

extern const matmul_rung m14_f32_split_tf32{
    .info = {.step = 14,
             .summary = "f32 on the TF32 tensor cores within fp32's error bound: each operand "
                        "split in two, three products (opt-in)",
             .opt_in = true,
             .tf32_split = true},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
