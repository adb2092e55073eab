// matmul/cpu/m05_vector_times_matrix: x B (a product whose A is one row, m = 1) as the column
// case of a reduction: y[j] sums x[i] B[i][j] down column j. Walking a column would stride
// through memory, so each row of B is scaled and added into y's sums instead (an axpy per row):
// unit stride along B's rows (whole rows up to 64 KiB, so the prefetchers see long runs), the
// block of sums held in L2 while the rows stream past, eight rows per pass with their
// multiply-adds chained in row order (a pass loads and stores the block of sums once for eight
// rows of B). The work is cut into blocks of columns and chunks of at least 256 rows,
// both sized from the shape alone (up to 64 pieces, for the threads of any machine); the chunks'
// partial sums are added in row order, so every y[j] gets the same bits whatever the thread
// count. The floor is reading B once.
// Measured (2-core EPYC dev machine, AVX-512, bench/results/cpu-2core-2026-11-29-python-vs-host-
// 3c7017c.txt): f32 1x4096x4096 with four rows a pass 0.86-0.88x OpenBLAS's sgemv in three quick
// labs, with eight 0.97-1.05x (interleaved runs); through Python f32 4096^2 and 8192^2 0.88-1.00x
// numpy.matmul with four, 0.99-1.07x with eight.
#include <omp.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_cpu {
namespace {

constexpr std::size_t block_bytes = 65536;  // a block of y's sums: 64 KiB, in L2
constexpr std::size_t pieces_wanted = 64;

// acc[0:cols] += sum over rows r of x[r] * B[r][0:cols], one row after another.
template <class T>
void add_rows(T* acc, const T* x, const T* b, std::size_t ldb, std::size_t rows, std::size_t cols) {
  std::size_t r = 0;
  for (; r + 8 <= rows; r += 8) {
    const T x0 = x[r], x1 = x[r + 1], x2 = x[r + 2], x3 = x[r + 3];
    const T x4 = x[r + 4], x5 = x[r + 5], x6 = x[r + 6], x7 = x[r + 7];
    const T *b0 = b + r * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
    const T *b4 = b3 + ldb, *b5 = b4 + ldb, *b6 = b5 + ldb, *b7 = b6 + ldb;
#pragma omp simd
    for (std::size_t j = 0; j < cols; ++j)
      acc[j] = acc[j] + x0 * b0[j] + x1 * b1[j] + x2 * b2[j] + x3 * b3[j] + x4 * b4[j] +
               x5 * b5[j] + x6 * b6[j] + x7 * b7[j];
  }
  for (; r < rows; ++r) {
    const T xr = x[r];
    const T* br = b + r * ldb;
#pragma omp simd
    for (std::size_t j = 0; j < cols; ++j) acc[j] = acc[j] + xr * br[j];
  }
}

// y[0:cols] = alpha sum + beta y (beta 0: y not read).
template <class T> void store(T* y, const T* sum, std::size_t cols, T alpha, T beta) {
  if (beta == T(0))
    for (std::size_t j = 0; j < cols; ++j) y[j] = alpha * sum[j];
  else
    for (std::size_t j = 0; j < cols; ++j) y[j] = alpha * sum[j] + beta * y[j];
}

struct vector_times_matrix {
  template <class T> static void run(const gemm<T>& g) {
    if (g.n == 0) return;
    constexpr std::size_t width = block_bytes / sizeof(T);
    const std::size_t blocks = (g.n + width - 1) / width;
    const std::size_t chunks =
        std::clamp<std::size_t>((pieces_wanted + blocks - 1) / blocks, 1, (g.k + 255) / 256);
    const std::size_t chunk_rows = std::max<std::size_t>(1, (g.k + chunks - 1) / chunks);
    // part[c][j]: chunk c's sum for column j (unscaled), where there are several chunks; one
    // chunk: each block's sum stored into y straight from the thread's own accumulators.
    const std::unique_ptr<T[]> part(chunks > 1 ? new T[chunks * g.n] : nullptr);
#pragma omp parallel
    {
      std::vector<T> own(chunks > 1 ? 0 : width);
#pragma omp for schedule(static)
      for (std::ptrdiff_t tt = 0; tt < std::ptrdiff_t(chunks * blocks); ++tt) {
        const std::size_t c = std::size_t(tt) / blocks, j0 = std::size_t(tt) % blocks * width;
        const std::size_t r0 = std::min(g.k, c * chunk_rows), r1 = std::min(g.k, r0 + chunk_rows);
        const std::size_t cols = std::min(width, g.n - j0);
        T* acc = chunks > 1 ? part.get() + c * g.n + j0 : own.data();
        std::fill_n(acc, cols, T(0));
        add_rows(acc, g.a + r0, g.b + r0 * g.ldb + j0, g.ldb, r1 - r0, cols);
        if (chunks == 1) store(g.c + j0, acc, cols, g.alpha, g.beta);
      }
      if (chunks > 1) {
#pragma omp for schedule(static)
        for (std::ptrdiff_t jj = 0; jj < std::ptrdiff_t(g.n); ++jj) {
          const std::size_t j = std::size_t(jj);
          T sum = part[j];
          for (std::size_t c = 1; c < chunks; ++c) sum += part[c * g.n + j];
          store(g.c + j, &sum, 1, g.alpha, g.beta);
        }
      }
    }
  }
};

void run(const matmul_call& c) { dispatch_matmul<vector_times_matrix>(c); }

bool one_row(const matmul_problem& p) { return one_float_product(p) && p.m == 1; }

}  // namespace

extern const matmul_rung m05_vector_times_matrix{
    .info = {.step = 5,
             .summary =
                 "x B (m = 1): rows of B scaled and added into y's sums, chunks of rows summed"},
    .can_run = one_row,
    .run = run,
};

}  // namespace pplab::detail::matmul_cpu
