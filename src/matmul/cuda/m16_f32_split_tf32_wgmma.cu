// matmul/cuda/m16_f32_split_tf32_wgmma: m14's three TF32 products (small big + big small + big
// big, each operand split into two TF32 values, sums in fp32) on Hopper's warpgroup products
// (wgmma, sm_90a), whose TF32 rate is above mma.sync's: the lab measures both ceilings
// (gpu_tf32_wgmma_GFLOPs, gpu_tf32_tensor_GFLOPs).
//   - A first pass splits each operand once, into four matrices of exact TF32 values in the
//     rung's scratch: A's big and small parts as A lies (K-major), B's transposed (wgmma reads
//     TF32 tiles K-major only), their rows padded to a multiple of 4 floats for the copy engine.
//     The split is m14's (split_tf32), so the two rungs lose the same bits.
//   - A 128 x 128 tile of C per block of three warpgroups: one thread of the first asks the copy
//     engine for each K step's four 128 x 32 tiles (A big, A small, B big, B small: 64 KiB) into
//     one of 3 shared-memory stages, in the 128-byte swizzle wgmma reads; the other two
//     warpgroups each multiply 64 rows of the tile, 12 products of 64 x 128 x 8 a step, and free
//     the stage of the step before once its products are done (mbarriers both ways, no
//     __syncthreads in the loop).
//   - Outside the operands the copy engine fills zeros, so odd shapes need no padded copies;
//     C's edges are tested when it is stored.
// Floor at 8192^3: 3 x 1.10 PFLOP of TF32 products at Hopper's wgmma TF32 rate (~495 TFLOP/s
// at the H200's boost clock; the lab measures it) is 6.7 ms, plus the split (1.3 GB moved, ~0.35
// ms); m14 took 16.2 ms and cuBLAS's strict SGEMM 21.5 ms in one H200 run. Shared memory bounds
// the products at ~95% of that rate: a step moves 64 KiB in and 144 KiB out to the tensor cores
// (both warpgroups read all of B's tiles) in the 1,536 cycles its products take at 1,024 TF32
// multiply-adds a cycle an SM, 135 bytes a cycle against 128. Predicted 60-70% of the wgmma rate.
// Measured on the H200 (...-matmul-m16-first.json in git's history, one lab run): 8192^3
// 9.58 ms, 71.6% of the 481 TFLOP/s the lab's wgmma probe reached, 2.24x cuBLAS strict SGEMM and
// 1.68x m14; 4096^3 2.40x, 4093^3 2.44x (a second run, ...-matmul-m16-32ffc70.*: 8192^3 2.28x,
// 4096^3 2.39x); C with fewer tiles than SMs (128 x 8192 x 8192) 0.69x,
// where m14's K slices take over (policy.cpp).
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096^3 in 1.125 ms, 122
// TFLOP/s counting each multiply-add once, 2.39x cuBLAS strict SGEMM; 8192^3 9.40 ms, 2.29x; 128 x
// 8192 x 8192 0.68x (64 tiles of C for 132 SMs).
#include <cuda/ptx>

#include "core/cuda/copy_engine.cuh"
#include "core/cuda/tensor_cores.cuh"
#include "matmul/cuda/tensor_core_rung.cuh"  // store_mma_tiles

