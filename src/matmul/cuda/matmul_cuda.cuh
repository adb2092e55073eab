#pragma once
// What the GPU matmul rungs share on top of the CUDA toolbox: the call as a typed gemm<T> on the
// device (dispatch_matmul, matmul_common.hpp), the one store of a C element with the beta rule,
// and the grid of 2-D blocks over C.
#include <cuda_runtime.h>

#include "core/cuda/toolbox.cuh"
#include "matmul/matmul_common.hpp"

namespace pplab::detail::gpu_matmul {

// C = alpha * acc + beta * C; beta == 0 never reads C (NaN in C must not leak, as in BLAS).
template <class T> __device__ inline void store(T* c, T acc, T alpha, T beta) {
  *c = beta == T(0) ? alpha * acc : alpha * acc + beta * *c;
}

// Blocks of `rows` x `cols` threads over an m x n C, x along columns.
inline dim3 grid_over(std::size_t m, std::size_t n, unsigned rows, unsigned cols) {
  return dim3(unsigned(ceil_div(n, cols)), unsigned(ceil_div(m, rows)));
}

// Every rung: f32 and f64, and a grid that fits (65535 blocks of rows; C past 2^31 in a
// dimension is far past any GPU's memory anyway).
inline bool grid_fits(const matmul_problem& p) {
  return float_or_double(p) && ceil_div(p.m, 8) < 65536 &&
         ceil_div(p.n, 8) < (std::size_t(1) << 31);
}

// One thread per element of C, its dot product read straight from global memory (m01, m02):
// `x_along_rows` lays the fast thread index down the rows of C (m01: nothing coalesced) or along
// them (m02).
constexpr unsigned per_element_side = 16;

template <bool x_along_rows, class T> __global__ void per_element_kernel(gemm<T> g) {
  constexpr unsigned S = per_element_side;
  const unsigned r = x_along_rows ? threadIdx.x : threadIdx.y;
  const unsigned q = x_along_rows ? threadIdx.y : threadIdx.x;
  const std::size_t i = std::size_t(blockIdx.y) * S + r, j = std::size_t(blockIdx.x) * S + q;
  if (i >= g.m || j >= g.n) return;
  T acc = 0;
  for (std::size_t l = 0; l < g.k; ++l) acc += g.a[i * g.lda + l] * g.b[l * g.ldb + j];
  store(&g.c[i * g.ldc + j], acc, g.alpha, g.beta);
}

template <bool x_along_rows> struct per_element {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    constexpr unsigned S = per_element_side;
    per_element_kernel<x_along_rows, T><<<grid_over(g.m, g.n, S, S), dim3(S, S), 0, s>>>(g);
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace pplab::detail::gpu_matmul
