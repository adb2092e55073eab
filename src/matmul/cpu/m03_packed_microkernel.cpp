// matmul/cpu/m03_packed_microkernel: the BLIS/GotoBLAS structure. B is packed, (kc, nc) at a
// time, into panels nr columns wide that stay in L3; each thread packs an (mc, kc) block of A
// into panels mr rows tall that stay in L2; then a register-blocked micro-kernel multiplies one
// A panel by one B panel: an (mr, nr) tile of C held in vector registers for the whole kc loop.
// Per k step it loads nr/W vectors of B and broadcasts mr values of A to feed mr*nr/W FMAs, so
// the FMA units, not the loads, set the pace. Packing makes every kernel load unit-stride and
// aligned whatever lda/ldb are, and pads the edges with zeros so any M, N, K takes one path.
// Threads split the mc blocks of A (and each block's panels of B where the blocks are fewer
// than twice the threads); the packed B panel is shared. A short, wide product (A of at most two
// blocks) instead gives each thread its own columns of C, B packed four panels at a time just
// before use (short_wide): f64 128 x 8192 x 8192 on the 2-core EPYC (AVX-512) went from 0.58-0.66x
// to 0.93-0.94x OpenBLAS's dgemm, f32 from 0.96-0.98x to 1.00-1.03x, f64 256 x 8192 x 8192 from
// 0.71x to 0.92x (bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its last section).
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): f32 2048^3, 115.7
// GFLOP/s, 57.8% of the FMA peak measured in the same run, 0.78x OpenBLAS; with C updated from
// the registers, B's whole panels copied by constant-size moves and the blocks balanced over
// the threads (bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its eighth
// section): 137.3 GFLOP/s, 0.89-0.93x; with the k loop four steps a trip 147-149 GFLOP/s,
// 0.92-1.01x (one thread 0.93-0.99x).
#include <omp.h>
#ifdef __AVX__
#include <immintrin.h>
#endif

#include <cstdlib>
#include <cstring>

