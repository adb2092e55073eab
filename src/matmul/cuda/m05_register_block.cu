// matmul/cuda/m05_register_block: 2-D register tiling. Each of 256 threads computes an 8 x 8
// block of a 128 x 128 tile of C: per k it reads 8 elements of A's column and 8 of B's row into
// registers and makes their outer product, 64 FMAs for 16 shared-memory reads (1/4 read per FMA,
// against 9/8 in m04), and each element loaded from global memory is used 128 times. The A tile
// stays row-major as loaded, so a thread's 8 reads of A's column are 8 words a row apart, and the
// 16 threads of a half-warp read B's row 8 words apart: bank conflicts, which m06 removes.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 6.586 ms,
// 20867 GFLOP/s (37.4% of the FMA peak), 0.41x cuBLAS's speed.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {
namespace {

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, NT = BM * BN / (TM * TN);

template <class T> __global__ void __launch_bounds__(NT) block(gemm<T> g, bool c_aligned) {
  __shared__ T as[BM * BK], bs[BK * BN];
  const std::size_t row0 = std::size_t(blockIdx.y) * BM, col0 = std::size_t(blockIdx.x) * BN;
  const int tr = int(threadIdx.x) / (BN / TN) * TM, tc = int(threadIdx.x) % (BN / TN) * TN;
  T acc[TM][TN] = {}, ra[TM], rb[TN];
  for (std::size_t k0 = 0; k0 < g.k; k0 += BK) {
    load_tile<BM, BK, NT, false>(g.a, g.lda, g.m, g.k, row0, k0, as);
    load_tile<BK, BN, NT, false>(g.b, g.ldb, g.k, g.n, k0, col0, bs);
    __syncthreads();  // the tiles are whole
#pragma unroll
    for (int l = 0; l < BK; ++l) {
#pragma unroll
      for (int t = 0; t < TM; ++t) ra[t] = as[(tr + t) * BK + l];
#pragma unroll
      for (int u = 0; u < TN; ++u) rb[u] = bs[l * BN + tc + u];
#pragma unroll
      for (int t = 0; t < TM; ++t)
#pragma unroll
        for (int u = 0; u < TN; ++u) acc[t][u] += ra[t] * rb[u];
    }
    __syncthreads();  // everyone is done with them
  }
#pragma unroll
  for (int t = 0; t < TM; ++t) store_strip<TN>(g, row0 + tr + t, col0 + tc, acc[t], c_aligned);
}

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    block<T><<<grid_over(g.m, g.n, BM, BN), NT, 0, s>>>(g, alignment<T>(g).c);
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace

extern const matmul_rung m05_register_block{
    .info = {.step = 5,
             .summary = "2-D register tiling: 8 x 8 results per thread, 128 x 128 tiles"},
    .can_run = grid_fits,
    .run =
        [](const matmul_call& c) { dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream)); },
};

}  // namespace pplab::detail::matmul_cuda
