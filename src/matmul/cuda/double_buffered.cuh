#pragma once
// The double-buffered warp-tiled kernel of m08, which m10 runs over slices of K. Two shared-memory
// buffers per operand: while the warps multiply the tiles in one, each thread's share of the
// next tiles is already on its way from global memory into registers (the loads are issued
// before the multiply and waited for after it), then stored into the other buffer. One barrier
// per step of K instead of m07's two, and the latency of global memory is hidden behind a whole
// tile's arithmetic instead of being waited for by every warp. Race-free with one barrier: the
// buffer written in step s was last read in step s - 1, which every thread finished before the
// barrier that ended it.
//
// The same one level down: a thread's fragments of A and B for k + 1 are read from shared memory
// into a second set of registers while it multiplies those of k, so the multiply-adds of one k
// never wait for the shared-memory reads they need (measured: +4-5% at 2048-8192, 0.81x -> 0.85x
// cuBLAS; profiled before it, 23% of scheduler cycles had no warp ready to issue).
//
// Registers (f32, 128 x 128 tiles): 64 accumulators, 2 x 16 fragments, 16 staged tile elements;
// held to 128 so two blocks of 256 threads share an SM (ptxas spills 8 bytes for it; the
// interior instantiation, 126 registers, none).
//
// A slice of K (m10): with `parts`, block z of the grid's third dimension multiplies K's columns
// [z ks, (z + 1) ks) and stores its partial product, unscaled, into parts + z m n (row stride n);
// C is then the sum of the parts in slice order (a separate pass). A stack (m19, the `stacked`
// instantiations): block z multiplies product z of the stack, its matrices z strides along.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {

// A thread's share of one operand's tiles inside the matrix (every tile whole, rows 16-byte
// aligned): one pointer to its first vector, moved one tile along K per step; its other vectors lie
// a fixed number of rows below. No bounds test, no 64-bit index arithmetic per load.
template <int R, int C, int NT, class T> struct inner_walk {
  static constexpr int W = vec_width<T>, S = R * C / W / NT, rows_apart = NT / (C / W);
  static_assert(C % W == 0 && R * C / W % NT == 0 && NT % (C / W) == 0);
  const T* at;
  __device__ inner_walk(const T* src, std::size_t ld, std::size_t r0, std::size_t c0)
      : at(src + (r0 + int(threadIdx.x) / (C / W)) * ld + c0 + int(threadIdx.x) % (C / W) * W) {}
  __device__ void fetch(T* regs, std::size_t ld) const {
#pragma unroll
    for (int s = 0; s < S; ++s) load16(regs + s * W, at + std::size_t(s * rows_apart) * ld);
  }
};

