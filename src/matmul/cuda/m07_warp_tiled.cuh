#pragma once
// matmul/cuda/m07_warp_tiled: the kernel of the two m07 rungs (m07_warp_tiled_8x16, _8x8). A level
// between the block and the thread. Each warp owns a WM x WN tile of the block's C tile and walks
// it as sub-tiles small enough that its 32 lanes cover one with TM x TN = 8 x 4 elements each
// (warp_tiling in matmul_cuda.cuh). What it buys: a warp's shared-memory reads of A's column are 2
// addresses and of B's row 4 consecutive 16-byte chunks (broadcasts, no conflicts, whatever the
// block size), the threads of a warp work on one compact region of C (its operands stay in the same
// few shared-memory lines), and the register tile per thread becomes a tuning knob separate from
// the block tile. Registered with two tilings of the same 128 x 128 x 16 block tile: 128 threads of
// 8 x 16 results (more registers, more reuse per load) and 256 threads of 8 x 8 (more warps to hide
// latency). A stored transposed as in m06.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {

template <class T, class P>
__global__ void __launch_bounds__(P::NT) warp_tiled(gemm<T> g, alignment<T> aligned) {
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, TM = P::TM, TN = P::TN;
  constexpr int MI = P::WMITER, NI = P::WNITER;
  __shared__ alignas(16) T as[BK * BM];  // transposed: as[l * BM + i]
  __shared__ alignas(16) T bs[BK * BN];
  const std::size_t row0 = std::size_t(blockIdx.y) * BM, col0 = std::size_t(blockIdx.x) * BN;
  const int w = int(threadIdx.x) / warp, lane = int(threadIdx.x) % warp;
  const int wr = w / (BN / P::WN) * P::WM, wc = w % (BN / P::WN) * P::WN;
  const int tr = lane / (P::WSUBN / TN) * TM, tc = lane % (P::WSUBN / TN) * TN;
  T acc[MI * TM][NI * TN] = {}, ra[MI * TM], rb[NI * TN];
  for (std::size_t k0 = 0; k0 < g.k; k0 += BK) {
    load_tile_vec<BM, BK, P::NT, true>(g.a, g.lda, g.m, g.k, row0, k0, as, aligned.a);
    load_tile_vec<BK, BN, P::NT, false>(g.b, g.ldb, g.k, g.n, k0, col0, bs, aligned.b);
    __syncthreads();  // the tiles are whole
#pragma unroll
    for (int l = 0; l < BK; ++l) {
#pragma unroll
      for (int i = 0; i < MI; ++i) read_vec<TM>(ra + i * TM, as + l * BM + wr + i * P::WSUBM + tr);
#pragma unroll
      for (int j = 0; j < NI; ++j) read_vec<TN>(rb + j * TN, bs + l * BN + wc + j * P::WSUBN + tc);
#pragma unroll
      for (int t = 0; t < MI * TM; ++t)
#pragma unroll
        for (int u = 0; u < NI * TN; ++u) acc[t][u] += ra[t] * rb[u];
    }
    __syncthreads();  // everyone is done with them
  }
  store_warp_results<P>(g, row0 + wr + tr, 1, col0 + wc + tc, acc, aligned.c);
}

template <class F32> struct warp_tiled_launch {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    using P = tiling_for<T, F32>;
    warp_tiled<T, P><<<grid_over(g.m, g.n, P::BM, P::BN), P::NT, 0, s>>>(g, alignment<T>(g));
    PPLAB_CUDA_LAUNCHED();
  }
};

template <class F32> void warp_tiled_run(const matmul_call& c) {
  dispatch_matmul<warp_tiled_launch<F32>>(c, static_cast<cudaStream_t>(c.stream));
}

}  // namespace pplab::detail::matmul_cuda
