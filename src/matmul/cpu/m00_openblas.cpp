// matmul/cpu/m00_openblas: OpenBLAS sgemm/dgemm (sgemv/dgemv where an operand is a vector, as
// numpy.matmul calls it), the vendor baseline. Measured beside the ladder, and the policy's pick
// where the lab measured it faster than the ladder's top (src/matmul/policy.cpp). Registered here;
// the call itself is in the vendors module (src/matmul/vendors/openblas_gemm.cpp,
// core/modules.hpp), so that a program that never runs it does not load OpenBLAS.
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): f32 2048^3, 148.9
// GFLOP/s, 74.4% of the FMA peak measured in the same run.
#include "core/modules.hpp"
#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_cpu {
namespace {

bool fits_blasint(const matmul_problem& p) {
  constexpr std::size_t limit = std::size_t(1) << 31;
  return one_float_product(p) && p.m < limit && p.n < limit && p.k < limit;
}

void run(const matmul_call& c) { vendor_function<void(const matmul_call&)>("openblas_gemm")(c); }

}  // namespace

extern const matmul_rung m00_openblas{
    .info = {.step = 0, .summary = "OpenBLAS sgemm/dgemm (gemv for a vector): the vendor baseline"},
    .can_run = fits_blasint,
    .run = run,
};

}  // namespace pplab::detail::matmul_cpu
