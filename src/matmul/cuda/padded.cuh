#pragma once
// Operands copied into zero-padded whole tiles (m12, and the tensor-core rungs through
// tensor_core_rung.cuh): a kernel that needs every tile of A and B whole and 16-byte aligned then
// runs on any shape; the zeros add nothing to any sum, and C keeps its bounds tests.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {

// The padded shapes: A is mp x kp (row stride kp), B kp x np (row stride np).
template <class P> struct padded {
  std::size_t mp, kp, np;
  explicit padded(std::size_t m, std::size_t n, std::size_t k)
      : mp(ceil_div(m, P::BM) * P::BM), kp(ceil_div(k, P::BK) * P::BK),
        np(ceil_div(n, P::BN) * P::BN) {}
  std::size_t a_elements() const { return mp * kp; }
  std::size_t elements() const { return mp * kp + kp * np; }
};

// dst (rows_p x cols_p, row stride cols_p) = src (rows x cols, stride ld) with zeros around it:
// `top` rows of zeros above it (m15 puts K's padding first), the rest below and to the right.
// Blocks along the rows (y) and across the columns (x), so no index is divided. A thread writes
// one 16-byte vector (cols_p is a whole number of them) and reads its W elements with one
// 16-byte load where the source rows are aligned and the vector lies inside them, else one by one
// (all W in flight together).
template <class T>
__global__ void pad_copy(const T* __restrict__ src, std::size_t ld, std::size_t rows,
                         std::size_t cols, bool aligned, T* __restrict__ dst, std::size_t rows_p,
                         std::size_t cols_p, std::size_t top) {
  constexpr int W = vec_width<T>;
  for (std::size_t r = blockIdx.y; r < rows_p; r += gridDim.y) {
    const bool row_in = r >= top && r - top < rows;
    const T* const from = row_in ? src + (r - top) * ld : src;
    for (std::size_t c = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) * W; c < cols_p;
         c += std::size_t(gridDim.x) * blockDim.x * W) {
      T v[W];
      if (aligned && row_in && c + W <= cols) {
        load16(v, from + c);
      } else {
#pragma unroll
        for (int w = 0; w < W; ++w) v[w] = row_in && c + w < cols ? from[c + w] : T(0);
      }
      store16(dst + r * cols_p + c, v);
    }
  }
}

template <class T>
void launch_pad_copy(const T* src, std::size_t ld, std::size_t rows, std::size_t cols, T* dst,
                     std::size_t rows_p, std::size_t cols_p, cudaStream_t s, std::size_t top = 0) {
  const dim3 grid(unsigned(std::min<std::size_t>(ceil_div(cols_p / vec_width<T>, 256), 32)),
                  unsigned(std::min<std::size_t>(rows_p, 65535)));
  pad_copy<T>
      <<<grid, 256, 0, s>>>(src, ld, rows, cols, rows_aligned(src, ld), dst, rows_p, cols_p, top);
  PPLAB_CUDA_LAUNCHED();
}

// C = alpha S + beta C, S m x n with row stride lds: the results of a kernel that stored them
// 16 bytes at a time into S, moved to a C whose rows are not 16-byte aligned (m15). A block per
// row; a warp's accesses are 32 consecutive elements of it, so each 32-byte sector of C is
// written once or twice, where the kernel's own 4-byte stores would write it four times.
template <class T>
__global__ void store_staged(gemm<T> g, const T* __restrict__ staged, std::size_t lds) {
  constexpr int U = 4;  // a thread's loads in flight before its stores
  for (std::size_t r = blockIdx.x; r < g.m; r += gridDim.x) {
    const T* const from = staged + r * lds;
    T* const to = g.c + r * g.ldc;
    for (std::size_t j = threadIdx.x; j < g.n; j += U * blockDim.x) {
      T v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::size_t e = j + u * blockDim.x;
        v[u] = e < g.n ? from[e] : T(0);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::size_t e = j + u * blockDim.x;
        if (e < g.n) store(to + e, v[u], g.alpha, g.beta);
      }
    }
  }
}

template <class T>
void launch_store_staged(const gemm<T>& g, const T* staged, std::size_t lds, cudaStream_t s) {
  store_staged<T><<<unsigned(std::min<std::size_t>(g.m, 65535)), 256, 0, s>>>(g, staged, lds);
  PPLAB_CUDA_LAUNCHED();
}

// g over P's whole tiles: A and B copied into zero-padded buffers at `scratch` (A's first, then
// B's: padded<P>::elements() in all) where their tiles are not whole or their rows not 16-byte
// aligned, and K rounded up to whole tiles (the zeros add nothing). C, M and N stay g's.
template <class P, class T> gemm<T> pad_operands(const gemm<T>& g, T* scratch, cudaStream_t s) {
  const padded<P> to(g.m, g.n, g.k);
  const alignment<T> aligned(g);
  gemm<T> whole = g;
  whole.k = to.kp;
  if (!(g.m == to.mp && g.k == to.kp && aligned.a)) {
    launch_pad_copy(g.a, g.lda, g.m, g.k, scratch, to.mp, to.kp, s);
    whole.a = scratch, whole.lda = to.kp;
  }
  if (!(g.n == to.np && g.k == to.kp && aligned.b)) {
    T* const bt = scratch + to.a_elements();
    launch_pad_copy(g.b, g.ldb, g.k, g.n, bt, to.kp, to.np, s);
    whole.b = bt, whole.ldb = to.np;
  }
  return whole;
}

}  // namespace pplab::detail::matmul_cuda
