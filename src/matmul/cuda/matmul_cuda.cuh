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

}  // namespace pplab::detail::gpu_matmul
