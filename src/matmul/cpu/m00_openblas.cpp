// matmul/cpu/m00_openblas: OpenBLAS sgemm/dgemm, the vendor baseline. Measured beside the ladder,
// never the API's default. Its threads are its own (pthreads), set to OpenMP's thread count.
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): f32 2048^3, 148.9
// GFLOP/s, 74.4% of the FMA peak measured in the same run.
#include <cblas.h>
#include <omp.h>

#include "matmul/matmul_common.hpp"

namespace pplab::detail {
namespace {

struct openblas {
  template <class T> static void run(const gemm<T>& g) {
    if (g.m == 0 || g.n == 0) return;
    openblas_set_num_threads(omp_get_max_threads());
    // BLAS wants leading dimensions >= max(1, columns) even when a dimension is zero.
    const auto ld = [](std::size_t l) { return blasint(std::max<std::size_t>(l, 1)); };
    if constexpr (sizeof(T) == 4)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(g.m), blasint(g.n),
                  blasint(g.k), g.alpha, g.a, ld(g.lda), g.b, ld(g.ldb), g.beta, g.c, ld(g.ldc));
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(g.m), blasint(g.n),
                  blasint(g.k), g.alpha, g.a, ld(g.lda), g.b, ld(g.ldb), g.beta, g.c, ld(g.ldc));
  }
};

bool fits_blasint(const matmul_problem& p) {
  constexpr std::size_t limit = std::size_t(1) << 31;
  return float_or_double(p) && p.m < limit && p.n < limit && p.k < limit;
}

void matmul_cpu_m00(const matmul_call& c) { dispatch_matmul<openblas>(c); }

}  // namespace

void register_matmul_openblas(std::vector<matmul_rung>& r) {
  r.push_back(
      {{"matmul/cpu/m00_openblas", backend::cpu, 0, "OpenBLAS sgemm/dgemm: the vendor baseline"},
       fits_blasint,
       nullptr,
       matmul_cpu_m00});
}

}  // namespace pplab::detail
