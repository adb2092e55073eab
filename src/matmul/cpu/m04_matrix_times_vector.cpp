// matmul/cpu/m04_matrix_times_vector: A x (a product whose B is one column, n = 1) as what it
// is, a reduction per row: each row of A dotted with x. Nothing is reused but x, so packing and
// register tiles (m03) only add work; the floor is reading A once. Each dot keeps `lanes`
// independent accumulators in vector registers (reduce/cpu/r03's idea) so the loads, not the
// add chain, set the pace; four rows go side by side, so that a load of x serves four rows and
// four streams of A are in flight. A row is cut into fixed pieces of 2^14 elements, each piece's
// lanes combined pairwise and the pieces added left to right: the threads share the rows when there
// are enough, else the pieces of each row, and either way every row gets the same bits whatever
// the thread count. A strided x (ldb > 1) is copied into one contiguous vector first.
// Measured (2-core EPYC dev machine, AVX2, bench/results/cpu-2core-2026-11-29-python-vs-host-
// 3c7017c.txt): f32 4096x1x4096 1.681 ms, 72.5% of the read ceiling at its size, 0.98x OpenBLAS's
// sgemv on 2026-11-29; 0.53-0.71x on 2026-11-30 in five quick labs with the accumulators as
// 64-byte vectors (kept on the stack there: see lanes32), 0.90-1.04x with two 32-byte vectors a
// row (that record's sixth section).
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_cpu {
namespace {

constexpr std::size_t piece = std::size_t(1) << 14;

// 32 bytes of T as one vector of GCC's vector extension: an AVX2 register (half an AVX-512
// one). A 64-byte vector type, on a machine without AVX-512, was kept on the stack and moved in
// 8-byte pieces at every step (store-forwarding stalls: 0.6x OpenBLAS's sgemv on the 2-core EPYC).
template <class T> struct lanes32;
template <> struct lanes32<float> { typedef float type __attribute__((vector_size(32))); };
template <> struct lanes32<double> { typedef double type __attribute__((vector_size(32))); };

// R rows' dots with x over n elements, into sum[0:R]: each row in `lanes` accumulators (64 bytes
// of T, two 32-byte vectors), combined pairwise at the end; the R rows side by side so that each
// load of x serves R rows and R streams of A are read at once. A row's bits do not depend on R.
template <std::size_t R, class T>
void dots(const T* a, std::size_t lda, const T* x, std::size_t n, T* sum) {
  constexpr std::size_t lanes = 64 / sizeof(T), half = lanes / 2;
  using vec = typename lanes32<T>::type;
  const auto load = [](const T* p) {
    vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  vec lo[R] = {}, hi[R] = {};
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const vec x_lo = load(x + i), x_hi = load(x + i + half);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
      lo[r] += load(a + r * lda + i) * x_lo;
      hi[r] += load(a + r * lda + i + half) * x_hi;
    }
  }
  for (std::size_t r = 0; r < R; ++r) {
    T lane[lanes];
    std::memcpy(lane, &lo[r], sizeof lo[r]);
    std::memcpy(lane + half, &hi[r], sizeof hi[r]);
    for (std::size_t t = i; t < n; ++t) lane[0] += a[r * lda + t] * x[t];
    for (std::size_t width = lanes / 2; width > 0; width /= 2)
      for (std::size_t j = 0; j < width; ++j) lane[j] += lane[j + width];
    sum[r] = lane[0];
  }
}

struct matrix_times_vector {
  template <class T> static void run(const gemm<T>& g) {
    if (g.m == 0) return;
    std::vector<T> gathered;
    const T* x = g.b;
    if (g.ldb != 1 && g.k > 0) {
      gathered.resize(g.k);
      for (std::size_t l = 0; l < g.k; ++l) gathered[l] = g.b[l * g.ldb];
      x = gathered.data();
    }
    const auto store = [&](std::size_t i, T sum) {
      T& c = g.c[i * g.ldc];
      c = g.beta == T(0) ? g.alpha * sum : g.alpha * sum + g.beta * c;
    };
    const std::size_t pieces = (g.k + piece - 1) / piece;
    const std::size_t threads = std::size_t(omp_get_max_threads());
    if (g.m >= 4 * threads || pieces <= 1) {
      // Groups of four rows over the threads; a row's pieces added in order.
      const std::size_t groups = (g.m + 3) / 4;
#pragma omp parallel for schedule(static)
      for (std::ptrdiff_t gg = 0; gg < std::ptrdiff_t(groups); ++gg) {
        const std::size_t i0 = std::size_t(gg) * 4, rows = std::min<std::size_t>(4, g.m - i0);
        T sum[4] = {}, part[4];
        for (std::size_t p = 0; p < pieces; ++p) {
          const std::size_t l = p * piece, len = std::min(piece, g.k - l);
          const T* a = g.a + i0 * g.lda + l;
          if (rows == 4) dots<4>(a, g.lda, x + l, len, part);
          else
            for (std::size_t r = 0; r < rows; ++r)
              dots<1>(a + r * g.lda, g.lda, x + l, len, part + r);
          for (std::size_t r = 0; r < rows; ++r) sum[r] += part[r];
        }
        for (std::size_t r = 0; r < rows; ++r) store(i0 + r, sum[r]);
      }
      return;
    }
    // Few long rows: the threads share every row's pieces, then each row adds its own in order.
    std::vector<T> part(g.m * pieces);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t tt = 0; tt < std::ptrdiff_t(g.m * pieces); ++tt) {
      const std::size_t i = std::size_t(tt) / pieces, l = std::size_t(tt) % pieces * piece;
      dots<1>(g.a + i * g.lda + l, g.lda, x + l, std::min(piece, g.k - l), &part[std::size_t(tt)]);
    }
    for (std::size_t i = 0; i < g.m; ++i) {
      T sum = 0;
      for (std::size_t p = 0; p < pieces; ++p) sum += part[i * pieces + p];
      store(i, sum);
    }
  }
};

void run(const matmul_call& c) { dispatch_matmul<matrix_times_vector>(c); }

bool one_column(const matmul_problem& p) { return one_float_product(p) && p.n == 1; }

}  // namespace

extern const matmul_rung m04_matrix_times_vector{
    .info = {.step = 4,
             .summary = "A x (n = 1): a dot per row in vector accumulators, rows over threads"},
    .can_run = one_column,
    .run = run,
};

}  // namespace pplab::detail::matmul_cpu
