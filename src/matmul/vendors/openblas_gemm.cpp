// The call of matmul/cpu/m00_openblas (registered in src/matmul/cpu/m00_openblas.cpp), in the
// vendors module: OpenBLAS sgemm/dgemm, and sgemv/dgemv for a vector operand. Its threads are its
// own (pthreads), set to OpenMP's thread count.
#include <cblas.h>
#include <omp.h>

#include "core/modules.hpp"
#include "matmul/matmul_common.hpp"

namespace pplab::detail {
namespace {

struct openblas {
  template <class T> static void run(const gemm<T>& g) {
    if (g.m == 0 || g.n == 0) return;
    openblas_set_num_threads(omp_get_max_threads());
    // BLAS wants leading dimensions >= max(1, columns) even when a dimension is zero.
    const auto ld = [](std::size_t l) { return blasint(std::max<std::size_t>(l, 1)); };
    // A vector operand: gemv, as numpy.matmul calls it (BLAS's gemv leaves y unscaled when K is
    // 0, so that case stays with gemm). A x: x is B's column, ldb apart; x B: B^T x with B's
    // rows as gemv's transposed columns.
    if (g.k > 0 && (g.n == 1 || g.m == 1)) {
      const bool column = g.n == 1;
      const auto gemv = [&](auto f) {
        if (column)
          f(CblasRowMajor, CblasNoTrans, blasint(g.m), blasint(g.k), g.alpha, g.a, ld(g.lda), g.b,
            ld(g.ldb), g.beta, g.c, ld(g.ldc));
        else
          f(CblasRowMajor, CblasTrans, blasint(g.k), blasint(g.n), g.alpha, g.b, ld(g.ldb), g.a, 1,
            g.beta, g.c, 1);
      };
      if constexpr (sizeof(T) == 4) gemv(cblas_sgemv);
      else gemv(cblas_dgemv);
      return;
    }
    if constexpr (sizeof(T) == 4)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(g.m), blasint(g.n),
                  blasint(g.k), g.alpha, g.a, ld(g.lda), g.b, ld(g.ldb), g.beta, g.c, ld(g.ldc));
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(g.m), blasint(g.n),
                  blasint(g.k), g.alpha, g.a, ld(g.lda), g.b, ld(g.ldb), g.beta, g.c, ld(g.ldc));
  }
};

void openblas_gemm(const matmul_call& c) { dispatch_matmul<openblas>(c); }

}  // namespace

void add_matmul_vendors_exports(module_exports& e) { e.add("openblas_gemm", &openblas_gemm); }

}  // namespace pplab::detail
