// convolution/cpu/c01_rows_openmp: seq c02 on every core, the output rows shared among the
// OpenMP threads in equal blocks (every row costs the same). Each thread keeps its own tap row
// pointers; the input is only read, so the threads share nothing they write.
// Measured (2-core AMD EPYC, bench/results/cpu-2core-2026-11-28-convolution-62d57fd.json): f32
// 8192x8192 mask 7x7 nearest in 1088.4 ms on 2 threads, 1.77x seq c02.
#include <omp.h>

#include "convolution/host_kernel.hpp"

namespace pplab::detail::convolution_cpu {
namespace {

struct rows_openmp {
  template <class T> static void run(const filter<T>& f) {
    rows_on_threads(
        f, [](const filter<T>& g, const T* const* rows, T* out) { interior_plain(g, rows, out); });
  }
};

void run(const convolution_call& c) { dispatch_convolution<rows_openmp>(c); }

}  // namespace

extern const convolution_rung c01_rows_openmp{
    .info = {.step = 1, .summary = "seq c02 with the output rows shared among the threads"},
    .can_run = float_image,
    .run = run,
};

}  // namespace pplab::detail::convolution_cpu