#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_cpu {
namespace {

// The vector registers the build's target has: 512 bits with AVX-512 (32 of them), else 256.
#ifdef __AVX512F__
constexpr std::size_t vector_bytes = 64;
#else
constexpr std::size_t vector_bytes = 32;
#endif

// Tunables for 32 KiB of L1 and 512 KiB+ of L2 per core (Zen 3 and 4, Haswell+). A B panel
// (kc, nr) stays in L1 while the block of A's panels pass it: 16 KiB of f32 at 256-bit vectors
// (kc 256, nr 16); at 512-bit ones nr doubles and the panel is 32 KiB, and mc doubles. kc had
// been halved there to keep the panel at 16 KiB: C's tiles are then read and written twice as
// often (once a kc block), and kc 256 measured 2-5% faster on the 2-core EPYC with AVX-512
// (f64 4096^3 0.89-0.92x -> 0.93-0.96x OpenBLAS, f32 0.96-0.97x -> 0.98-0.99x; bench/results/
// cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its last section).
template <class T> struct shape {
  static constexpr std::size_t W = vector_bytes / sizeof(T);  // elements per vector register
  static constexpr std::size_t mr = 6, nr = 2 * W;            // 12 accumulator registers
  static constexpr std::size_t kc = 256;
  static constexpr std::size_t mc = vector_bytes == 64 ? 240 : 120;  // (mc, kc) block of A in L2
  static constexpr std::size_t nc = 3072;                            // (kc, nc) block of B in L3
};

// A thread's packing buffers (one for panels of A, one for panels of B), kept for its next
// product and grown when one needs more, 64-byte aligned. Allocated afresh for every product, a
// buffer of a few hundred KiB came as new pages from the system until the allocator learned to
// keep them: 512 x 256 x 512 f32 took 1.3-12 ms a product for the first six in a process, 0.46
// ms after (2-core EPYC, Zen 5). As with a fresh allocation, the packing writes every value a
// product reads before it is read.
enum class pack_slot { a, b };
template <class T> T* packing_buffer(pack_slot slot, std::size_t count) {
  struct kept {
    void* data = nullptr;
    std::size_t bytes = 0;
    ~kept() { std::free(data); }
  };
  thread_local kept slots[2];
  kept& k = slots[int(slot)];
  const std::size_t bytes = (count * sizeof(T) + 63) / 64 * 64;
  if (bytes > k.bytes) {
    std::free(k.data);
    k.data = std::aligned_alloc(64, bytes);
    k.bytes = k.data ? bytes : 0;
  }
  return static_cast<T*>(k.data);
}

// B[k0:k0+kc, j0:j0+nc] into panels of nr columns: panel p holds (kc, nr), zero-padded. Four
// whole panels at a time are copied row by row (a row's 4 x nr values, 256 bytes of f32, are
// contiguous in B), the row 8 ahead asked for in the cache: B's rows lie ldb apart, too far for
// the hardware to fetch ahead, and a panel copied alone reads one line per row. On one core of the
// 2-core EPYC, packing all of a 128 x 8192 x 8192 product's B (256 MiB) took ~41 ms panel by
// panel and ~31 ms this way: 0.83-0.86x OpenBLAS -> 0.88-0.92x for the product on one thread
// (bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its tenth section).
template <class T>
void pack_b_group(const gemm<T>& g, std::size_t k0, std::size_t kc, std::size_t j0, std::size_t nc,
                  std::size_t p0, T* out) {
  constexpr std::size_t nr = shape<T>::nr, group = 4, ahead = 8, line = 64 / sizeof(T);
  const std::size_t panels = (nc + nr - 1) / nr, count = std::min(group, panels - p0);
  const std::size_t j = j0 + p0 * nr;
  T* dst = out + p0 * kc * nr;
  const T* src = g.b + k0 * g.ldb + j;
  if (count == group && j + group * nr <= j0 + nc) {  // whole panels: copies of a constant size
    for (std::size_t k = 0; k < kc; ++k, src += g.ldb) {
      if (k + ahead < kc)
        for (std::size_t q = 0; q < group * nr; q += line)
          __builtin_prefetch(src + ahead * g.ldb + q, 0, 3);
      for (std::size_t q = 0; q < group; ++q)
        std::memcpy(dst + (q * kc + k) * nr, src + q * nr, nr * sizeof(T));
    }
    return;
  }
  for (std::size_t q = 0; q < count; ++q) {  // the ragged end, panel by panel
    const std::size_t cols = std::min(nr, j0 + nc - (j + q * nr));
    const T* from = src + q * nr;
    T* to = dst + q * kc * nr;
    for (std::size_t k = 0; k < kc; ++k, to += nr, from += g.ldb) {
      std::memcpy(to, from, cols * sizeof(T));
      std::fill(to + cols, to + nr, T(0));
    }
  }
}

// The whole (kc, nc) block, its groups of panels shared among the team's threads.
template <class T>
void pack_b(const gemm<T>& g, std::size_t k0, std::size_t kc, std::size_t j0, std::size_t nc,
            T* out) {
  constexpr std::size_t nr = shape<T>::nr, group = 4;
  const std::size_t panels = (nc + nr - 1) / nr, groups = (panels + group - 1) / group;
#pragma omp for schedule(static)
  for (std::ptrdiff_t gg = 0; gg < std::ptrdiff_t(groups); ++gg)
    pack_b_group(g, k0, kc, j0, nc, std::size_t(gg) * group, out);
}

// A[i0:i0+mc, k0:k0+kc] into panels of mr rows: panel p holds (kc, mr), k-major, zero-padded.
template <class T>
void pack_a(const gemm<T>& g, std::size_t i0, std::size_t mc, std::size_t k0, std::size_t kc,
            T* out) {
  constexpr std::size_t mr = shape<T>::mr;
  for (std::size_t p = 0; p * mr < mc; ++p) {
    const std::size_t rows = std::min(mr, mc - p * mr);
    T* dst = out + p * kc * mr;
    for (std::size_t r = 0; r < mr; ++r) {
      if (r < rows) {
        const T* src = g.a + (i0 + p * mr + r) * g.lda + k0;
        for (std::size_t k = 0; k < kc; ++k) dst[k * mr + r] = src[k];
      } else {
        for (std::size_t k = 0; k < kc; ++k) dst[k * mr + r] = T(0);
      }
    }
  }
}

// One value of A in every lane: a single broadcast load where AVX has one (the compiler's own
// choice here was a chain of shuffles competing with the FMAs for their ports).
template <class T, class V> inline V splat(const T* p) {
#ifdef __AVX512F__
  if constexpr (sizeof(V) == 64 && sizeof(T) == 4) return reinterpret_cast<V>(_mm512_set1_ps(*p));
  if constexpr (sizeof(V) == 64 && sizeof(T) == 8) return reinterpret_cast<V>(_mm512_set1_pd(*p));
#endif
#ifdef __AVX__
  if constexpr (sizeof(V) == 32 && sizeof(T) == 4)
    return reinterpret_cast<V>(_mm256_broadcast_ss(p));
  if constexpr (sizeof(V) == 32 && sizeof(T) == 8)
    return reinterpret_cast<V>(_mm256_broadcast_sd(p));
#endif
  V v;
  for (std::size_t i = 0; i < sizeof(V) / sizeof(T); ++i) v[i] = *p;
  return v;
}

// c + a * b in one fused multiply-add, rounded once, where the target has it: the build rounds
// every other product and sum as written (-ffp-contract=off), which made the loop a multiply and
// an add, two instructions for each of the tile's updates.
template <class T, class V> inline V fma(V a, V b, V c) {
#ifdef __AVX512F__
  if constexpr (sizeof(V) == 64 && sizeof(T) == 4)
    return reinterpret_cast<V>(_mm512_fmadd_ps(
        reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(c)));
  if constexpr (sizeof(V) == 64 && sizeof(T) == 8)
    return reinterpret_cast<V>(_mm512_fmadd_pd(
        reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b), reinterpret_cast<__m512d>(c)));
#endif
#ifdef __FMA__
  if constexpr (sizeof(V) == 32 && sizeof(T) == 4)
    return reinterpret_cast<V>(_mm256_fmadd_ps(
        reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(c)));
  if constexpr (sizeof(V) == 32 && sizeof(T) == 8)
    return reinterpret_cast<V>(_mm256_fmadd_pd(
        reinterpret_cast<__m256d>(a), reinterpret_cast<__m256d>(b), reinterpret_cast<__m256d>(c)));
#endif
  return c + a * b;
}