namespace pplab::detail::matmul_cuda {

namespace {

constexpr int BM = 128, BN = 128, BK = 32;  // BK: one 128-byte row of the swizzle
constexpr int STAGES = 3;
constexpr int NT = 3 * 128;              // the copying warpgroup and two that multiply
constexpr int tile_bytes = BM * BK * 4;  // each of the four tiles of a step (BN = BM)
constexpr int stage_bytes = 4 * tile_bytes;
// The stages, the full and free barriers, and room to align the stages to 1024 bytes.
constexpr std::size_t shared_bytes = STAGES * stage_bytes + 2 * STAGES * 8 + 1024;

// The four operands the first pass makes, as the copy engine reads them.
struct split_maps {
  CUtensorMap a_big, a_small, b_big, b_small;
};

// The split: out_big[r][c] + out_small[r][c] = in[r][c] (to 2^-22 of it), in's rows r < rows, its
// columns c < cols; with `transposed`, out's [c][r]. A 32 x 32 tile per block of 32 x 8 threads
// through shared memory, so that the reads and the writes are both along rows.
template <bool transposed>
__global__ void split_kernel(const float* in, std::size_t ld_in, std::size_t rows, std::size_t cols,
                             float* out_big, float* out_small, std::size_t ld_out) {
  __shared__ float tile[32][33];
  const std::size_t r0 = std::size_t(blockIdx.y) * 32, c0 = std::size_t(blockIdx.x) * 32;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  for (int i = ty; i < 32; i += 8) {
    const std::size_t r = r0 + i, c = c0 + tx;
    tile[i][tx] = r < rows && c < cols ? in[r * ld_in + c] : 0.0f;
  }
  __syncthreads();
  for (int i = ty; i < 32; i += 8) {
    // Not transposed: row r0 + i, column c0 + tx; transposed: out's row c0 + i, column r0 + tx.
    const std::size_t r = transposed ? c0 + i : r0 + i, c = transposed ? r0 + tx : c0 + tx;
    if (r >= (transposed ? cols : rows) || c >= (transposed ? rows : cols)) continue;
    unsigned big, small;
    split_tf32(transposed ? tile[tx][i] : tile[i][tx], big, small);
    out_big[r * ld_out + c] = __uint_as_float(big);
    out_small[r * ld_out + c] = __uint_as_float(small);
  }
}

__global__ void __launch_bounds__(NT, 1)
    wgmma_split_kernel(const __grid_constant__ split_maps maps, gemm<float> g, bool c_aligned) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ unsigned char raw[];
  unsigned char* const stages = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(raw) + 1023) / 1024 * 1024);
  std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(stages + STAGES * stage_bytes);
  std::uint64_t* const emptied = full + STAGES;
  // A stage: A's small tile, A's big tile, B's big tile, B's small tile.
  enum { a_small, a_big, b_big, b_small };
  const int tid = int(threadIdx.x), group = tid / 128;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);       // the copying thread's arrival, and the bytes
      cuda::ptx::mbarrier_init(&emptied[s], 256);  // every multiplying thread
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const int steps = int((g.k + BK - 1) / BK);
  const int m0 = int(blockIdx.y) * BM, n0 = int(blockIdx.x) * BN;
  if (group == 0) {
    if (tid != 0) return;
    for (int k = 0; k < steps; ++k) {
      const int s = k % STAGES;
      // The stage's last use (step k - STAGES) is done: its free barrier's phase (k / STAGES - 1).
      if (k >= STAGES)
        while (
            !cuda::ptx::mbarrier_try_wait_parity(&emptied[s], std::uint32_t(k / STAGES - 1) & 1)) {
        }
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                           cuda::ptx::space_shared, &full[s], stage_bytes);
      unsigned char* const at = stages + s * stage_bytes;
      const std::int32_t a_at[2] = {k * BK, m0}, b_at[2] = {k * BK, n0};
      const auto copy = [&](int which, const CUtensorMap& map, const std::int32_t(&xy)[2]) {
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                        at + which * tile_bytes, &map, xy, &full[s]);
      };
      copy(a_small, maps.a_small, a_at), copy(a_big, maps.a_big, a_at);
      copy(b_big, maps.b_big, b_at), copy(b_small, maps.b_small, b_at);
    }
    return;
  }
  // A multiplying warpgroup: rows 64 (group - 1) of the block's tile.
  const int half = group - 1;
  float acc[64] = {};
  for (int k = 0; k < steps; ++k) {
    const int s = k % STAGES;
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[s], std::uint32_t(k / STAGES) & 1)) {
    }
    const unsigned char* const at = stages + s * stage_bytes;
    const unsigned char* const a_rows = at + half * (64 * BK * 4);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 8; ++kk) {
      const int step = kk * 32;  // 8 TF32 values a K step: 32 bytes along the swizzled row
      const std::uint64_t as = wgmma_tile_128b(a_rows + a_small * tile_bytes + step),
                          ab = wgmma_tile_128b(a_rows + a_big * tile_bytes + step),
                          bb = wgmma_tile_128b(at + b_big * tile_bytes + step),
                          bs = wgmma_tile_128b(at + b_small * tile_bytes + step);
      // The small cross terms first, the big product last, as m14.
      wgmma_64x128x8_tf32(acc, as, bb);
      wgmma_64x128x8_tf32(acc, ab, bs);
      wgmma_64x128x8_tf32(acc, ab, bb);
    }
    wgmma_commit();
    // The step before's products are done: its stage may be filled again.
    wgmma_wait<1>();
    if (k > 0) cuda::ptx::mbarrier_arrive(&emptied[(k - 1) % STAGES]);
  }
  wgmma_wait<0>();
  const int lane = tid % warp, w = tid / warp % 4;
  store_mma_tiles(g, reinterpret_cast<const float(&)[1][16][4]>(acc),
                  std::size_t(m0) + half * 64 + w * 16, std::size_t(n0), lane, c_aligned);
