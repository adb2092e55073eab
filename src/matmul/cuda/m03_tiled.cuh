#pragma once
// matmul/cuda/m03_tiled: the tiling notes' tiled kernel, the three m03 rungs' (m03_tiled_w8, _w16,
// _w32, one file each). A block of TW x TW threads computes a TW x TW tile of C; it walks the K
// dimension in steps of TW, each step loading one TW x TW tile of A and one of B into shared memory
// (each thread one element of each), __syncthreads() so the tiles are whole before anyone reads
// them, TW multiply-adds per thread from shared memory, and __syncthreads() again so no thread
// overwrites a tile another is still reading. Elements past the edges of A and B load as zero, so
// sizes need not be multiples of TW; only threads inside C store. Registered at TW = 8, 16 and 32:
// each element loaded from global memory is used TW times, so the arithmetic per loaded float is TW
// / 4 flops per byte in f32 (2 TW flops per 2 loads of 4 bytes), against 1/4 for m02; shared memory
// per block is 2 TW^2 elements (TW = 32, f32: 8 KiB), threads per block TW^2 (8: 64 threads, too
// few per block for the hardware's block limit to fill an SM; 32: 1024, one block's barrier stalls
// all of them).
#include <string>

#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {

template <class T, int TW> __global__ void tiled(gemm<T> g) {
  __shared__ T as[TW][TW], bs[TW][TW];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::size_t i = std::size_t(blockIdx.y) * TW + ty, j = std::size_t(blockIdx.x) * TW + tx;
  T acc = 0;
  for (std::size_t l0 = 0; l0 < g.k; l0 += TW) {
    as[ty][tx] = i < g.m && l0 + tx < g.k ? g.a[i * g.lda + l0 + tx] : T(0);
    bs[ty][tx] = l0 + ty < g.k && j < g.n ? g.b[(l0 + ty) * g.ldb + j] : T(0);
    __syncthreads();  // the tiles are whole
#pragma unroll
    for (int l = 0; l < TW; ++l) acc += as[ty][l] * bs[l][tx];
    __syncthreads();  // everyone is done with them
  }
  if (i < g.m && j < g.n) store(&g.c[i * g.ldc + j], acc, g.alpha, g.beta);
}

template <int TW> struct tiled_launch {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    tiled<T, TW><<<grid_over(g.m, g.n, TW, TW), dim3(TW, TW), 0, s>>>(g);
    PPLAB_CUDA_LAUNCHED();
  }
};

template <int TW> void tiled_run(const matmul_call& c) {
  dispatch_matmul<tiled_launch<TW>>(c, static_cast<cudaStream_t>(c.stream));
}

// The tiling notes' tile-size trade-off, measured by the lab: each loaded element is used TW times
// (2 TW flops per 2 loads: TW / 4 flop per byte in f32, TW / 8 in f64) against the shared memory
// and threads a block takes and the blocks an SM then holds.
template <int TW> std::string tiled_explain(const matmul_problem& p) {
  const bool f32 = p.type == dtype::f32;
  const std::string use =
      std::to_string(TW) + " flops per loaded element (" +
      (f32 ? std::to_string(TW / 4.0).substr(0, 4) : std::to_string(TW / 8.0).substr(0, 4)) +
      " per byte)";
  return (f32 ? launch_facts(tiled<float, TW>, TW * TW)
              : launch_facts(tiled<double, TW>, TW * TW)) +
         ", " + use;
}

}  // namespace pplab::detail::matmul_cuda
