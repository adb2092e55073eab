#pragma once
// What the GPU matmul rungs share on top of the CUDA toolbox: the call as a typed gemm<T> on the
// device (dispatch_matmul, matmul_common.hpp), the one store of a C element with the beta rule,
// the grid of 2-D blocks over C, and for the blocked rungs (m04 on) the tile loaders from global
// to shared memory (zero past the matrix's edges) and the store of a thread's strip of C.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/cuda/async_copy.cuh"
#include "core/cuda/toolbox.cuh"
#include "core/cuda/vector_access.cuh"
#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_cuda {

// C = alpha * acc + beta * C; beta == 0 never reads C (NaN in C must not leak, as in BLAS).
template <class T> __device__ inline void store(T* c, T acc, T alpha, T beta) {
  *c = beta == T(0) ? alpha * acc : alpha * acc + beta * *c;
}

// Blocks of `rows` x `cols` threads over an m x n C, x along columns.
inline dim3 grid_over(std::size_t m, std::size_t n, unsigned rows, unsigned cols) {
  return dim3(unsigned(ceil_div(n, cols)), unsigned(ceil_div(m, rows)));
}

// m08's record: the rung that takes what a faster one leaves (K = 0, whole tiles with unaligned
// rows).
extern const matmul_rung m08_double_buffered;

// Every rung: f32 and f64, and a grid that fits (65535 blocks of rows; C past 2^31 in a
// dimension is far past any GPU's memory anyway).
inline bool grid_fits(const matmul_problem& p) {
  return one_float_product(p) && ceil_div(p.m, 8) < 65536 &&
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

// Split K (m10, m13): block z of a grid's third dimension multiplies K's columns [z ks, (z + 1) ks)
// into parts + z m n (unscaled, row stride n); then C = alpha (parts[0] + ... + parts[count - 1])
// + beta C, the parts added in slice order: the same sum on every run.
template <class T> struct k_slices {
  T* parts = nullptr;  // null: the whole K, C stored directly
  std::size_t ks = 0;  // columns of K per slice, a multiple of BK
  bool parts_aligned = false;
};

// Block z's share where K is cut (slices.parts set): A and B moved to its slice, C its own part
// (unscaled, row stride n, `c_aligned` that part's alignment).
template <class T>
__device__ inline void take_slice(gemm<T>& g, const k_slices<T>& slices, bool& c_aligned) {
  if (!slices.parts) return;
  const std::size_t k0 = std::size_t(blockIdx.z) * slices.ks;
  g.a += k0, g.b += k0 * g.ldb, g.k = g.k - k0 < slices.ks ? g.k - k0 : slices.ks;
  g.c = slices.parts + std::size_t(blockIdx.z) * g.m * g.n, g.ldc = g.n;
  g.alpha = T(1), g.beta = T(0), c_aligned = slices.parts_aligned;
}

// Block z's product of a stack (m19: g's strides set, K not cut): its matrices z strides along.
template <class T> __device__ inline void take_product(gemm<T>& g) {
  const std::size_t z = blockIdx.z;
  g.a += z * g.stride_a, g.b += z * g.stride_b, g.c += z * g.stride_c;
}

// How K is cut (m10, m13, m14): as many slices as put a C of `tiles` tiles into one wave of `wave`
// blocks (a second, partial wave would leave SMs idle for a whole block's time), each at least
// min_k_slice deep, their depth a multiple of bk; one slice where the tiles fill a wave already.
constexpr std::size_t min_k_slice = 256;
struct k_cut {
  std::size_t count = 1, ks = 0;
  std::size_t parts_elements(std::size_t m, std::size_t n) const {
    return count > 1 ? count * m * n : 0;
  }
};
inline k_cut cut_k(std::size_t tiles, std::size_t k, std::size_t wave, std::size_t bk) {
  const std::size_t most = tiles >= wave ? 1 : wave / tiles;
  const std::size_t count = std::max<std::size_t>(1, std::min(most, k / min_k_slice));
  const std::size_t ks = ceil_div(ceil_div(k, count), bk) * bk;
  return {ks ? ceil_div(k, ks) : 1, ks};
}

template <class T> __global__ void add_parts(gemm<T> g, const T* parts, std::size_t count) {
  const std::size_t mn = g.m * g.n;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < mn;
       e += std::size_t(gridDim.x) * blockDim.x) {
    T sum = parts[e];
    for (std::size_t z = 1; z < count; ++z) sum += parts[z * mn + e];
    store(&g.c[e / g.n * g.ldc + e % g.n], sum, g.alpha, g.beta);
  }
}

template <class T>
void launch_add_parts(const gemm<T>& g, const T* parts, std::size_t count, cudaStream_t s) {
  const unsigned threads = 256;
  const unsigned blocks =
      unsigned(std::min<std::size_t>(ceil_div(g.m * g.n, threads), 8u * sm_count()));
  add_parts<T><<<blocks, threads, 0, s>>>(g, parts, count);
  PPLAB_CUDA_LAUNCHED();
}

