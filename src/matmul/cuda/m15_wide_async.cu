// matmul/cuda/m15_wide_async: strict fp32 near cuBLAS's pace, built the way cuBLAS's own SIMT
// SGEMM is. At 4096^3 m08's interior kernel reaches 82% of the measured FMA peak against cuBLAS's
// 92%. Nsight Compute on both (bench/results/h200-2026-11-24-matmul-m15-wide-async-steps.txt):
// cuBLAS runs sm80_xmma_gemm_f32f32..._tilesize256x128x8_stage3 (8 warps, 8 x 16 results per
// thread, tiles by cp.async, 254 registers, 8 warps per SM) and executes as many instructions as
// m08 (2.43 G each, 88.5% FFMA), but its schedulers issue on 88% of cycles against m08's 77%: the
// gap is stalls, not instruction count. Here, as there:
//   - 8 x 16 results per thread (128 accumulators, 4 warps of 64 x 64 per 128 x 128 tile, two
//     blocks per SM, 235 registers): 6 16-byte shared reads per 128 FFMAs;
//   - the tiles by cp.async through a ring of 4 stages of K = 8, no registers on the way: B by
//     16-byte chunks, A by 4-byte copies, each element put where the k-major tile wants it (the
//     transpose that m09 could not do with 16-byte copies);
//   - the next k's fragments read while this k's multiply-adds run, across the tile's end too
//     (the barrier comes before the last k's multiply-adds, which hide the next stage's reads).
// What decided the speed, in order (each step measured against cuBLAS in the same run, 4096^3):
//   - all of a tile's copies at its first k step, 8 row pointers recomputed per tile: 0.86x. The
//     copies' 64-bit address arithmetic came as one block of ~40 dependent instructions, and the
//     compiler read some fragments only a few multiply-adds before their use (short-scoreboard
//     stalls 15% of samples against cuBLAS's 9%);
//   - the copies spread one per k step: 0.88x (fewer stalls, but their addresses recomputed one
//     by one: 2.51 G instructions);
//   - one pointer per row of A moved along K (a thread's two elements of a row 4 bytes apart, an
//     immediate offset), the copies without a zero-fill operand: 0.89x, 2.45 G instructions; 1,
//     2 or 4 elements of a row per thread: 0.90x, 0.89x, 0.78x (4: a warp reads 16 rows at once);
//   - the copies in two groups instead of seven: 0.94-0.95x, 2.40 G instructions (fewer than
//     cuBLAS), issue slots busy 80%. The compiler puts three never-executed shared loads before
//     each group of cp.async (44 M of them with seven groups, 13 M with two); one group 0.88x,
//     three 0.94x, four 0.93x; the two groups at k steps 0 and 4 rather than 0 and 3: +1%.
// Final (bench/results/h200-2026-11-24-matmul-d58d0d6.json): 0.96x cuBLAS at 4096^3, 0.97x at
// 8192^3, 0.98x at 4093^3 (then padded; see below), 1.08x at 1024^3 and 0.93x at 128 x 8192 x 8192
// (K in slices). Not kept: 256 x 128 tiles of 8 warps, one block per SM (cuBLAS's shape): 0.83x; K
// steps of 16 (3 stages) 0.91x; 3 stages of 8, 0.93x; the multiply-adds in cuBLAS's order (pairs of
// B columns, A's rows serpentine): 255 registers and spills, 0.83x (branch wip/m15-wide-async-
// variants). Left: dispatch stalls, 9% of samples against cuBLAS's 5% (short-scoreboard stalls are
// level, 9%): where the compiler places the shared loads among the FFMAs and which registers it
// gives them, which CUDA C does not control.
// A's rows in shared memory are padded to BM + 4 floats: a warp's 4-byte copies (8 rows x 4 k
// pairs) land in 32 different banks, and the rows stay 16-byte aligned for the reads. K is cut
// into slices for few tiles of C, as in m13 and m14 (tensor_core_rung.cuh).
// Odd shapes (bench/results/h200-2026-11-24-matmul-m15-odd-shapes.txt, Nsight Compute per
// kernel at 4093^3): padding A and B into whole tiles took 32 us each, and C's rows, not 16-byte
// aligned, took 4-byte stores that write each 32-byte sector of C four times, every block of a
// wave at once: the kernel 2.905 ms against 2.815 at 4096^3, the call 0.98x cuBLAS. Now:
//   - A is read where it is (its copies were 4-byte already): rows past M are read as the last,
//     and K's padding comes first, as zeros filled in by the first tile's copies alone;
//   - B alone is padded (its rows must be 16-byte aligned for its 16-byte copies);
//   - C's results go to aligned rows of scratch, then to C by a kernel whose warps write 32
//     consecutive elements (37 us).
// 4093^3: the kernel 2.810 ms, the call 2.878 ms against cuBLAS's 2.886, 1.00x. Not kept: C staged
// through shared memory in the kernel (3.03 ms: its K loop came out slower, the source the same).
#include "core/cuda/tensor_cores.cuh"
#include "matmul/cuda/tensor_core_rung.cuh"

