// convolution/cpu/c03_separable: a mask that is an outer product, mask[i][j] = col[i] row[j] (a
// Gaussian, a box, each half of a Sobel), filters in two 1-D passes: each input row along x with
// `row`, then the results down y with `col`: kh + kw multiply-adds per output instead of kh x kw.
// Each thread takes a block of output rows and keeps the horizontal results of the kh input rows
// its current output row reads in a ring of kh rows (kh x cols values, in cache): moving down one
// output row filters one new input row into the slot of the row that left. Every input row is
// filtered once per thread, and the vertical pass reads the ring, not memory. Both passes keep
// blocks of outputs in registers (weighted_span, host_kernel.hpp; FMA contraction on,
// sources.cmake).
// Measured (2-core EPYC with AVX-512, 8192 x 8192 f32): the strips of 32 rows this replaced,
// whose buffers of 32 + kh - 1 rows outgrew the L2 cache, ran at 1.2x sepFilter2D.
// Measured (2-core AMD EPYC, bench/results/cpu-2core-2026-11-28-convolution-62d57fd.json): 7 x 7
// separable on 8192 x 8192 f32 in 43.7 ms, 1.65x OpenCV's sepFilter2D, 1.49x c02; 15 x 15 in 52.3
// ms, 2.92x sepFilter2D, 5.65x c02.
#include <omp.h>

#include "convolution/host_kernel.hpp"
#include "pplab/job.hpp"

namespace pplab::detail::convolution_cpu {
namespace {

// One input row (or the constant row) filtered along x with `row`, the boundary applied to
// columns at the borders only.
template <class T> void horizontal(const filter<T>& f, const T* in, const T* row, T* out) {
  const std::int64_t cols = std::int64_t(f.cols), rw = std::int64_t(f.kw / 2);
  const auto [lo, hi] = interior_columns(f);
  weighted_span(
      row, f.kw, [&](std::size_t j) { return in + j - std::size_t(rw); }, lo, hi, out);
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
    const std::int64_t rh = std::int64_t(f.kh / 2), kh = std::int64_t(f.kh);
#pragma omp parallel
    {
      const part mine = part_of(f.rows, omp_get_thread_num(), omp_get_num_threads());
      // Rows of the ring one cache line more apart than a row: 8192 floats make 32 KiB, and
      // rows a power of two apart would put every tap of a block in the same cache set.
      const std::size_t stride = f.cols + 64 / sizeof(T);
      std::vector<T> ring(f.kh * stride);
      // Virtual input row v (before the boundary maps it) lives in slot v mod kh.
      const auto slot = [&](std::int64_t v) {
        return ring.data() + std::size_t(((v % kh) + kh) % kh) * stride;
      };
      const auto filter_row = [&](std::int64_t v) {
        const std::int64_t g = boundary_index(v, std::int64_t(f.rows), f.mode);
        horizontal(f, g < 0 ? constant.data() : f.in + std::size_t(g) * f.ld_in, row, slot(v));
      };
      std::vector<const T*> taps(f.kh);
      for (std::size_t y = mine.first; y < mine.first + mine.count; ++y) {
        const std::int64_t top = std::int64_t(y) - rh;
        if (y == mine.first)
          for (std::int64_t i = 0; i < kh; ++i) filter_row(top + i);
        else filter_row(top + kh - 1);
        for (std::int64_t i = 0; i < kh; ++i) taps[std::size_t(i)] = slot(top + i);
        weighted_span(
            col, f.kh, [&](std::size_t i) { return taps[i]; }, 0, f.cols, f.out + y * f.ld_out);
      }
    }
  }
};

bool can_run(const convolution_problem& p) { return float_separable(p); }
void run(const convolution_call& c) { dispatch_convolution<separable>(c); }

}  // namespace

extern const convolution_rung c03_separable{
    .info = {.step = 3,
             .summary =
                 "a mask that is an outer product as two 1-D passes through a cache-sized strip"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::convolution_cpu
