#pragma once
// What the tensor-core rungs (m13 f64, m14 f32 as three TF32 products) share; each keeps only its
// fragments and products. The tiling (a 128 x 128 tile of C per block of 8 warps of 64 x 32), the
// K loop that brings whole, 16-byte aligned tiles of A and B (padded.cuh makes them) through
// shared memory by cp.async, the store of a warp's m16n8 accumulator tiles into C, and the host
// side: padding, K cut into slices where C has too few tiles for the SMs, the launch.
#include "core/cuda/tensor_cores.cuh"
#include "matmul/cuda/padded.cuh"

namespace pplab::detail::matmul_cuda {

// The tensor-core rungs' tiling: a 128 x 128 tile of C per block of 8 warps, each warp 64 x 32 of
// it as 4 x 4 m16n8 tiles; K steps of BK elements of T through 3 shared-memory stages, the rows of
// A's and B's tiles padded by a_pad and b_pad elements so a warp's fragment reads meet no bank
// twice.
template <class T, int BK_, int a_pad, int b_pad> struct mma_tiling {
  static constexpr int BM = 128, BN = 128, BK = BK_;
  static constexpr int WM = 64, WN = 32;  // a warp's tile of C
  static constexpr int NT = BM / WM * (BN / WN) * warp;
  static constexpr int MI = WM / 16, NI = WN / 8;  // its m16n8 tiles
  static constexpr int AS = BK + a_pad, BS = BN + b_pad;
  static constexpr int STAGES = 3;
  static constexpr std::size_t stage = std::size_t(BM) * AS + std::size_t(BK) * BS;  // elements
  static constexpr std::size_t shared_bytes = STAGES * stage * sizeof(T);
};

// Where a thread of a tensor-core block works: its warp's tile of C starts at row row0 + wr, column
// col0 + wc, and it is lane (g, t) = (lane / 4, lane % 4) of the warp's m16n8 fragments.
template <class P> struct warp_tile {
  int lane = int(threadIdx.x) % warp, g = lane / 4, t = lane % 4;
  int wr = int(threadIdx.x) / warp / (P::BN / P::WN) * P::WM;
  int wc = int(threadIdx.x) / warp % (P::BN / P::WN) * P::WN;
  std::size_t row0 = std::size_t(blockIdx.y) * P::BM, col0 = std::size_t(blockIdx.x) * P::BN;
};

// The K loop of the tensor-core kernels: A's and B's tiles (BM x BK, BK x BN) copied by cp.async
// into P::STAGES shared-memory stages (the kernel's dynamic shared memory), 16-byte chunks with no
// registers on the way, rows padded to P::AS and P::BS elements; for each K step,
// step(sa, sb) with this lane's corner of its warp's tiles: sa at A's row wr + g, column t, and sb
// at B's row t, column wc + g. g.k a multiple of BK, the rows of A and B 16-byte aligned, and the
// block's tiles inside them (whole tiles).
template <class P, class T, class Step>
__device__ inline void through_stages(const gemm<T>& g, const warp_tile<P>& at, Step&& step) {
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, AS = P::AS, BS = P::BS, NT = P::NT;
  constexpr int W = vec_width<T>;  // elements per 16-byte chunk
  extern __shared__ __align__(16) unsigned char shared[];
  T* const as = reinterpret_cast<T*>(shared);           // STAGES x BM x AS
  T* const bs = as + std::size_t(P::STAGES) * BM * AS;  // STAGES x BK x BS
  const int tid = int(threadIdx.x);
  // A thread's chunks of a stage: of A rows tid / (BK / W) + s a_rows_apart, column
  // (tid % (BK / W)) W; of B rows tid / (BN / W) + s b_rows_apart, column (tid % (BN / W)) W.
  // Pointers moved along K per step.
  constexpr int a_rows_apart = NT / (BK / W), b_rows_apart = NT / (BN / W);
  const T* a_src = g.a + (at.row0 + tid / (BK / W)) * g.lda + tid % (BK / W) * W;
  const T* b_src = g.b + std::size_t(tid / (BN / W)) * g.ldb + at.col0 + tid % (BN / W) * W;
  const std::size_t a_skip = a_rows_apart * g.lda, b_skip = b_rows_apart * g.ldb;
  const int a_dst = tid / (BK / W) * AS + tid % (BK / W) * W;
  const int b_dst = tid / (BN / W) * BS + tid % (BN / W) * W;
  const std::size_t steps = g.k / BK;
  const auto fetch = [&](std::size_t k_step) {
    const int st = int(k_step % P::STAGES);
    T* const sa = as + st * BM * AS + a_dst;
    T* const sb = bs + st * BK * BS + b_dst;
    const T* ga = a_src + k_step * BK;
    const T* gb = b_src + k_step * BK * g.ldb;
#pragma unroll
    for (int s = 0; s < BM * BK / W / NT; ++s)
      copy_async<16>(sa + s * a_rows_apart * AS, ga + s * a_skip, true);
#pragma unroll
    for (int s = 0; s < BK * BN / W / NT; ++s)
      copy_async<16>(sb + s * b_rows_apart * BS, gb + s * b_skip, true);
  };
#pragma unroll
  for (int s = 0; s < P::STAGES - 1; ++s) {
    if (std::size_t(s) < steps) fetch(s);
    commit_copies();  // one group per step, empty or not, so the count below holds
  }
  for (std::size_t k_step = 0; k_step < steps; ++k_step) {
    wait_copies<P::STAGES - 2>();  // this step's tiles have landed (this thread's copies) ...
    __syncthreads();  // ... everyone's, and everyone is done with the stage refilled next
    if (k_step + P::STAGES - 1 < steps) fetch(k_step + P::STAGES - 1);
    commit_copies();
    const int st = int(k_step % P::STAGES);
    step(static_cast<const T*>(as + st * BM * AS + (at.wr + at.g) * AS + at.t),
         static_cast<const T*>(bs + st * BK * BS + at.t * BS + at.wc + at.g));
  }
}

// A warp's results: MI x NI tiles of m16n8, lane (g, t) holding rows g and g + 8, columns 2t and
// 2t + 1 of each (the layout of mma_16x8x4 and mma_16x8x8_tf32). The warp's tile starts at row
// `row`, column `col` of C; pairs of neighbours are stored together where C's rows are 16-byte
// aligned (`c_aligned`), C's edges tested.
template <int MI, int NI, class T>
__device__ inline void store_mma_tiles(const gemm<T>& g, const T (&acc)[MI][NI][4], std::size_t row,
                                       std::size_t col, int lane, bool c_aligned) {
  struct alignas(2 * sizeof(T)) pair {
    T v[2];
  };
  const int gq = lane / 4, tq = lane % 4;
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::size_t r = row + i * 16 + h * 8 + gq;
      if (r >= g.m) continue;
      T* const c_row = g.c + r * g.ldc;
#pragma unroll
      for (int j = 0; j < NI; ++j) {
        const std::size_t cc = col + j * 8 + 2 * tq;
        const T* v = &acc[i][j][2 * h];
        if (c_aligned && cc + 2 <= g.n) {
          pair out{};
          if (g.beta != T(0)) out = *reinterpret_cast<const pair*>(c_row + cc);
#pragma unroll
          for (int e = 0; e < 2; ++e)
            out.v[e] = g.beta == T(0) ? g.alpha * v[e] : g.alpha * v[e] + g.beta * out.v[e];
          *reinterpret_cast<pair*>(c_row + cc) = out;
        } else {
#pragma unroll
          for (int e = 0; e < 2; ++e)
            if (cc + e < g.n) store(c_row + cc + e, v[e], g.alpha, g.beta);
        }
      }
    }
}

