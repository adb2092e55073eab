// matmul/cuda/m20_f32_split_tf32_wgmma_fused: m16's three TF32 products on the warpgroup
// products, the operands split inside the kernel rather than by a first pass over memory, and a
// stack of products (numpy.matmul's, torch.bmm's) in one launch, the product along the grid's z.
// m16's first pass moves each operand three times through memory (read, two parts written, read
// again): at 8192^3 a few percent, but a stack of 256 products of 512^3 would spend more on it than
// on its products (~2.7 GB moved against 0.6 ms of products), and m14 (mma.sync, split in
// registers) reaches 1.3-1.6x cuBLAS there.
//   - The copy engine brings each K step's raw f32 tiles of A (128 x 32, K-major, the 128-byte
//     swizzle) and of B (32 x 128 as B lies, N-major: four 32 x 32 boxes, swizzled) into one of 3
//     stages, from 3-D maps whose third coordinate is the product (a broadcast operand: one
//     matrix); outside a product's matrices it fills zeros.
//   - wgmma reads TF32 tiles from shared memory K-major only, so the two multiplying warpgroups
//     transpose B's raw tile into its big and small parts, K-major in the swizzle wgmma reads
//     (each warpgroup half of it, 16 values a thread), and take their 64 rows of A into registers
//     in the layout the register form of wgmma reads, split there (16 values a thread a step).
//   - 12 products of 64 x 128 x 8 a warpgroup a step (small big, big small, big big, as m14).
//     Shared memory a step: 32 KiB copied in, B's 16 KiB read and 32 KiB written by the split,
//     A's 16 KiB read, 96 KiB read by the products: 192 KiB in the ~1,536 cycles the products
//     take at the SM's TF32 rate, against 128 bytes a cycle (196 KiB): at the limit.
// Predicted: 256 x 512^3 ~0.7 ms (60% of the wgmma TF32 rate), 2x torch.bmm's strict 1.46 ms.
// Measured (H200, one lab run, bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, its
// 2026-12-03 third section): 256 x 512^3 0.870 ms, 237 TFLOP/s of TF32 products (49% of the
// wgmma rate), 1.58x cuBLAS strict and 1.20x m14; 4096 x 128^3 0.329 ms against m14's 0.290 (four
// K steps: the pipeline's fill and drain with one block an SM); one product of 8192^3 12.17 ms
// against m16's 9.76 (its first pass is a few percent there). The miss: each step's A is split
// only after the step before's products are waited for (the tensor cores idle meanwhile), and
// shared memory is at its limit. The same errors as m14's and m16's (the same split, the same
// order of terms).
#include <cuda/ptx>

#include "core/cuda/copy_engine.cuh"
#include "core/cuda/tensor_cores.cuh"
#include "matmul/cuda/tensor_core_rung.cuh"  // store_mma_tiles

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m14_f32_split_tf32;