// acc (mr, nr) = A panel (kc, mr)^T * B panel (kc, nr), all in registers: twelve named
// accumulators (an array of them ended up on the stack), two vectors of B per k step and one
// broadcast of A per row. `put(row, first half, second half)` then takes each row of the tile
// from its registers: into C directly for a whole tile, else into an array for the edges' loops.
// (The whole tile had gone through that array and a scalar loop per row too: about a tenth of a
// 256-deep tile's time at 2048^3.) C's rows are asked for in the cache as the tile starts.
template <class T, class Put>
inline void micro_kernel(std::size_t kc, const T* ap, const T* bp, const T* c, std::size_t ldc,
                         Put&& put) {
  static_assert(shape<T>::mr == 6 && shape<T>::nr == 2 * shape<T>::W);
  constexpr std::size_t W = shape<T>::W;
  typedef T V __attribute__((vector_size(vector_bytes)));
  if (c)
    for (std::size_t r = 0; r < 6; ++r) {
      __builtin_prefetch(c + r * ldc, 1);
      __builtin_prefetch(c + r * ldc + 2 * W - 1, 1);
    }
  V c00{}, c01{}, c10{}, c11{}, c20{}, c21{}, c30{}, c31{}, c40{}, c41{}, c50{}, c51{};
  // Four k steps a trip: on one core of the 2-core EPYC 2048^3 went from 70 to 82-84 GFLOP/s
  // (68% to 80% of the FMA peak; OpenBLAS 83-93), the loop's own adds and branch a quarter as
  // often between the multiply-adds.
#pragma GCC unroll 4
  for (std::size_t k = 0; k < kc; ++k, ap += 6, bp += 2 * W) {
    V b0, b1, a;
    std::memcpy(&b0, bp, sizeof(V));
    std::memcpy(&b1, bp + W, sizeof(V));
    a = splat<T, V>(ap + 0), c00 = fma<T>(a, b0, c00), c01 = fma<T>(a, b1, c01);
    a = splat<T, V>(ap + 1), c10 = fma<T>(a, b0, c10), c11 = fma<T>(a, b1, c11);
    a = splat<T, V>(ap + 2), c20 = fma<T>(a, b0, c20), c21 = fma<T>(a, b1, c21);
    a = splat<T, V>(ap + 3), c30 = fma<T>(a, b0, c30), c31 = fma<T>(a, b1, c31);
    a = splat<T, V>(ap + 4), c40 = fma<T>(a, b0, c40), c41 = fma<T>(a, b1, c41);
    a = splat<T, V>(ap + 5), c50 = fma<T>(a, b0, c50), c51 = fma<T>(a, b1, c51);
  }
  put(0, c00, c01), put(1, c10, c11), put(2, c20, c21);
  put(3, c30, c31), put(4, c40, c41), put(5, c50, c51);
}

