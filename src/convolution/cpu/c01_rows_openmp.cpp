// convolution/cpu/c01_rows_openmp: seq c02 on every core, the output rows shared among the
// OpenMP threads in equal blocks (every row costs the same). Each thread keeps its own tap row
// pointers; the input is only read, so the threads share nothing they write.
#include <omp.h>

#include "convolution/host_kernel.hpp"

namespace pplab::detail {
namespace {

struct rows_openmp {
  template <class T> static void run(const filter<T>& f) {
    const std::vector<T> constant = constant_row(f);
#pragma omp parallel
    {
      std::vector<const T*> rows(f.kh);
#pragma omp for schedule(static)
      for (std::ptrdiff_t y = 0; y < std::ptrdiff_t(f.rows); ++y) {
        tap_rows_or_constant(f, std::size_t(y), constant.data(), rows.data());
        T* out = f.out + std::size_t(y) * f.ld_out;
        border_pixels(f, rows.data(), out);
        interior_plain(f, rows.data(), out);
      }
    }
  }
};

}  // namespace

void convolution_cpu_c01(const convolution_call& c) { dispatch_convolution<rows_openmp>(c); }

}  // namespace pplab::detail
