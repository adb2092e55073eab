// matmul/cpu/m07_tall_times_tiny: A of any height times a B of at most 4 x 4 (points times a
// rotation, a 3-D transform in homogeneous coordinates: numpy's `points @ R`). Such a product is
// bound by reading A and writing C, not by its multiply-adds (f32 10^6 x 3 x 3: 24 MB moved, 9
// million multiply-adds), and every GEMM path is built for the other case: m03 packs B into
// 16-wide panels of which 3 columns are used and pads each 3-long row of A to a 6-row tile;
// OpenBLAS, through numpy.matmul, took 4.1 ms where the memory floor of a 2-core EPYC with AVX2
// is about 1.2 ms (bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt).
// Here B's k rows are held in vector registers for the whole call (its shape a template
// parameter: 16 kernels a type), and each row of C is one vector, the sum of k products of A's
// values by B's rows, from one read of A's row, written once; the rows are split over the threads
// where the data is larger than a core's caches. The k terms of each element are added in order.
// Measured (2-core Zen 5 EPYC, bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its
// section on m07): f32 10^6 x 3 x 3 0.30 ms against numpy.matmul's 1.16 (3.9x), f64 4.4x, 4 x 4
// 15-54x (OpenBLAS's small-n path); the quick lab's 2^20 rows at the copy ceiling.
#include <omp.h>

#include <cstring>

#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_cpu {
namespace {

constexpr std::size_t most = 4;  // the largest k and n it takes

// A B of one column (A x with rows of at most 4): each row of C one sum of K products, scalar
// (a vector of 4 for one value: 0.32 ms against 0.26 for f32 10^6 x 3 x 1 on the 2-core EPYC).
template <class T, int K> void one_column(const gemm<T>& g, std::size_t i0, std::size_t i1) {
  T b[K];
  for (int l = 0; l < K; ++l) b[l] = g.b[std::size_t(l) * g.ldb];
  for (std::size_t i = i0; i < i1; ++i) {
    const T* ai = g.a + i * g.lda;
    T sum = ai[0] * b[0];
#pragma GCC unroll 4
    for (int l = 1; l < K; ++l) sum += ai[l] * b[l];
    T& ci = g.c[i * g.ldc];
    ci = g.beta == T(0) ? g.alpha * sum : g.alpha * sum + g.beta * ci;
  }
}

// Four values of T in one vector (GCC's vector extension: 16 bytes for f32, 32 for f64): a row
// of C, and each row of B padded with zeros to 4.
template <class T> struct four { typedef T type __attribute__((vector_size(4 * sizeof(T)))); };

// Rows [i0, i1) of C for a B of K x N, its rows in registers: a row of C is K broadcasts of A's
// values times B's rows, one vector for all its N sums (N x K scalar multiply-adds would be
// compute-bound at 4 x 4: 1.1 ms for f32 10^6 x 4 x 4 on the 2-core EPYC, where the vector form
// is bound by the memory).
template <class T, int K, int N> void rows(const gemm<T>& g, std::size_t i0, std::size_t i1) {
  if constexpr (N == 1) return one_column<T, K>(g, i0, i1);
  using V = typename four<T>::type;
  V b[K];
  for (int l = 0; l < K; ++l) {
    b[l] = V{};
    for (int j = 0; j < N; ++j) b[l][j] = g.b[std::size_t(l) * g.ldb + std::size_t(j)];
  }
  const T* __restrict a = g.a;
  T* __restrict c = g.c;
  const std::size_t lda = g.lda, ldc = g.ldc;
  const T alpha = g.alpha, beta = g.beta;
  const auto sum = [&](const T* ai) {
    V acc = ai[0] * b[0];
#pragma GCC unroll 4
    for (int l = 1; l < K; ++l) acc += ai[l] * b[l];
    return acc;
  };
  if (beta == T(0)) {  // C not read (BLAS: a NaN there stays out)
    std::size_t i = i0;
    if (N < 4 && ldc == N) {
      // C's rows back to back: a whole vector stored for each row, its last 4 - N values
      // over the next rows' first, which are written after it (one store a row, where N values
      // take two or three: f32 10^6 x 3 x 3 0.34 ms against 0.42 on the 2-core EPYC). The last
      // rows of the band store N values alone: nothing past it is written.
      for (; i + 4 <= i1; ++i) {
        const V row = alpha * sum(a + i * lda);
        std::memcpy(c + i * ldc, &row, sizeof row);
      }
    }
    for (; i < i1; ++i) {
      const V row = alpha * sum(a + i * lda);
      std::memcpy(c + i * ldc, &row, N * sizeof(T));  // N values: nothing past the row written
    }
    return;
  }
  for (std::size_t i = i0; i < i1; ++i) {
    V old{};
    std::memcpy(&old, c + i * ldc, N * sizeof(T));
    const V row = alpha * sum(a + i * lda) + beta * old;
    std::memcpy(c + i * ldc, &row, N * sizeof(T));
  }
}

template <class T> using rows_kernel = void (*)(const gemm<T>&, std::size_t, std::size_t);

template <class T, int K> rows_kernel<T> kernel_for_n(std::size_t n) {
  switch (n) {
  case 1:
    return rows<T, K, 1>;
  case 2:
    return rows<T, K, 2>;
  case 3:
    return rows<T, K, 3>;
  default:
    return rows<T, K, 4>;
  }
}

template <class T> rows_kernel<T> kernel_for(std::size_t k, std::size_t n) {
  switch (k) {
  case 1:
    return kernel_for_n<T, 1>(n);
  case 2:
    return kernel_for_n<T, 2>(n);
  case 3:
    return kernel_for_n<T, 3>(n);
  default:
    return kernel_for_n<T, 4>(n);
  }
}

// A product whose A and C take at least this many bytes splits its rows over the threads: below
// it one core's caches hold the data and waking the other threads costs more than it saves.
constexpr std::size_t split_from_bytes = std::size_t(256) << 10;

struct tall_times_tiny {
  template <class T> static void run(const gemm<T>& g) {
    if (g.m == 0 || g.n == 0) return;
    const rows_kernel<T> kernel = kernel_for<T>(g.k, g.n);
    const std::size_t bytes = g.m * (g.k + g.n) * sizeof(T);
    if (bytes < split_from_bytes || omp_in_parallel() || omp_get_max_threads() == 1) {
      kernel(g, 0, g.m);
      return;
    }
#pragma omp parallel
    {
      // Contiguous bands of rows, one a thread, cut at multiples of 16 rows (whole cache lines
      // of C for every n but 3).
      const std::size_t threads = std::size_t(omp_get_num_threads()),
                        t = std::size_t(omp_get_thread_num()), blocks = (g.m + 15) / 16;
      const std::size_t i0 = std::min(g.m, blocks * t / threads * 16),
                        i1 = std::min(g.m, blocks * (t + 1) / threads * 16);
      if (i0 < i1) kernel(g, i0, i1);
    }
  }
};

bool can_run(const matmul_problem& p) {
  return one_float_product(p) && p.k >= 1 && p.k <= most && p.n <= most;
}

void run(const matmul_call& c) { dispatch_matmul<tall_times_tiny>(c); }

}  // namespace

extern const matmul_rung m07_tall_times_tiny{
    .info = {.step = 7,
             .summary = "A of any height times a B of at most 4 x 4: B in registers, each row of "
                        "C from one read of A's row, rows split over the threads"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::matmul_cpu
