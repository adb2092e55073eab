// matmul/cpu/m06_small_products: a product too small for packing to pay, every side at most 64
// (a stack of small matrices: numpy.matmul of (1024, 16, 16) operands). m03 packs A and B into
// panels for the caches and runs a micro-kernel built for large products; on a stack of 16^3
// products that cost about 2-4 us a product on one core of a 2-core EPYC, where its 4096
// multiply-adds take a tenth of that.
// Here B is copied once into a block of whole vectors (zeros past its n columns: at most 64 x 64
// values), and a group of up to 4 rows of C is held in vector registers while each k's values of
// A are broadcast against B's row: no packing of A, no scratch, one pass over A. The k terms of
// each element are added in order.
// Measured (2-core EPYC with AVX2, bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt,
// its last section): numpy.matmul of 256 x 32^3 f32 through Python 0.510 ms against m03's 0.758
// (numpy 0.587), of 1024 x 16^3 0.673 against 2.226 (numpy 0.596). With B's rows cut into chunks
// of 4 vectors and a product alone split over the threads (its eleventh section): a lone 64^3 in
// the quick lab 16 us -> 9 us (m03 11, OpenBLAS 11); stacks through Python 1.46-1.84x numpy.
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_cpu {
namespace {

constexpr std::size_t most = 64;  // the longest side it takes

// The machine's vectors, chosen when compiled (-march): GCC's vector extension on a width the
// target lacks (64 bytes on an AVX2 machine) went through memory element by element, 10x slower
// than m03 there.
#ifdef __AVX512F__
constexpr int vec_bytes = 64, registers = 32;
#else
constexpr int vec_bytes = 32, registers = 16;
#endif
template <class T> struct vec { typedef T type __attribute__((vector_size(vec_bytes))); };
// B's padded row is cut into chunks of at most this many vectors, each multiplied on its own: a
// whole row of 8 vectors (64 f32 on AVX2) left registers for one row of C at a time, 9 loads for 8
// multiply-adds; a chunk of 4 holds two rows of C, 6 loads for 8.
constexpr int chunk_vectors = 4;
// Rows of C held at once for a chunk of CV vectors: as many as the registers hold beside B's.
template <int CV> constexpr int rows_at_once = std::max(1, std::min(4, (registers - 2) / CV - 1));

// Rows i0 .. i0 + R - 1 of C, the columns of vectors [V0, V0 + CV) of B's padded rows (NV vectors
// each).
template <class T, int NV, int V0, int CV, int R>
void rows_of_c(const gemm<T>& g, const T* b, std::size_t i0) {
  using V = typename vec<T>::type;
  constexpr int L = vec_bytes / int(sizeof(T));
  V acc[R][CV] = {};
  for (std::size_t l = 0; l < g.k; ++l) {
    const V* row = reinterpret_cast<const V*>(b + l * NV * L) + V0;
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const T a = g.a[(i0 + std::size_t(r)) * g.lda + l];
#pragma GCC unroll 16
      for (int v = 0; v < CV; ++v) acc[r][v] += a * row[v];
    }
  }
  const std::size_t j0 = std::size_t(V0) * L, cols = std::min(g.n, j0 + CV * L) - j0;
  for (int r = 0; r < R; ++r) {
    T* c = g.c + (i0 + std::size_t(r)) * g.ldc + j0;
    const T* sum = reinterpret_cast<const T*>(&acc[r][0]);
    if (g.beta == T(0)) {  // C not read (BLAS: a NaN there stays out)
      for (std::size_t j = 0; j < cols; ++j) c[j] = g.alpha * sum[j];
    } else {
      for (std::size_t j = 0; j < cols; ++j) c[j] = g.alpha * sum[j] + g.beta * c[j];
    }
  }
}

// The rows left after the whole groups: fewer than R.
template <class T, int NV, int V0, int CV, int R>
void last_rows(const gemm<T>& g, const T* b, std::size_t i0, std::size_t left) {
  if constexpr (R > 1) {
    if (left == std::size_t(R - 1)) return rows_of_c<T, NV, V0, CV, R - 1>(g, b, i0);
    last_rows<T, NV, V0, CV, R - 1>(g, b, i0, left);
  }
}

// Rows [i0, i0 + count) (count <= R) of C, every chunk of B's row from vector V0 on.
template <class T, int NV, int R, int V0 = 0>
void rows_over_chunks(const gemm<T>& g, const T* b, std::size_t i0, std::size_t count) {
  constexpr int CV = std::min(chunk_vectors, NV - V0);
  if (count == std::size_t(R)) rows_of_c<T, NV, V0, CV, R>(g, b, i0);
  else last_rows<T, NV, V0, CV, R>(g, b, i0, count);
  if constexpr (V0 + CV < NV) rows_over_chunks<T, NV, R, V0 + CV>(g, b, i0, count);
}

// A product alone (not one of a stack's, which the stack shares among the threads one product to
// each) of at least this many multiply-adds splits its groups of rows over the threads: 64^3 on
// one thread of the 2-core EPYC with AVX2 took 16 us where m03 on two took 7 (the quick lab).
// With 512-bit vectors it never splits: one thread takes 64^3 in 6.1 us, every run, where the
// split took 6 us when the other thread was awake and 14 us when it had to be woken (the quick
// lab alternated between them: 1.15x and 3.08x OpenBLAS's 4.6 us; one thread: 1.34x, bench/
// results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its last section). Each row of C is
// computed as on one thread: the same bits.
constexpr std::size_t split_from = vec_bytes == 64 ? ~std::size_t(0) : std::size_t(1) << 16;

template <class T, int NV> void product(const gemm<T>& g) {
  constexpr int L = vec_bytes / int(sizeof(T)), R = rows_at_once<std::min(NV, chunk_vectors)>;
  alignas(64) T b[most * NV * L];
  for (std::size_t l = 0; l < g.k; ++l) {
    T* row = b + l * NV * L;
    std::memcpy(row, g.b + l * g.ldb, g.n * sizeof(T));
    std::fill(row + g.n, row + NV * L, T(0));
  }
  const std::size_t groups = (g.m + R - 1) / R;
  const auto group = [&](std::size_t q) {
    const std::size_t i = q * R;
    rows_over_chunks<T, NV, R>(g, b, i, std::min<std::size_t>(R, g.m - i));
  };
  if (groups > 1 && !omp_in_parallel() && g.m * g.n * g.k >= split_from) {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t q = 0; q < std::ptrdiff_t(groups); ++q) group(std::size_t(q));
    return;
  }
  for (std::size_t q = 0; q < groups; ++q) group(q);
}

// product<T, NV> for B's row in NV whole vectors, NV from 1 to most / L.
template <class T, int NV = 1> void product_of_width(const gemm<T>& g, std::size_t nv) {
  if constexpr (NV * (vec_bytes / int(sizeof(T))) <= int(most)) {
    if (nv == std::size_t(NV)) return product<T, NV>(g);
    product_of_width<T, NV + 1>(g, nv);
  }
}

struct small_products {
  template <class T> static void run(const gemm<T>& g) {
    if (g.m == 0 || g.n == 0) return;
    constexpr std::size_t L = vec_bytes / sizeof(T);
    product_of_width<T>(g, (g.n + L - 1) / L);
  }
};

bool can_run(const matmul_problem& p) {
  return one_float_product(p) && p.m <= most && p.n <= most && p.k <= most;
}

void run(const matmul_call& c) { dispatch_matmul<small_products>(c); }

}  // namespace

extern const matmul_rung m06_small_products{
    .info = {.step = 6,
             .summary = "products of sides to 64 without packing: rows of C in vector registers, "
                        "B copied once into whole vectors"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::matmul_cpu