// How `kernel` launches with `threads` per block on this device: shared memory and registers per
// block, blocks resident per SM and the occupancy that makes (the lab's note on the m03 rows).
template <class Kernel> std::string launch_facts(Kernel kernel, int threads) {
  cudaFuncAttributes a{};
  int blocks = 0, dev = 0, per_sm = 0;
  PPLAB_CUDA(cudaFuncGetAttributes(&a, kernel));
  PPLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0));
  PPLAB_CUDA(cudaGetDevice(&dev));
  PPLAB_CUDA(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  const std::size_t shared = a.sharedSizeBytes;
  return (shared >= 1024 ? std::to_string(shared >> 10) + " KiB" : std::to_string(shared) + " B") +
         " shared and " + std::to_string(threads) + " threads per block, " +
         std::to_string(a.numRegs) + " registers, " + std::to_string(blocks) + " blocks per SM (" +
         std::to_string(100 * blocks * threads / (per_sm ? per_sm : 1)) + "% occupancy)";
}

// ---- the blocked rungs (m04 on): blocks of NT threads in one dimension, one block per
// BM x BN tile of C, blockIdx.x along the columns.

// Vector loads and stores of a matrix are allowed when its pointer is 16-byte aligned and its
// rows are whole vectors apart (a view one element into a buffer, or ld = 4093, is read by
// elements: still coalesced across the warp, only more instructions).
template <class T> inline bool rows_aligned(const T* p, std::size_t ld) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % vec_width<T> == 0;
}

// Copies the R x C tile at (r0, c0) of a rows x cols matrix (row stride ld) into shared memory,
// zero past the matrix's edges, one element per thread per step: thread t takes elements t,
// t + NT, ... in row order, so a warp reads along a row (coalesced). Stored row-major (dst[r * C
// + c]) or transposed (dst[c * R + r]: A's tile with its k index outermost, so the compute loop
// reads a column of A as consecutive words).
template <int R, int C, int NT, bool transposed, class T>
__device__ inline void load_tile(const T* src, std::size_t ld, std::size_t rows, std::size_t cols,
                                 std::size_t r0, std::size_t c0, T* dst) {
  static_assert(R * C % NT == 0, "the threads share the tile evenly");
#pragma unroll
  for (int s = 0; s < R * C / NT; ++s) {
    const int e = int(threadIdx.x) + s * NT, r = e / C, c = e % C;
    const std::size_t gr = r0 + r, gc = c0 + c;
    const T v = gr < rows && gc < cols ? src[gr * ld + gc] : T(0);
    dst[transposed ? c * R + r : r * C + c] = v;
  }
}

// The same in two halves, so the loads of the next tile can be in flight while the current one
// is multiplied (m08): fetch_tile reads a thread's share of the tile into registers, one 16-byte
// load per step where `aligned` (rows_aligned) and the whole vector lies inside the matrix,
// element by element across the edges; put_tile stores them in shared memory.
template <int R, int C, int NT> constexpr int tile_share = R* C / NT;

template <int R, int C, int NT, class T>
__device__ inline void fetch_tile(const T* src, std::size_t ld, std::size_t rows, std::size_t cols,
                                  std::size_t r0, std::size_t c0, T* regs, bool aligned) {
  constexpr int W = vec_width<T>;
  static_assert(C % W == 0 && R * C / W % NT == 0, "the threads share the tile evenly");
#pragma unroll
  for (int s = 0; s < R * C / W / NT; ++s) {
    const int e = int(threadIdx.x) + s * NT, r = e / (C / W), c = e % (C / W) * W;
    const std::size_t gr = r0 + r, gc = c0 + c;
    T* v = regs + s * W;
    if (aligned && gr < rows && gc + W <= cols) {
      load16(v, src + gr * ld + gc);
    } else {
#pragma unroll
      for (int w = 0; w < W; ++w) v[w] = gr < rows && gc + w < cols ? src[gr * ld + gc + w] : T(0);
    }
  }
}

template <int R, int C, int NT, bool transposed, class T>
__device__ inline void put_tile(const T* regs, T* dst) {
  constexpr int W = vec_width<T>;
#pragma unroll
  for (int s = 0; s < R * C / W / NT; ++s) {
    const int e = int(threadIdx.x) + s * NT, r = e / (C / W), c = e % (C / W) * W;
    if constexpr (transposed) {
#pragma unroll
      for (int w = 0; w < W; ++w) dst[(c + w) * R + r] = regs[s * W + w];
    } else {
      store16(dst + r * C + c, regs + s * W);
    }
  }
}

// Both halves at once (m06, m07).
template <int R, int C, int NT, bool transposed, class T>
__device__ inline void load_tile_vec(const T* src, std::size_t ld, std::size_t rows,
                                     std::size_t cols, std::size_t r0, std::size_t c0, T* dst,
                                     bool aligned) {
  T regs[tile_share<R, C, NT>];
  fetch_tile<R, C, NT>(src, ld, rows, cols, r0, c0, regs, aligned);
  put_tile<R, C, NT, transposed>(regs, dst);
}

