// matmul/cuda/m04_register_strip: 1-D register tiling. In m03 every multiply-add reads two
// operands from shared memory, so shared memory, not arithmetic, sets the pace (two loads per
// FMA). Here a block of 512 threads computes a 64 x 64 tile of C, stepping K by 8, and each
// thread a strip of TM = 8 elements down one column: per k it reads one element of B from shared
// memory into a register and reuses it for 8 FMAs with 8 elements of A (the same for the whole
// warp, so one broadcast read each). Shared-memory reads per FMA fall from 2 to 9/8; the global
// reads per FMA fall too (a 64 x 64 tile instead of 32 x 32: each loaded element is used 64
// times). The tile loads and the edges are the shared loaders' (matmul_cuda.cuh).
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 9.268 ms,
// 14830 GFLOP/s (26.6% of the FMA peak), 0.29x cuBLAS's speed.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {
namespace {

constexpr int BM = 64, BN = 64, BK = 8, TM = 8, NT = BM * BN / TM;

template <class T> __global__ void __launch_bounds__(NT) strip(gemm<T> g) {
  __shared__ T as[BM * BK], bs[BK * BN];
  const std::size_t row0 = std::size_t(blockIdx.y) * BM, col0 = std::size_t(blockIdx.x) * BN;
  const int col = int(threadIdx.x) % BN, strip_row = int(threadIdx.x) / BN * TM;
  T acc[TM] = {};
  for (std::size_t k0 = 0; k0 < g.k; k0 += BK) {
    load_tile<BM, BK, NT, false>(g.a, g.lda, g.m, g.k, row0, k0, as);
    load_tile<BK, BN, NT, false>(g.b, g.ldb, g.k, g.n, k0, col0, bs);
    __syncthreads();  // the tiles are whole
#pragma unroll
    for (int l = 0; l < BK; ++l) {
      const T b = bs[l * BN + col];
#pragma unroll
      for (int t = 0; t < TM; ++t) acc[t] += as[(strip_row + t) * BK + l] * b;
    }
    __syncthreads();  // everyone is done with them
  }
#pragma unroll
  for (int t = 0; t < TM; ++t) store_strip<1>(g, row0 + strip_row + t, col0 + col, acc + t, false);
}

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    strip<T><<<grid_over(g.m, g.n, BM, BN), NT, 0, s>>>(g);
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace

extern const matmul_rung m04_register_strip{
    .info = {.step = 4,
             .summary = "1-D register tiling: 8 results down a column per thread, 64 x 64 tiles"},
    .can_run = grid_fits,
    .run =
        [](const matmul_call& c) { dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream)); },
};

}  // namespace pplab::detail::matmul_cuda