// ---- The host side: kernel(g, c_aligned, slices) over a grid of (BN columns, BM rows, slices)
// blocks of P::NT threads and P::shared_bytes each. `wave` is the blocks resident at once on the
// GPU: C with fewer tiles than that has K cut into slices (cut_k), their parts added after.

// The blocks of `kernel` the GPU holds at once: the wave.
template <class P, class Kernel> std::size_t blocks_at_once(Kernel kernel) {
  allow_shared(kernel, P::shared_bytes);
  return resident_blocks(kernel, P::NT, P::shared_bytes);
}

template <class P> k_cut cut_for_tiles(const matmul_problem& p, std::size_t wave) {
  return cut_k(ceil_div(p.m, P::BM) * ceil_div(p.n, P::BN), p.k, wave, P::BK);
}

// Scratch: the padded copies of A and B where the tiles are not whole, then the slices' parts.
template <class P, class T>
std::size_t whole_tile_scratch(const matmul_problem& p, std::size_t wave) {
  if (p.m == 0 || p.n == 0 || p.k == 0) return 0;
  const std::size_t copies =
      whole_tiles<P>(p.m, p.n, p.k) ? 0 : padded<P>(p.m, p.n, p.k).elements();
  return (copies + cut_for_tiles<P>(p, wave).parts_elements(p.m, p.n)) * sizeof(T);
}

