// matmul/cuda/m09_async_pipeline: m07's warp tiling with the tiles copied by cp.async into a ring
// of STAGES shared-memory buffers, so the tiles of the next steps of K are on their way while the
// current one is multiplied. In m07 every step is load, barrier, compute, barrier: the warps wait
// for global memory once per BK, and the loads pass through registers. Here the copy engine moves
// global to shared directly (no registers, no transposing store), one barrier per step, and the
// wait at each step is for a tile requested STAGES - 1 steps earlier.
//
// cp.async cannot transpose, so A's tile stays row-major, each row padded by one 16-byte chunk: a
// thread reads 16 bytes of one row (W consecutive k) and uses them for W steps. A thread's rows
// are interleaved (lane row + 8 t), so a quarter-warp reads two neighbouring rows, whose chunks
// fall in different banks (the padded row is an odd number of chunks long). Edges: a whole vector
// inside the matrix is one 16-byte copy, a vector wholly outside is zero-filled by the copy
// itself (source size 0), and a vector across an edge, or any vector of a matrix whose rows are
// not 16-byte aligned, is copied element by element (still coalesced across the warp).
//
// Measured on an H200 (bench/results/, docs/matmul.md): slower than m08 (0.68x cuBLAS against
// 0.8x at 4096^3). The untransposed A costs 32 registers of fragments (W steps of k at once), so
// the kernel needs 175 registers and only one block of 256 threads fits an SM (8 warps), and
// holding it to two blocks spilled. cp.async pays where the operands need no rearranging on the
// way in (tensor-core layouts); for SIMT fp32 with a row-major A, m08's register staging, which
// transposes for free on the store, wins.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {
namespace {

constexpr int STAGES = 3;

// The R x C tile at (r0, c0) of a rows x cols matrix into dst, rows DS elements apart.
template <int R, int C, int DS, int NT, class T>
__device__ inline void copy_tile(const T* src, std::size_t ld, std::size_t rows, std::size_t cols,
                                 std::size_t r0, std::size_t c0, T* dst, bool aligned) {
  constexpr int W = vec_width<T>;
  static_assert(C % W == 0 && R * C / W % NT == 0, "the threads share the tile evenly");
#pragma unroll
  for (int s = 0; s < R * C / W / NT; ++s) {
    const int e = int(threadIdx.x) + s * NT, r = e / (C / W), c = e % (C / W) * W;
    const std::size_t gr = r0 + r, gc = c0 + c;
    T* d = dst + r * DS + c;
    const bool whole = gr < rows && gc + W <= cols, outside = gr >= rows || gc >= cols;
    if (aligned && (whole || outside)) {
      copy_async<16>(d, whole ? src + gr * ld + gc : src, whole);
    } else {
#pragma unroll
      for (int w = 0; w < W; ++w) {
        const bool in = gr < rows && gc + w < cols;
        copy_async<sizeof(T)>(d + w, in ? src + gr * ld + gc + w : src, in);
      }
    }
  }
}

template <class P, class T> constexpr int a_stride = P::BK + vec_width<T>;  // padded row of A
template <class P, class T>
constexpr std::size_t
    stage_elements = std::size_t(P::BM) * a_stride<P, T> + std::size_t(P::BK) * P::BN;
template <class P, class T>
constexpr std::size_t shared_bytes = STAGES* stage_elements<P, T> * sizeof(T);

template <class T, class P>
__global__ void __launch_bounds__(P::NT) pipelined(gemm<T> g, alignment<T> aligned) {
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, TM = P::TM, TN = P::TN, W = vec_width<T>;
  constexpr int MI = P::WMITER, NI = P::WNITER, AS = a_stride<P, T>;
  constexpr int row_step = P::WSUBM / TM;  // a thread's rows: lane row + row_step * t
  extern __shared__ __align__(16) unsigned char shared[];
  T* const as = reinterpret_cast<T*>(shared);        // STAGES x BM x AS
  T* const bs = as + std::size_t(STAGES) * BM * AS;  // STAGES x BK x BN
  const std::size_t row0 = std::size_t(blockIdx.y) * BM, col0 = std::size_t(blockIdx.x) * BN;
  const int w = int(threadIdx.x) / warp, lane = int(threadIdx.x) % warp;
  const int wr = w / (BN / P::WN) * P::WM, wc = w % (BN / P::WN) * P::WN;
  const int lr = lane / (P::WSUBN / TN), tc = lane % (P::WSUBN / TN) * TN;
  const std::size_t steps = ceil_div(g.k, BK);
  const auto fetch = [&](std::size_t step) {
    const int st = int(step % STAGES);
    copy_tile<BM, BK, AS, P::NT>(g.a, g.lda, g.m, g.k, row0, step * BK, as + st * BM * AS,
                                 aligned.a);
    copy_tile<BK, BN, BN, P::NT>(g.b, g.ldb, g.k, g.n, step * BK, col0, bs + st * BK * BN,
                                 aligned.b);
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (std::size_t(s) < steps) fetch(s);
    commit_copies();  // one group per step, empty or not, so the count below holds
  }
  T acc[MI * TM][NI * TN] = {}, fa[MI * TM][W], rb[NI * TN];
  for (std::size_t step = 0; step < steps; ++step) {
    wait_copies<STAGES - 2>();  // this step's tile has landed (for this thread's copies) ...
    __syncthreads();  // ... for everyone's, and everyone is done with the buffer refilled next
    if (step + STAGES - 1 < steps) fetch(step + STAGES - 1);
    commit_copies();
    const int st = int(step % STAGES);
    const T* a = as + st * BM * AS;
    const T* b = bs + st * BK * BN;
#pragma unroll
    for (int l = 0; l < BK; l += W) {
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int t = 0; t < TM; ++t)
          load16(fa[i * TM + t], a + (wr + i * P::WSUBM + lr + row_step * t) * AS + l);
#pragma unroll
      for (int kk = 0; kk < W; ++kk) {
#pragma unroll
        for (int j = 0; j < NI; ++j)
          read_vec<TN>(rb + j * TN, b + (l + kk) * BN + wc + j * P::WSUBN + tc);
#pragma unroll
        for (int t = 0; t < MI * TM; ++t)
#pragma unroll
          for (int u = 0; u < NI * TN; ++u) acc[t][u] += fa[t][kk] * rb[u];
      }
    }
  }
  store_warp_results<P>(g, row0 + wr + lr, row_step, col0 + wc + tc, acc, aligned.c);
}

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    using P = narrow_threads;
    constexpr std::size_t bytes = shared_bytes<P, T>;
    allow_shared(pipelined<T, P>, bytes);
    pipelined<T, P><<<grid_over(g.m, g.n, P::BM, P::BN), P::NT, bytes, s>>>(g, alignment<T>(g));
    PPLAB_CUDA_LAUNCHED();
  }
};

bool can_run(const matmul_problem& p) {
  const std::size_t bytes = p.type == dtype::f32 ? shared_bytes<narrow_threads, float>
                                                 : shared_bytes<narrow_threads, double>;
  return grid_fits(p) && bytes <= max_shared_per_block();
}

void run(const matmul_call& c) { dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream)); }

}  // namespace

extern const matmul_rung m09_async_pipeline{
    .info = {.step = 9,
             .summary =
                 "m07 fed by cp.async through 3 shared-memory stages, A's tile untransposed"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