namespace {

constexpr int BM = 128, BN = 128, BK = 32;  // BK: one 128-byte row of the swizzle
constexpr int STAGES = 3;
constexpr int NT = 3 * 128;  // the copying warpgroup and two that split and multiply
constexpr int tile_bytes = BM * BK * 4;
// A stage: A's raw tile, B's raw tile (four 32 x 32 boxes), B's big and small parts K-major.
enum { a_raw, b_raw, b_big, b_small };
constexpr int stage_bytes = 4 * tile_bytes;
constexpr int copied_bytes = 2 * tile_bytes;  // what the copy engine brings a step
constexpr std::size_t shared_bytes = STAGES * stage_bytes + 2 * STAGES * 8 + 1024;
constexpr std::size_t most_z = 65535;  // the grid's third dimension

struct stack_maps {
  CUtensorMap a, b;
};

// The byte of value (r, c) in a tile of 128-byte rows in the copy engine's 128-byte swizzle: the
// 16-byte piece c / 4 of row r at piece (c / 4) ^ (r % 8).
__device__ inline unsigned swizzled(unsigned r, unsigned c) {
  return r * 128 + (((c / 4) ^ (r % 8)) * 16) + (c % 4) * 4;
}

__global__ void __launch_bounds__(NT, 1)
    fused_split_kernel(const __grid_constant__ stack_maps maps, gemm<float> g, bool a_stacked,
                       bool b_stacked, bool c_aligned) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ unsigned char raw[];
  unsigned char* const stages = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(raw) + 1023) / 1024 * 1024);
  std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(stages + STAGES * stage_bytes);
  std::uint64_t* const emptied = full + STAGES;
  const int tid = int(threadIdx.x), group = tid / 128;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);     // the copying thread's arrival, and the bytes
      cuda::ptx::mbarrier_init(&emptied[s], 1);  // one multiplying thread, after both split it
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const int steps = int((g.k + BK - 1) / BK);
  const int m0 = int(blockIdx.y) * BM, n0 = int(blockIdx.x) * BN, z = int(blockIdx.z);
  if (group == 0) {
    if (tid != 0) return;
    const int za = a_stacked ? z : 0, zb = b_stacked ? z : 0;
    for (int k = 0; k < steps; ++k) {
      const int s = k % STAGES;
      if (k >= STAGES)
        while (
            !cuda::ptx::mbarrier_try_wait_parity(&emptied[s], std::uint32_t(k / STAGES - 1) & 1)) {
        }
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                           cuda::ptx::space_shared, &full[s], copied_bytes);
      unsigned char* const at = stages + s * stage_bytes;
      const std::int32_t a_at[3] = {k * BK, m0, za};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                      at + a_raw * tile_bytes, &maps.a, a_at, &full[s]);
      for (int j = 0; j < 4; ++j) {  // B's 32 rows of K, 32 columns a box
        const std::int32_t b_at[3] = {n0 + 32 * j, k * BK, zb};
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                        at + b_raw * tile_bytes + j * 4096, &maps.b, b_at,
                                        &full[s]);
      }
    }
    return;
  }
  // A multiplying warpgroup: rows 64 half of the tile; B's columns 64 half split by it.
  const int half = group - 1, me = tid % 128, lane = tid % warp, w = me / warp;
  // The split of B: this thread's column n of the tile, and its K quads q0, q0 + 2, q0 + 4, q0 + 6
  // (a warp's 32 neighbouring columns: its reads and its 16-byte writes hit every bank once).
  const unsigned n = unsigned(64 * half + me % 64), q0 = unsigned(me / 64);
  const unsigned b_box = (n / 32) * 4096, nl = n % 32;
  // A's registers: lane (gq, tq) of warp w, rows r0 = 64 half + 16 w + gq and r0 + 8, columns
  // 8 kk + tq and 8 kk + tq + 4 (r0 % 8 = gq: the swizzle of both rows).
  const unsigned gq = unsigned(lane / 4), tq = unsigned(lane % 4);
  const unsigned r0 = unsigned(64 * half + 16 * w) + gq;
  float acc[64] = {};
  for (int k = 0; k < steps; ++k) {
    const int s = k % STAGES;
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[s], std::uint32_t(k / STAGES) & 1)) {
    }
    unsigned char* const at = stages + s * stage_bytes;
    // B's raw (k, n) into its big and small parts at (n, k), four K values a 16-byte store. The
    // stage's parts were last read by the products of step k - 3, done (waited for at step k - 2).
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const unsigned q = q0 + 2 * j;
      uint4 big, small;
      unsigned* const bw = &big.x;
      unsigned* const sw = &small.x;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const unsigned kq = 4 * q + e;
        const float x =
            *reinterpret_cast<const float*>(at + b_raw * tile_bytes + b_box + swizzled(kq, nl));
        split_tf32(x, bw[e], sw[e]);
      }
      *reinterpret_cast<uint4*>(at + b_big * tile_bytes + swizzled(n, 4 * q)) = big;
      *reinterpret_cast<uint4*>(at + b_small * tile_bytes + swizzled(n, 4 * q)) = small;
    }
    wgmma_shared_stores_fence();
    // The products of step k - 1 done: A's registers free again.
    wgmma_wait<0>();
    unsigned a_big[4][4], a_small[4][4];
    const unsigned char* const a_tile = at + a_raw * tile_bytes;
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // rows r0, r0 + 8, r0, r0 + 8; columns t, t, t + 4, t + 4
        const unsigned r = r0 + (e % 2) * 8, c = 8 * kk + tq + (e / 2) * 4;
        split_tf32(*reinterpret_cast<const float*>(a_tile + swizzled(r, c)), a_big[kk][e],
                   a_small[kk][e]);
      }
    // Both warpgroups' halves of B's parts written, and the stage's raw tiles read by both.
    asm volatile("bar.sync 1, 256;\n" ::: "memory");
    if (me == 0 && half == 0) cuda::ptx::mbarrier_arrive(&emptied[s]);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const std::uint64_t bb = wgmma_tile_128b(at + b_big * tile_bytes + kk * 32),
                          bs = wgmma_tile_128b(at + b_small * tile_bytes + kk * 32);
      wgmma_64x128x8_tf32(acc, a_small[kk], bb);
      wgmma_64x128x8_tf32(acc, a_big[kk], bs);
      wgmma_64x128x8_tf32(acc, a_big[kk], bb);
    }
    wgmma_commit();
  }
  wgmma_wait<0>();
  g.c += std::size_t(z) * g.stride_c;
  store_mma_tiles(g, reinterpret_cast<const float(&)[1][16][4]>(acc),
                  std::size_t(m0) + half * 64 + w * 16, std::size_t(n0), lane, c_aligned);
