// matmul/cpu/m01_loop_order_ikj: the same arithmetic with the loops in i-k-j order. The inner
// loop now runs along a row of B and a row of C, unit stride: every cache line fetched is used
// whole and the compiler vectorizes it. Rows of C are split over the threads. What limits it:
// each row of B is streamed from memory (or L3) again for every row of C, and C's row is
// loaded and stored once per k; nothing is reused from registers.
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): f32 2048^3, 16.7
// GFLOP/s, 8.4% of the FMA peak measured in the same run, 0.11x OpenBLAS.
#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_cpu {
namespace {

struct loop_order_ikj {
  template <class T> static void run(const gemm<T>& g) {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t ii = 0; ii < std::ptrdiff_t(g.m); ++ii) {
      const std::size_t i = std::size_t(ii);
      T* crow = g.c + i * g.ldc;
      scale_row(crow, g.n, g.beta);
      for (std::size_t k = 0; k < g.k; ++k) {
        const T a = g.alpha * g.a[i * g.lda + k];
        const T* brow = g.b + k * g.ldb;
        for (std::size_t j = 0; j < g.n; ++j) crow[j] += a * brow[j];
      }
    }
  }
};

void run(const matmul_call& c) { dispatch_matmul<loop_order_ikj>(c); }

}  // namespace

extern const matmul_rung m01_loop_order_ikj{
    .info = {.step = 1,
             .summary = "i-k-j order: unit stride along rows of B and C, rows over threads"},
    .can_run = one_float_product,
    .run = run,
};

}  // namespace pplab::detail::matmul_cpu
