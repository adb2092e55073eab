// matmul/cuda/m02_coalesced: m01 with the notes' mapping: x runs along the columns of C, so the
// 32 threads of a warp read 32 neighbouring elements of a row of B (one coalesced transaction),
// share one element of A (a broadcast), and write 32 neighbouring elements of C.
// What limits it: every element of A and B is still loaded from global memory (or L1/L2) once
// per use: K loads of B per element of C, 2 flops per 8 bytes loaded in f32.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::gpu_matmul {
namespace {

constexpr unsigned S = 16;

template <class T> __global__ void coalesced(gemm<T> g) {
  const std::size_t i = std::size_t(blockIdx.y) * S + threadIdx.y;
  const std::size_t j = std::size_t(blockIdx.x) * S + threadIdx.x;  // x along columns
  if (i >= g.m || j >= g.n) return;
  T acc = 0;
  for (std::size_t l = 0; l < g.k; ++l) acc += g.a[i * g.lda + l] * g.b[l * g.ldb + j];
  store(&g.c[i * g.ldc + j], acc, g.alpha, g.beta);
}

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    coalesced<T><<<grid_over(g.m, g.n, S, S), dim3(S, S), 0, s>>>(g);
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace

void m02_run(const matmul_call& c) {
  dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream));
}

}  // namespace pplab::detail::gpu_matmul