namespace pplab::detail::matmul_cuda {

namespace {

// 128 x 128 tiles of C, 4 warps of 64 x 64, each thread 2 x 4 sub-tiles of 4 x 4 (8 x 16 results:
// a warp's lanes 8 rows by 4 columns of sub-tiles); K steps of 8 through 4 stages, 33 KiB.
struct wide_tiling : warp_tiling<128, 128, 8, 64, 64, 4, 4, 4> {
  static constexpr int STAGES = 4, AS = BM + 4;  // A's tile: BK rows of AS (k-major)
  static constexpr int a_elements = 2;           // consecutive elements of a row of A per thread
  static constexpr int copy_groups = 2;          // a tile's copies issued at k steps 0 and BK / 2
  static constexpr std::size_t stage = std::size_t(BK) * AS + std::size_t(BK) * BN;
  static constexpr std::size_t shared_bytes = STAGES * stage * sizeof(float);
};
using P = wide_tiling;

// C = alpha A B + beta C over whole tiles of B and C: g.k a multiple of BK, the grid's columns
// within B's (padded) extent, B's rows 16-byte aligned; C's edges are tested. A is read where it
// is, any row stride. `ragged_a`: A's tiles need not be whole: its rows past g.m are read as its
// last (their results are never stored), and K starts with `lead` columns of zeros (B's padded
// copy starts with as many zero rows), so A's element (i, kk) meets B's row kk + lead; only the
// first tile needs the zeros. Whole tiles take the other instantiation: one kernel for both ran
// 4096^3 in 2.846 ms against 2.807-2.815 (the K loop's source the same, not its schedule).
template <bool ragged_a>
__global__ void __launch_bounds__(P::NT, 2)
    wide_async_kernel(gemm<float> g, bool c_aligned, k_slices<float> slices, int lead) {
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, AS = P::AS, NT = P::NT, S = P::STAGES;
  constexpr int MI = P::WMITER, NI = P::WNITER, TM = P::TM, TN = P::TN;
  constexpr int stage = int(P::stage), b_at = BK * AS;  // B's tile follows A's in a stage
  take_slice(g, slices, c_aligned);                     // where K is cut, this block's slice of it
  extern __shared__ __align__(16) float shared_tiles[];
  const int tid = int(threadIdx.x), w = tid / warp, lane = tid % warp;
  const std::size_t row0 = std::size_t(blockIdx.y) * BM, col0 = std::size_t(blockIdx.x) * BN;
  const int wr = w / (BN / P::WN) * P::WM, wc = w % (BN / P::WN) * P::WN;
  const int tr = lane / (P::WSUBN / TN) * TM, tc = lane % (P::WSUBN / TN) * TN;

  // A: thread t copies rows t / AT + j rows_apart (j < AJ) of the tile, AE consecutive elements of
  // each from column (t % AT) AE, one 4-byte copy each, to the k-major tile's row (column of A) c,
  // column r; a warp's copies read 8 rows at once, and land in 32 different banks (4 c + r mod 32).
  // One pointer per row moved along K: the copies' addresses need no arithmetic of their own.
  // B: 16-byte chunks, chunk e = tid + j NT at row e / (BN / 4), column e % (BN / 4) x 4.
  constexpr int AE = P::a_elements, AT = BK / AE, a_rows_apart = NT / AT, AJ = BM / a_rows_apart;
  constexpr int BJ = BK * BN / 4 / NT, b_rows_apart = NT / (BN / 4);
  static_assert(BK % AE == 0 && NT % AT == 0 && BM % a_rows_apart == 0);
  static_assert(BK * BN / 4 % NT == 0 && NT % (BN / 4) == 0);
  const float* pa[AJ];
  const float* pb[BJ];
  // This thread's column of A in its first tile; negative: one of the zeros, which only the first
  // of K's slices has.
  const int a_col = tid % AT * AE - (ragged_a ? lead : 0);
  const bool k_start = blockIdx.z == 0;
#pragma unroll
  for (int j = 0; j < AJ; ++j) {
    const std::size_t row = row0 + tid / AT + j * a_rows_apart;
    pa[j] = g.a + (!ragged_a || row < g.m ? row : g.m - 1) * g.lda + a_col;
  }
#pragma unroll
  for (int j = 0; j < BJ; ++j)
    pb[j] =
        g.b + std::size_t(tid / (BN / 4) + j * b_rows_apart) * g.ldb + col0 + tid % (BN / 4) * 4;
  const std::size_t b_step = std::size_t(BK) * g.ldb;
  const int a_dst = tid % AT * AE * AS + tid / AT;
  const int b_dst = b_at + tid / (BN / 4) * BN + tid % (BN / 4) * 4;
  const std::size_t steps = g.k / BK;
  constexpr int copies = AJ * AE + BJ;
  // Copy s of the tile the pointers are at into the stage at `to` (A's copies first, then B's).
  const auto copy = [&](int s, float* to) {
    if (s < AJ * AE)
      copy_async_inside<4>(to + a_dst + s % AE * AS + s / AE * a_rows_apart, pa[s / AE] + s % AE);
    else copy_async_inside<16>(to + b_dst + (s - AJ * AE) * b_rows_apart * BN, pb[s - AJ * AE]);
  };
  const auto advance = [&] {
#pragma unroll
    for (int j = 0; j < AJ; ++j) pa[j] += BK;
#pragma unroll
    for (int j = 0; j < BJ; ++j) pb[j] += b_step;
  };

  float acc[MI * TM][NI * TN] = {}, ra[2][MI * TM], rb[2][NI * TN];
  // This thread's fragments of k step l of the tile in `base` into register set f.
  const auto fragments = [&](const float* base, int l, int f) {
#pragma unroll
    for (int i = 0; i < MI; ++i)
      read_vec<TM>(ra[f] + i * TM, base + l * AS + wr + i * P::WSUBM + tr);
#pragma unroll
    for (int j = 0; j < NI; ++j)
      read_vec<TN>(rb[f] + j * TN, base + b_at + l * BN + wc + j * P::WSUBN + tc);
  };

#pragma unroll
  for (int t = 0; t < S - 1; ++t) {
    if (std::size_t(t) < steps) {
#pragma unroll
      for (int s = 0; s < copies; ++s) {
        if (ragged_a && t == 0 && s < AJ * AE) {  // zeros where A's column is before K's start
          const bool in = !k_start || a_col + s % AE >= 0;
          copy_async<4>(shared_tiles + a_dst + s % AE * AS + s / AE * a_rows_apart,
                        in ? pa[s / AE] + s % AE : g.a, in);
        } else {
          copy(s, shared_tiles + t * stage);
        }
      }
      advance();
    }
    commit_copies();  // one group per step, empty or not, so the counts below hold
  }
  wait_copies<S - 2>();  // the first tiles have landed (this thread's copies) ...
  __syncthreads();       // ... and everyone's
  if (steps > 0) fragments(shared_tiles, 0, 0);
  // The stages read and written, as offsets into shared_tiles: the ring turns once per step.
  constexpr int last = (S - 1) * stage;
  int read_at = 0, write_at = last;
  for (std::size_t k_step = 0; k_step < steps; ++k_step) {
    const float* const base = shared_tiles + read_at;
    // The stage refilled during this step was last read in the previous one, before the barrier
    // that ended it. Its copies go in two groups, at k steps 0 and BK / 2, among the multiply-adds.
    const bool more = k_step + S - 1 < steps;
#pragma unroll
    for (int l = 0; l < BK; ++l) {
      const int f = l & 1;
      if (more) {
#pragma unroll
        for (int s = 0; s < copies; ++s)
          if (s * P::copy_groups / copies * (BK / P::copy_groups) == l)
            copy(s, shared_tiles + write_at);
        if (l == BK - 2) advance();
      }
      if (l + 1 < BK) {
        fragments(base, l + 1, f ^ 1);  // read while the multiply-adds below run
      } else {
        commit_copies();
        read_at = read_at == last ? 0 : read_at + stage;
        write_at = write_at == last ? 0 : write_at + stage;
        if (k_step + 1 < steps) {
          wait_copies<S - 2>();  // the next step's tiles have landed ...
          __syncthreads();       // ... everyone's, and every read of this step's stage is done
          fragments(shared_tiles + read_at, 0, f ^ 1);
        }
      }
#pragma unroll
      for (int t = 0; t < MI * TM; ++t)
#pragma unroll
        for (int u = 0; u < NI * TN; ++u) acc[t][u] += ra[f][t] * rb[f][u];
    }
  }
  wait_copies<0>();  // no copy outlives the block (the empty groups of the last steps)
  store_warp_results<P>(g, row0 + wr + tr, 1, col0 + wc + tc, acc, c_aligned);
}

// Fewer tiles of C than blocks the GPU holds at once get K cut into slices.
std::size_t wave() {
  static const std::size_t blocks = blocks_at_once<P>(wide_async_kernel<false>);
  return blocks;
}

// Scratch, by shape: B's padded copy where its tiles are not whole (K's padding on top); where n is
// not a multiple of 4 (C's rows then seldom 16-byte aligned) and K is not cut, C's results staged
// with aligned rows; where K is cut, the slices' parts.
struct m15_layout {
  padded<P> to;
  k_cut cut;
  bool pad_b, stage_c;
  explicit m15_layout(const matmul_problem& p)
      : to(p.m, p.n, p.k), cut(cut_for_tiles<P>(p, wave())),
        pad_b(p.n % P::BN != 0 || p.k % P::BK != 0), stage_c(cut.count == 1 && p.n % 4 != 0) {}
  std::size_t b_elements() const { return pad_b ? to.kp * to.np : 0; }
  std::size_t c_elements(std::size_t m) const { return stage_c ? m * to.np : 0; }
};

// f32 on a GPU this build's kernel runs on: cp.async needs sm_80 code or later (no GPU: no).
bool can_run(const matmul_problem& p) {
  static const bool built = kernel_built_for(wide_async_kernel<false>, 80);
  return p.type == dtype::f32 && grid_fits(p) && built;
}

std::size_t scratch(const matmul_problem& p) {
  if (p.m == 0 || p.n == 0 || p.k == 0) return 0;
  const m15_layout l(p);
  return (l.b_elements() + l.c_elements(p.m) + l.cut.parts_elements(p.m, p.n)) * sizeof(float);
}

void run(const matmul_call& c) {
  if (c.p.m == 0 || c.p.n == 0) return;
  if (c.p.k == 0) return m08_double_buffered.run(c);  // C = beta C
  const auto s = static_cast<cudaStream_t>(c.stream);
  const gemm<float> g = typed<float>(c);
  const m15_layout l(c.p);
  // B's tiles whole by shape but its rows not 16-byte aligned: no room for a copy was asked.
  if (!l.pad_b && !rows_aligned(g.b, g.ldb)) return m08_double_buffered.run(c);
  float* scratch = static_cast<float*>(c.scratch);
  gemm<float> w = g;
  w.k = l.to.kp;
  const int lead = int(l.to.kp - g.k);
  if (l.pad_b) {
    launch_pad_copy(g.b, g.ldb, g.k, g.n, scratch, l.to.kp, l.to.np, s, std::size_t(lead));
    w.b = scratch, w.ldb = l.to.np, scratch += l.b_elements();
  }
  // C's rows not 16-byte aligned: 4-byte stores from the kernel would write each 32-byte sector of
  // C four times, all blocks of a wave at once (at 4093^3, 90 us of the kernel's 2.9 ms). The
  // results go to aligned rows of scratch instead, then to C (37 us).
  const bool staged = l.stage_c && !rows_aligned(g.c, g.ldc);
  if (staged) {
    w.c = scratch, w.ldc = l.to.np, w.alpha = 1, w.beta = 0;
    scratch += l.c_elements(g.m);
  }
  const k_slices<float> slices =
      l.cut.count > 1 ? k_slices<float>{scratch, l.cut.ks, g.n % 4 == 0} : k_slices<float>{};
  const auto kernel =
      g.m % P::BM == 0 && lead == 0 ? wide_async_kernel<false> : wide_async_kernel<true>;
  allow_shared(kernel, P::shared_bytes);
  const dim3 grid(unsigned(l.to.np / P::BN), unsigned(l.to.mp / P::BM), unsigned(l.cut.count));
  kernel<<<grid, P::NT, P::shared_bytes, s>>>(w, rows_aligned(w.c, w.ldc), slices, lead);
  PPLAB_CUDA_LAUNCHED();
  if (l.cut.count > 1) launch_add_parts(g, scratch, l.cut.count, s);
  if (staged) launch_store_staged(g, w.c, w.ldc, s);
}

}  // namespace

extern const matmul_rung m15_wide_async{
    .info = {.step = 15,
             .summary = "f32: 8 x 16 results per thread, tiles by cp.async (A transposed by 4-byte "
                        "copies) issued among the multiply-adds"},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