// Stores a thread's strip of `count` results of row i from column j: with vector loads and
// stores of C where `aligned` and the whole vector is inside C, else element by element; rows and
// columns past C's edges are skipped.
template <int count, class T>
__device__ inline void store_strip(const gemm<T>& g, std::size_t i, std::size_t j, const T* acc,
                                   bool aligned) {
  constexpr int W = vec_width<T>;
  if (i >= g.m) return;
  T* row = g.c + i * g.ldc;
#pragma unroll
  for (int v = 0; v < count; v += W) {
    if (v + W <= count && aligned && j + v + W <= g.n) {
      T out[W];
      if (g.beta != T(0)) load16(out, row + j + v);
#pragma unroll
      for (int w = 0; w < W; ++w)
        out[w] = g.beta == T(0) ? g.alpha * acc[v + w] : g.alpha * acc[v + w] + g.beta * out[w];
      store16(row + j + v, out);
    } else {
#pragma unroll
      for (int w = 0; w < W && v + w < count; ++w)
        if (j + v + w < g.n) store(row + j + v + w, acc[v + w], g.alpha, g.beta);
    }
  }
}

// What every blocked rung's host side knows: the alignment of the three matrices.
// A stack's (g.stride_*) every matrix aligned as its first: its stride a whole number of vectors.
template <class T> struct alignment {
  bool a, b, c;
  explicit alignment(const gemm<T>& g)
      : a(rows_aligned(g.a, g.lda) && g.stride_a % vec_width<T> == 0),
        b(rows_aligned(g.b, g.ldb) && g.stride_b % vec_width<T> == 0),
        c(rows_aligned(g.c, g.ldc) && g.stride_c % vec_width<T> == 0) {}
};

// The tiling of the warp-tiled rungs (m07, m08): a BM x BN tile of C per block of NT threads,
// stepping K by BK; a WM x WN tile per warp, walked as WMITER x WNITER sub-tiles of WSUBM x WSUBN
// so the 32 lanes of a warp cover one sub-tile with TM x TN elements each; a thread's results are
// WMITER * TM rows by WNITER * TN columns.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int WNITER_, int TM_, int TN_>
struct warp_tiling {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
  static constexpr int WNITER = WNITER_, WMITER = WM * WN / (warp * TM * TN * WNITER);
  static constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;
  static constexpr int NT = BM / WM * (BN / WN) * warp;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % WMITER == 0 && WN % WNITER == 0);
  static_assert(WSUBM / TM * (WSUBN / TN) == warp, "a warp's lanes cover one sub-tile");
};

// Whether an m x n x k product is a whole number of P's tiles in every dimension (m08's interior
// kernel then needs no padding, given aligned rows).
template <class P> bool whole_tiles(std::size_t m, std::size_t n, std::size_t k) {
  return m % P::BM == 0 && n % P::BN == 0 && k % P::BK == 0;
}

// Stores a warp-tiled thread's results: acc[i TM + t][j TN ..] is C's row
// row + i WSUBM + t row_step (row_step 1: a thread's rows are consecutive; m09 interleaves them),
// columns col + j WSUBN ...
template <class P, class T>
__device__ inline void
store_warp_results(const gemm<T>& g, std::size_t row, int row_step, std::size_t col,
                   const T (&acc)[P::WMITER * P::TM][P::WNITER * P::TN], bool aligned) {
#pragma unroll
  for (int i = 0; i < P::WMITER; ++i)
#pragma unroll
    for (int t = 0; t < P::TM; ++t)
#pragma unroll
      for (int j = 0; j < P::WNITER; ++j)
        store_strip<P::TN>(g, row + i * P::WSUBM + t * row_step, col + j * P::WSUBN,
                           &acc[i * P::TM + t][j * P::TN], aligned);
}

// f32: 128 x 128 tiles, BK 16. Wide threads: 4 warps of 64 x 64, each thread 8 x 16 results
// (128 accumulators, 2 blocks of 128 threads per SM); narrow threads: 8 warps of 64 x 32, each
// thread 8 x 8 (64 accumulators, 256 threads). f64 always takes the narrow tiling (the wide one
// would need 256 registers for its accumulators alone).
using wide_threads = warp_tiling<128, 128, 16, 64, 64, 4, 8, 4>;
using narrow_threads = warp_tiling<128, 128, 16, 64, 32, 2, 8, 4>;
template <class T, class F32>
using tiling_for = std::conditional_t<sizeof(T) == 4, F32, narrow_threads>;
// The same narrow tiling stepping K by 8: two buffers of f64 tiles in 32 KiB (m08's f64).
using narrow_threads_bk8 = warp_tiling<128, 128, 8, 64, 32, 2, 8, 4>;
// 64 x 64 tiles, 128 threads of 8 x 4: four times the blocks of a 128 x 128 tiling, for products
// too small to give every SM two big tiles.
using small_tiles = warp_tiling<64, 64, 16, 32, 32, 1, 4, 4>;
// 8 x 8 results per thread as 2 x 2 sub-tiles of 4 x 4: a quarter-warp's 16-byte reads of A are 8
// consecutive chunks instead of 8 chunks 32 bytes apart (m08, m10).
using narrow_sub4 = warp_tiling<128, 128, 16, 64, 32, 2, 4, 4>;

}  // namespace pplab::detail::matmul_cuda