// The tiles of C[i0:i0+mc, j0+jr_first : j0+jr_end] from the packed block of A (its panels at
// `apack`) and the packed panels of B (panel jr / nr at `bpack`); `first`: the first k block,
// which applies beta (later ones accumulate).
template <class T>
void multiply_tiles(const gemm<T>& g, std::size_t kc, bool first, std::size_t i0, std::size_t mc,
                    std::size_t j0, std::size_t nc, std::size_t jr_first, std::size_t jr_end,
                    const T* apack, const T* bpack) {
  using S = shape<T>;
  typedef T V __attribute__((vector_size(vector_bytes)));
  alignas(64) T acc[S::mr * S::nr];
  for (std::size_t jr = jr_first; jr < jr_end; jr += S::nr) {
    const std::size_t cols = std::min(S::nr, nc - jr);
    const T* bp = bpack + (jr / S::nr) * kc * S::nr;
    for (std::size_t ir = 0; ir < mc; ir += S::mr) {
      const std::size_t rows = std::min(S::mr, mc - ir);
      const T* ap = apack + (ir / S::mr) * kc * S::mr;
      T* const c0 = g.c + (i0 + ir) * g.ldc + j0 + jr;
      if (rows == S::mr && cols == S::nr) {  // a whole tile: C from the registers
        const V valpha = V{} + g.alpha, vbeta = V{} + g.beta;
        const bool plain = first && g.beta == T(0);  // C not read (BLAS's rule)
        micro_kernel<T>(kc, ap, bp, c0, g.ldc, [&](std::size_t r, V lo, V hi) {
          T* row = c0 + r * g.ldc;
          V x0, x1;
          if (plain) {
            x0 = valpha * lo, x1 = valpha * hi;
          } else {
            std::memcpy(&x0, row, sizeof(V));
            std::memcpy(&x1, row + S::W, sizeof(V));
            x0 = first ? valpha * lo + vbeta * x0 : x0 + valpha * lo;
            x1 = first ? valpha * hi + vbeta * x1 : x1 + valpha * hi;
          }
          std::memcpy(row, &x0, sizeof(V));
          std::memcpy(row + S::W, &x1, sizeof(V));
        });
        continue;
      }
      micro_kernel<T>(kc, ap, bp, nullptr, 0, [&](std::size_t r, V lo, V hi) {
        std::memcpy(acc + r * S::nr, &lo, sizeof(V));
        std::memcpy(acc + r * S::nr + S::W, &hi, sizeof(V));
      });
      for (std::size_t r = 0; r < rows; ++r) {
        T* crow = g.c + (i0 + ir + r) * g.ldc + j0 + jr;
        const T* arow = acc + r * S::nr;
        if (!first) {
          for (std::size_t j = 0; j < cols; ++j) crow[j] += g.alpha * arow[j];
        } else if (g.beta == T(0)) {
          for (std::size_t j = 0; j < cols; ++j) crow[j] = g.alpha * arow[j];
        } else {
          for (std::size_t j = 0; j < cols; ++j) crow[j] = g.alpha * arow[j] + g.beta * crow[j];
        }
      }
    }
  }
}

// A short, wide product (A of at most two blocks of mc rows): each thread takes its own run of
// C's columns and packs B four panels at a time just before multiplying them, while they are in
// its L1 and L2, with the whole of A's block (kc, m) packed in its L2. The shared path below
// packs each (kc, nc) block of B first, all threads together, then waits: a phase bound by the
// memory (B is read from it once and used by only m rows) that the multiplying does not hide,
// and two barriers a step. Here no thread waits for another, and each B panel is read into the
// cache once, by the thread that uses it.
template <class T> void short_wide(const gemm<T>& g) {
  using S = shape<T>;
  constexpr std::size_t group = 4;
  const std::size_t kc_most = std::min(S::kc, g.k);
  const std::size_t panels = ceil_div(g.n, S::nr);
#pragma omp parallel
  {
    const std::size_t t = std::size_t(omp_get_thread_num()),
                      team = std::size_t(omp_get_num_threads());
    // This thread's panels, in groups of four (the last thread's ragged end too)
    const std::size_t groups = ceil_div(panels, group);
    const std::size_t g_first = t * groups / team, g_end = (t + 1) * groups / team;
    T* const apack = packing_buffer<T>(pack_slot::a, kc_most * (ceil_div(g.m, S::mr) * S::mr));
    T* const bpack = packing_buffer<T>(pack_slot::b, kc_most * group * S::nr);
    // The columns in chunks of nc (C's block stays in the cache over the k steps, as below)
    const std::size_t chunk_groups = S::nc / (group * S::nr);
    for (std::size_t c0 = g_first; c0 < g_end; c0 += chunk_groups) {
      const std::size_t c1 = std::min(g_end, c0 + chunk_groups);
      for (std::size_t k0 = 0; k0 < g.k; k0 += S::kc) {
        const std::size_t kc = std::min(S::kc, g.k - k0);
        pack_a(g, 0, g.m, k0, kc, apack);
        for (std::size_t gg = c0; gg < c1; ++gg) {
          // Group gg's panels as panels 0..3 of a block starting at its first column
          const std::size_t j0 = gg * group * S::nr, nc = std::min(group * S::nr, g.n - j0);
          pack_b_group(g, k0, kc, j0, nc, 0, bpack);
          multiply_tiles(g, kc, k0 == 0, 0, g.m, j0, nc, 0, nc, apack, bpack);
        }
      }
    }
  }
}

