// matmul/cuda/m01_naive: one thread per element of C, the dot product of a row of A and a column
// of B read straight from global memory. Threads are laid out the way a first attempt often
// does it: x, the fast index within a warp, runs down the rows of C. So the 32 threads of a warp
// read 32 rows of A, each its own cache line, and write 32 rows of C: nothing is coalesced
// except the one element of B they all share.
// Work: 2 M N K flops, and 2 K loads per element of C from global memory (no reuse but the
// caches'): 2 M N K x 4 bytes of load traffic for f32 against 4 (M K + K N + M N) of data.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::gpu_matmul {
namespace {

constexpr unsigned S = 16;

template <class T> __global__ void naive(gemm<T> g) {
  const std::size_t i = std::size_t(blockIdx.y) * S + threadIdx.x;  // x along rows: uncoalesced
  const std::size_t j = std::size_t(blockIdx.x) * S + threadIdx.y;
  if (i >= g.m || j >= g.n) return;
  T acc = 0;
  for (std::size_t l = 0; l < g.k; ++l) acc += g.a[i * g.lda + l] * g.b[l * g.ldb + j];
  store(&g.c[i * g.ldc + j], acc, g.alpha, g.beta);
}

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    naive<T><<<grid_over(g.m, g.n, S, S), dim3(S, S), 0, s>>>(g);
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace

void m01_run(const matmul_call& c) {
  dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream));
}

}  // namespace pplab::detail::gpu_matmul
