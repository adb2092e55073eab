// The call of matmul/cpu/m00_openblas (registered in src/matmul/cpu/m00_openblas.cpp), in the
// vendors module: OpenBLAS sgemm/dgemm. Its threads are its own (pthreads), set to OpenMP's
// thread count.
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