#endif
}

bool built() {
  static const bool yes = [] {
    return kernel_built_for(fused_split_kernel, 90) && wgmma_in_build() && tensor_map_encoder();
  }();
  return yes;
}

// f32 where this build's kernel has the warpgroup products (sm_90a) and m14, its fallback for
// operands the copy engine cannot read (rows or matrices not 16 bytes apart), can run.
bool can_run(const matmul_problem& p) {
  return p.type == dtype::f32 && ceil_div(p.m, BM) < 65536 && ceil_div(p.n, BN) < 65536 &&
         ceil_div(p.k, BK) < (1 << 30) && m14_f32_split_tf32.can_run(p) && built();
}

std::size_t scratch(const matmul_problem& p) { return m14_f32_split_tf32.scratch_bytes(p); }

bool readable(const void* p, std::size_t ld, std::size_t stride) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0 && stride % 4 == 0;
}

void run(const matmul_call& c) {
  if (c.p.m == 0 || c.p.n == 0 || c.p.batch == 0) return;
  const bool a_stacked = c.p.batch > 1 && c.stride_a != 0,
             b_stacked = c.p.batch > 1 && c.stride_b != 0;
  if (c.p.k == 0 || !readable(c.a, c.lda, c.stride_a) || !readable(c.b, c.ldb, c.stride_b))
    return m14_f32_split_tf32.run(c);
  const auto s = static_cast<cudaStream_t>(c.stream);
  const gemm<float> g = typed<float>(c);
  const bool c_aligned = rows_aligned(g.c, g.ldc) && (c.p.batch == 1 || g.stride_c % 2 == 0);
  allow_shared(fused_split_kernel, shared_bytes);
  for (std::size_t first = 0; first < c.p.batch; first += most_z) {
    const std::size_t count = std::min(most_z, c.p.batch - first);
    stack_maps maps{};
    const float* const a = g.a + (a_stacked ? first * g.stride_a : 0);
    const float* const b = g.b + (b_stacked ? first * g.stride_b : 0);
    if (!encode_stack_map(&maps.a, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, a, a_stacked ? count : 1,
                          g.m, g.k, g.lda * 4, g.stride_a * 4, BM, BK,
                          CU_TENSOR_MAP_SWIZZLE_128B) ||
        !encode_stack_map(&maps.b, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, b, b_stacked ? count : 1,
                          g.k, g.n, g.ldb * 4, g.stride_b * 4, BK, 32, CU_TENSOR_MAP_SWIZZLE_128B))
      throw error(errc::device, "matmul m20: the copy engine's tensor map could not be encoded");
    gemm<float> part = g;
    part.c += first * g.stride_c;
    const dim3 grid(unsigned(ceil_div(g.n, BN)), unsigned(ceil_div(g.m, BM)), unsigned(count));
    fused_split_kernel<<<grid, NT, shared_bytes, s>>>(maps, part, a_stacked, b_stacked, c_aligned);
    PPLAB_CUDA_LAUNCHED();
  }
}

}  // namespace

extern const matmul_rung m20_f32_split_tf32_wgmma_fused{
    .info = {.step = 20,
             .summary = "m16's three TF32 products with the split inside the kernel (B transposed "
                        "in shared memory, A split in registers), a stack in one launch (opt-in)",
             .opt_in = true,
             .tf32_split = true},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