// interior: the host found every tile of A and B whole (M and N multiples of the block tile, K of
// BK, rows 16-byte aligned), so the loads need no edge handling (inner_walk); C's store keeps its
// tests. Two instantiations, not two paths in one kernel: the edge code beside the fast one cost
// m08 spills (docs/matmul.md).
// stacked: a stack's instantiation (m19), block z multiplying product z (its own instantiation:
// the moved pointers cost the edge kernel 60 bytes more of spills).
template <class T, class P, bool interior = false, bool stacked = false>
__global__ void
__launch_bounds__(P::NT, sizeof(T) == 4 && P::WMITER * P::TM * P::WNITER * P::TN <= 64 ? 2 : 1)
    double_buffered(gemm<T> g, alignment<T> aligned, k_slices<T> slices) {
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, TM = P::TM, TN = P::TN, NT = P::NT;
  constexpr int MI = P::WMITER, NI = P::WNITER;
  take_slice(g, slices, aligned.c);         // where K is cut, this block's slice of it
  if constexpr (stacked) take_product(g);   // this block's product of the stack
  __shared__ alignas(16) T as[2][BK * BM];  // transposed: as[.][l * BM + i]
  __shared__ alignas(16) T bs[2][BK * BN];
  const std::size_t row0 = std::size_t(blockIdx.y) * BM, col0 = std::size_t(blockIdx.x) * BN;
  const int w = int(threadIdx.x) / warp, lane = int(threadIdx.x) % warp;
  const int wr = w / (BN / P::WN) * P::WM, wc = w % (BN / P::WN) * P::WN;
  const int tr = lane / (P::WSUBN / TN) * TM, tc = lane % (P::WSUBN / TN) * TN;
  T next_a[tile_share<BM, BK, NT>], next_b[tile_share<BK, BN, NT>];
  inner_walk<BM, BK, NT, T> walk_a(g.a, g.lda, row0, 0);
  inner_walk<BK, BN, NT, T> walk_b(g.b, g.ldb, 0, col0);
  const auto fetch = [&](std::size_t k0) {
    if constexpr (interior) {
      walk_a.fetch(next_a, g.lda), walk_b.fetch(next_b, g.ldb);
      walk_a.at += BK, walk_b.at += BK * g.ldb;
    } else {
      fetch_tile<BM, BK, NT>(g.a, g.lda, g.m, g.k, row0, k0, next_a, aligned.a);
      fetch_tile<BK, BN, NT>(g.b, g.ldb, g.k, g.n, k0, col0, next_b, aligned.b);
    }
  };
  const auto put = [&](int buf) {
    put_tile<BM, BK, NT, true>(next_a, as[buf]);
    put_tile<BK, BN, NT, false>(next_b, bs[buf]);
  };
  const std::size_t steps = ceil_div(g.k, BK);
  if (steps > 0) fetch(0), put(0);
  __syncthreads();
  T acc[MI * TM][NI * TN] = {}, ra[2][MI * TM], rb[2][NI * TN];
  for (std::size_t step = 0; step < steps; ++step) {
    const int buf = int(step & 1);
    const bool more = step + 1 < steps;
    if (more) fetch((step + 1) * BK);  // in flight during the multiply below
    const auto fragments = [&](int l, int f) {
#pragma unroll
      for (int i = 0; i < MI; ++i)
        read_vec<TM>(ra[f] + i * TM, as[buf] + l * BM + wr + i * P::WSUBM + tr);
#pragma unroll
      for (int j = 0; j < NI; ++j)
        read_vec<TN>(rb[f] + j * TN, bs[buf] + l * BN + wc + j * P::WSUBN + tc);
    };
    fragments(0, 0);
#pragma unroll
    for (int l = 0; l < BK; ++l) {
      const int f = l & 1;
      if (l + 1 < BK) fragments(l + 1, f ^ 1);  // read while the multiply-adds below run
#pragma unroll
      for (int t = 0; t < MI * TM; ++t)
#pragma unroll
        for (int u = 0; u < NI * TN; ++u) acc[t][u] += ra[f][t] * rb[f][u];
    }
    if (more) put(buf ^ 1);
    __syncthreads();  // the next tiles are whole; this buffer may be refilled next step
  }
  store_warp_results<P>(g, row0 + wr + tr, 1, col0 + wc + tc, acc, aligned.c);
}

// m08's grid over C: the interior instantiation where every tile of A and B is whole and aligned,
// or where the caller has made them so (`made_whole`, m12: zero-padded copies; K a multiple of BK,
// A readable for ceil(m / BM) BM rows and B for ceil(n / BN) BN columns); C keeps its bounds.
// stacked: `count` products of a stack (g's strides) instead of `count` slices of K.
template <class T, class P, bool stacked = false>
void launch_double_buffered(const gemm<T>& g, cudaStream_t s, k_slices<T> slices = {},
                            unsigned count = 1, bool made_whole = false) {
  const dim3 grid(unsigned(ceil_div(g.n, P::BN)), unsigned(ceil_div(g.m, P::BM)), count);
  const alignment<T> aligned(g);
  // Every slice of K whole too: ks (a multiple of BK) divides K when K is a multiple of BK.
  const bool interior = made_whole || (whole_tiles<P>(g.m, g.n, g.k) && aligned.a && aligned.b &&
                                       (!slices.parts || g.k % slices.ks == 0));
  if (interior) double_buffered<T, P, true, stacked><<<grid, P::NT, 0, s>>>(g, aligned, slices);
  else double_buffered<T, P, false, stacked><<<grid, P::NT, 0, s>>>(g, aligned, slices);
  PPLAB_CUDA_LAUNCHED();
}

// The m08 rungs: F32 the f32 tiling (f64 steps K by 8, so that its two buffers fit the 48 KiB of
// static shared memory).
template <class F32> struct double_buffered_launch {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    using P = std::conditional_t<sizeof(T) == 4, F32, narrow_threads_bk8>;
    launch_double_buffered<T, P>(g, s);
  }
};
template <class F32> void double_buffered_run(const matmul_call& c) {
  dispatch_matmul<double_buffered_launch<F32>>(c, static_cast<cudaStream_t>(c.stream));
}

}  // namespace pplab::detail::matmul_cuda
