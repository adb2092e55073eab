// convolution/cpu/c03_separable: a mask that is an outer product, mask[i][j] = col[i] row[j] (a
// Gaussian, a box, each half of a Sobel), filters in two 1-D passes: each input row along x with
// `row`, then the results down y with `col`: kh + kw multiply-adds per output instead of kh x kw.
// The image goes through in strips of 32 output rows; each thread's strip keeps its 32 + kh - 1
// horizontal results in a buffer of its own that stays in cache for the vertical pass. Both
// passes run along x over whole rows, so they vectorize (FMA contraction on, sources.cmake).
#include <omp.h>

#include "convolution/host_kernel.hpp"

namespace pplab::detail {
namespace {

constexpr std::size_t strip = 32;

// One input row (or the constant row) filtered along x with `row`, the boundary applied to
// columns at the borders only.
template <class T> void horizontal(const filter<T>& f, const T* in, const T* row, T* out) {
  const std::int64_t cols = std::int64_t(f.cols), rw = std::int64_t(f.kw / 2);
  const auto [lo, hi] = interior_columns(f);
  for (std::size_t x = lo; x < hi; ++x) out[x] = 0;
  for (std::size_t j = 0; j < f.kw; ++j) {
    const T r = row[j];
    const T* from = in + j - std::size_t(rw);
#pragma omp simd
    for (std::size_t x = lo; x < hi; ++x) out[x] += r * from[x];
  }
  const auto border = [&](std::int64_t x) {
    T acc = 0;
    for (std::int64_t j = 0; j < std::int64_t(f.kw); ++j) {
      const std::int64_t c = boundary_index(x + j - rw, cols, f.mode);
      acc += row[j] * (c < 0 ? f.cval : in[c]);
    }
    out[x] = acc;
  };
  for (std::size_t x = 0; x < lo; ++x) border(std::int64_t(x));
  for (std::size_t x = std::max(hi, lo); x < f.cols; ++x) border(std::int64_t(x));
}

struct separable {
  template <class T> static void run(const filter<T>& f) {
    const T* col = f.mask + f.kh * f.kw;
    const T* row = col + f.kh;
    const std::vector<T> constant = constant_row(f);
    const std::size_t strips = (f.rows + strip - 1) / strip, rh = f.kh / 2;
#pragma omp parallel
    {
      std::vector<T> across((strip + f.kh - 1) * f.cols);
      std::vector<const T*> rows(strip + f.kh - 1);
#pragma omp for schedule(static)
      for (std::ptrdiff_t s = 0; s < std::ptrdiff_t(strips); ++s) {
        const std::size_t y0 = std::size_t(s) * strip, y1 = std::min(f.rows, y0 + strip);
        const std::size_t need = y1 - y0 + f.kh - 1;
        for (std::size_t r = 0; r < need; ++r) {
          const std::int64_t g =
              boundary_index(std::int64_t(y0 + r) - std::int64_t(rh), std::int64_t(f.rows), f.mode);
          horizontal(f, g < 0 ? constant.data() : f.in + std::size_t(g) * f.ld_in, row,
                     across.data() + r * f.cols);
        }
        for (std::size_t y = y0; y < y1; ++y) {
          T* out = f.out + y * f.ld_out;
          const T* first = across.data() + (y - y0) * f.cols;
#pragma omp simd
          for (std::size_t x = 0; x < f.cols; ++x) out[x] = col[0] * first[x];
          for (std::size_t i = 1; i < f.kh; ++i) {
            const T c = col[i];
            const T* from = across.data() + (y - y0 + i) * f.cols;
#pragma omp simd
            for (std::size_t x = 0; x < f.cols; ++x) out[x] += c * from[x];
          }
        }
      }
    }
  }
};

}  // namespace

bool convolution_cpu_c03_can_run(const convolution_problem& p) {
  return float_or_double(p) && p.separable;
}
void convolution_cpu_c03(const convolution_call& c) { dispatch_convolution<separable>(c); }

}  // namespace pplab::detail