// Runs the call; `other` takes what the kernel cannot: K = 0 (C = beta C), and whole tiles whose
// rows are not 16-byte aligned (no room for copies was asked for them).
template <class P, class T>
void run_whole_tiles(const matmul_call& c, std::size_t wave,
                     void (*kernel)(gemm<T>, bool, k_slices<T>),
                     void (*other)(const matmul_call&)) {
  if (c.p.m == 0 || c.p.n == 0) return;
  if (c.p.k == 0) return other(c);
  const auto s = static_cast<cudaStream_t>(c.stream);
  const gemm<T> g = typed<T>(c);
  const alignment<T> aligned(g);
  const bool whole = whole_tiles<P>(g.m, g.n, g.k);
  if (whole && !(aligned.a && aligned.b)) return other(c);
  T* const scratch = static_cast<T*>(c.scratch);
  const padded<P> to(g.m, g.n, g.k);
  // The operands, padded where the tiles are not whole; K padded with zeros goes to the last slice.
  const gemm<T> w = whole ? g : pad_operands<P>(g, scratch, s);
  T* const parts = whole ? scratch : scratch + to.elements();
  const std::size_t rows = whole ? g.m : to.mp, cols = whole ? g.n : to.np;
  const k_cut cut = cut_for_tiles<P>(c.p, wave);
  allow_shared(kernel, P::shared_bytes);
  const dim3 grid(unsigned(cols / P::BN), unsigned(rows / P::BM), unsigned(cut.count));
  const k_slices<T> slices =
      cut.count > 1 ? k_slices<T>{parts, cut.ks, g.n % vec_width<T> == 0} : k_slices<T>{};
  kernel<<<grid, P::NT, P::shared_bytes, s>>>(w, rows_aligned(g.c, g.ldc), slices);
  PPLAB_CUDA_LAUNCHED();
  if (cut.count > 1) launch_add_parts(g, parts, cut.count, s);
}

// The whole host side of such a rung (m13, m14): `kernel` over P's whole tiles of T, built for
// sm_`version` or later; m08 takes what it cannot (K = 0, whole but unaligned tiles).
template <class P, class T, void (*kernel)(gemm<T>, bool, k_slices<T>), int version>
struct whole_tile_rung {
  // Fewer tiles of C than blocks the GPU holds at once get K cut into slices.
  static std::size_t wave() {
    static const std::size_t blocks = blocks_at_once<P>(kernel);
    return blocks;
  }
  // T on a GPU this build's kernel runs on (no GPU: no).
  static bool can_run(const matmul_problem& p) {
    static const bool built = kernel_built_for(kernel, version);
    return p.type == (sizeof(T) == 4 ? dtype::f32 : dtype::f64) && grid_fits(p) && built;
  }
  static std::size_t scratch(const matmul_problem& p) {
    return whole_tile_scratch<P, T>(p, wave());
  }
  static void run(const matmul_call& c) {
    run_whole_tiles<P, T>(c, wave(), kernel, m08_double_buffered.run);
  }
};

}  // namespace pplab::detail::matmul_cuda
