// convolution/cpu/c01_rows_openmp: seq c02 on every core, the output rows shared among the
// OpenMP threads in equal blocks (every row costs the same). Each thread keeps its own tap row
// pointers; the input is only read, so the threads share nothing they write.
#include <omp.h>

#include "convolution/host_kernel.hpp"

namespace pplab::detail {
namespace {

struct rows_openmp {
  template <class T> static void run(const filter<T>& f) {
    rows_on_threads(
        f, [](const filter<T>& g, const T* const* rows, T* out) { interior_plain(g, rows, out); });
  }
};

}  // namespace

void convolution_cpu_c01(const convolution_call& c) { dispatch_convolution<rows_openmp>(c); }

}  // namespace pplab::detail
