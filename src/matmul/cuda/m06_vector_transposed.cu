// matmul/cuda/m06_vector_transposed: m05's tiling with 16-byte loads at both ends. A's tile is
// stored transposed (k outermost) as it is loaded, so a thread's 8 elements of A's column are
// consecutive words, read with 16-byte loads (the same address across a quarter-warp: one
// broadcast). A thread's 8 columns of B are two runs of 4, half a tile apart, so the 8 threads of
// a quarter-warp read 8 consecutive 16-byte chunks of B's row (distinct banks; m05's 8 contiguous
// columns per thread put them two to a bank). Four shared-memory loads per k instead of 16.
// Global memory is read 16 bytes per thread per load where the matrix allows it (rows_aligned;
// else by elements) and C is read and written 16 bytes at a time.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 3.789 ms,
// 36275 GFLOP/s (65.0% of the FMA peak), 0.71x cuBLAS's speed.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {
namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, NT = BM * BN / (TM * TN);

template <class T>
__global__ void __launch_bounds__(NT) vector_block(gemm<T> g, alignment<T> aligned) {
  __shared__ alignas(16) T as[BK * BM];  // transposed: as[l * BM + i]
  __shared__ alignas(16) T bs[BK * BN];
  const std::size_t row0 = std::size_t(blockIdx.y) * BM, col0 = std::size_t(blockIdx.x) * BN;
  constexpr int half = BN / 2;  // a thread's columns: tc .. tc + 3 and tc + half .. tc + half + 3
  const int tr = int(threadIdx.x) / (BN / TN) * TM, tc = int(threadIdx.x) % (BN / TN) * TN / 2;
  T acc[TM][TN] = {}, ra[TM], rb[TN];
  for (std::size_t k0 = 0; k0 < g.k; k0 += BK) {
    load_tile_vec<BM, BK, NT, true>(g.a, g.lda, g.m, g.k, row0, k0, as, aligned.a);
    load_tile_vec<BK, BN, NT, false>(g.b, g.ldb, g.k, g.n, k0, col0, bs, aligned.b);
    __syncthreads();  // the tiles are whole
#pragma unroll
    for (int l = 0; l < BK; ++l) {
      read_vec<TM>(ra, as + l * BM + tr);
      read_vec<TN / 2>(rb, bs + l * BN + tc);
      read_vec<TN / 2>(rb + TN / 2, bs + l * BN + tc + half);
#pragma unroll
      for (int t = 0; t < TM; ++t)
#pragma unroll
        for (int u = 0; u < TN; ++u) acc[t][u] += ra[t] * rb[u];
    }
    __syncthreads();  // everyone is done with them
  }
#pragma unroll
  for (int t = 0; t < TM; ++t) {
    store_strip<TN / 2>(g, row0 + tr + t, col0 + tc, acc[t], aligned.c);
    store_strip<TN / 2>(g, row0 + tr + t, col0 + tc + half, acc[t] + TN / 2, aligned.c);
  }
}

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    vector_block<T><<<grid_over(g.m, g.n, BM, BN), NT, 0, s>>>(g, alignment<T>(g));
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace

extern const matmul_rung m06_vector_transposed{
    .info = {.step = 6,
             .summary = "16-byte loads, A's tile transposed: no shared-memory bank conflicts"},
    .can_run = grid_fits,
    .run =
        [](const matmul_call& c) { dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream)); },
};

}  // namespace pplab::detail::matmul_cuda
