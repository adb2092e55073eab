// matmul/seq/m01_triple_loop: the textbook C[i][j] = sum_k A[i][k] * B[k][j]. The inner loop
// walks B down a column: a stride of ldb elements, so nearly every B access misses the cache
// line it needs and 2 loads feed each multiply-add. The reference for every other rung.
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): f32 2048^3, 0.3
// GFLOP/s, 0.1% of the FMA peak measured in the same run.
#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_seq {
namespace {

struct triple_loop {
  template <class T> static void run(const gemm<T>& g) {
    for (std::size_t i = 0; i < g.m; ++i)
      for (std::size_t j = 0; j < g.n; ++j) {
        T sum = 0;
        for (std::size_t k = 0; k < g.k; ++k) sum += g.a[i * g.lda + k] * g.b[k * g.ldb + j];
        T& c = g.c[i * g.ldc + j];
        c = g.beta == T(0) ? g.alpha * sum : g.alpha * sum + g.beta * c;
      }
  }
};

void run(const matmul_call& c) { dispatch_matmul<triple_loop>(c); }

}  // namespace

extern const matmul_rung m01_triple_loop{
    .info = {.step = 1, .summary = "i-j-k triple loop: B read down its columns"},
    .can_run = one_float_product,
    .run = run,
};

}  // namespace pplab::detail::matmul_seq