struct packed_microkernel {
  template <class T> static void run(const gemm<T>& g) {
    using S = shape<T>;
    if (g.m == 0 || g.n == 0) return;
    if (g.k == 0) {  // C = beta * C
      for (std::size_t i = 0; i < g.m; ++i) scale_row(g.c + i * g.ldc, g.n, g.beta);
      return;
    }
    // The blocks of A: at most mc rows each, as many as a whole number of them per thread, of
    // even height (whole panels of mr rows): a 2048-row A in blocks of 120 left one thread 9
    // blocks and the other 8 and a sliver of 8 rows, idle for a ninth of each K step's barrier.
    const std::size_t threads = std::size_t(omp_get_max_threads());
    const std::size_t count = (ceil_div(g.m, S::mc) + threads - 1) / threads * threads;
    const std::size_t mc_rows = std::min(S::mc, ceil_div(ceil_div(g.m, count), S::mr) * S::mr);
    // Fewer blocks of A than twice the threads, and A within two blocks' rows: short_wide
    if (threads > 1 && g.m <= 2 * S::mc && ceil_div(g.m, mc_rows) < 2 * threads &&
        ceil_div(g.n, S::nr) >= 4 * threads) {
      short_wide(g);
      return;
    }
    // The panels sized for this product's K, N and M (a small product, as in a stack of them,
    // allocates a few KiB, not the 3 MiB of a whole kc x nc panel of B)
    const std::size_t kc_most = std::min(S::kc, g.k);
    T* const bpack = packing_buffer<T>(
        pack_slot::b, kc_most * ((std::min(S::nc, g.n) + S::nr - 1) / S::nr * S::nr));
#pragma omp parallel
    {
      T* const apack = packing_buffer<T>(pack_slot::a, kc_most * (std::min(S::mc, g.m) + S::mr));
      for (std::size_t j0 = 0; j0 < g.n; j0 += S::nc) {
        const std::size_t nc = std::min(S::nc, g.n - j0);
        for (std::size_t k0 = 0; k0 < g.k; k0 += S::kc) {
          const std::size_t kc = std::min(S::kc, g.k - k0);
          pack_b(g, k0, kc, j0, nc, bpack);  // ends with the barrier of its omp for
          const std::size_t blocks = ceil_div(g.m, mc_rows), panels = ceil_div(nc, S::nr);
          // Fewer blocks of A than twice the threads (a short, wide product where short_wide
          // does not take it): each block's panels of B are cut into parts too, so that every
          // thread has work; a part packs its block of A again (mc x kc, small beside the
          // part's products).
          const std::size_t threads = std::size_t(omp_get_num_threads());
          const std::size_t parts =
              blocks >= 2 * threads ? 1 : std::min(panels, (2 * threads + blocks - 1) / blocks);
#pragma omp for schedule(dynamic)
          for (std::ptrdiff_t item = 0; item < std::ptrdiff_t(blocks * parts); ++item) {
            const std::size_t bb = std::size_t(item) / parts, part = std::size_t(item) % parts;
            const std::size_t i0 = bb * mc_rows, mc = std::min(mc_rows, g.m - i0);
            const std::size_t jr_first = part * panels / parts * S::nr,
                              jr_end = std::min(nc, (part + 1) * panels / parts * S::nr);
            pack_a(g, i0, mc, k0, kc, apack);
            multiply_tiles(g, kc, k0 == 0, i0, mc, j0, nc, jr_first, jr_end, apack, bpack);
          }  // implicit barrier: nobody repacks B while another thread still reads it
        }
      }
    }
  }
};

void run(const matmul_call& c) { dispatch_matmul<packed_microkernel>(c); }

}  // namespace

extern const matmul_rung m03_packed_microkernel{
    .info = {.step = 3,
             .summary = "packed panels and a 6 x 2-vector register-blocked FMA micro-kernel"},
    .can_run = one_float_product,
    .run = run,
};

}  // namespace pplab::detail::matmul_cpu