#endif
}

// The scratch's row length: K rounded up to 4 floats, the copy engine's 16 bytes.
std::size_t padded_k(std::size_t k) { return (k + 3) / 4 * 4; }

bool built() {
  static const bool yes = [] {
    return kernel_built_for(wgmma_split_kernel, 90) && wgmma_in_build() && tensor_map_encoder();
  }();
  return yes;
}

// f32 where this build's kernel has the warpgroup products (sm_90a) and the grids fit (the
// split's: K under 2^21).
bool can_run(const matmul_problem& p) {
  return p.type == dtype::f32 && grid_fits(p) && ceil_div(p.k, 32) < 65536 && built();
}

std::size_t scratch(const matmul_problem& p) {
  return 2 * (p.m + p.n) * padded_k(p.k) * sizeof(float);
}

void run(const matmul_call& c) {
  if (c.p.m == 0 || c.p.n == 0) return;
  if (c.p.k == 0) return m08_double_buffered.run(c);  // C = beta C
  const auto s = static_cast<cudaStream_t>(c.stream);
  const gemm<float> g = typed<float>(c);
  const std::size_t kp = padded_k(g.k);
  float* const a_big = static_cast<float*>(c.scratch);
  float* const a_small = a_big + g.m * kp;
  float* const b_big = a_small + g.m * kp;
  float* const b_small = b_big + g.n * kp;
  const dim3 split_block(32, 8);
  split_kernel<false>
      <<<dim3(unsigned(ceil_div(g.k, 32)), unsigned(ceil_div(g.m, 32))), split_block, 0, s>>>(
          g.a, g.lda, g.m, g.k, a_big, a_small, kp);
  PPLAB_CUDA_LAUNCHED();
  split_kernel<true>
      <<<dim3(unsigned(ceil_div(g.n, 32)), unsigned(ceil_div(g.k, 32))), split_block, 0, s>>>(
          g.b, g.ldb, g.k, g.n, b_big, b_small, kp);
  PPLAB_CUDA_LAUNCHED();
  split_maps maps{};
  const auto map = [&](CUtensorMap& m, const float* start, std::size_t rows) {
    if (!encode_matrix_map(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, start, rows, g.k, kp * 4, BM, BK,
                           CU_TENSOR_MAP_SWIZZLE_128B))
      throw error(errc::device, "matmul m16: the copy engine's tensor map could not be encoded");
  };
  map(maps.a_big, a_big, g.m), map(maps.a_small, a_small, g.m);
  map(maps.b_big, b_big, g.n), map(maps.b_small, b_small, g.n);
  allow_shared(wgmma_split_kernel, shared_bytes);
  wgmma_split_kernel<<<dim3(unsigned(ceil_div(g.n, BN)), unsigned(ceil_div(g.m, BM))), NT,
                       shared_bytes, s>>>(maps, g, rows_aligned(g.c, g.ldc));
  PPLAB_CUDA_LAUNCHED();
}

}  // namespace

extern const matmul_rung m16_f32_split_tf32_wgmma{
    .info = {.step = 16,
             .summary = "m14's three TF32 products on Hopper's warpgroup products (wgmma), the "
                        "operands split once by a first pass, tiles by the copy engine (opt-in)",
             .opt_in = true,
             .tf32_split = true},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
