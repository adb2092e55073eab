// convolution/cpu/c04_u8_channels: a u8 image of 1, 3 or 4 interleaved channels (RGB, RGBA),
// each channel filtered on its own in f32. Each thread takes a block of output rows and keeps,
// as c03 does, a ring of the kh input rows its current output row reads, here converted to f32
// and split into one plane per channel, each plane padded on both sides with the kw/2 columns
// the boundary mode reads there: converted once per row, then every output of the row is an
// interior output, kh x kw multiply-adds on blocks held in vector registers (weighted_span). The
// results go back interleaved, as f32 or rounded and saturated to u8.
// Measured (2-core AMD EPYC, bench/results/cpu-2core-2026-11-28-convolution-62d57fd.json): an RGB
// u8 4096 x 4096 image with 5 x 5 to u8 in 38.5 ms, 27.8% of the FMA peak, 1.97x OpenCV's filter2D
// on CV_8UC3.
#include <omp.h>

#include "convolution/host_kernel.hpp"
#include "pplab/job.hpp"

namespace pplab::detail::convolution_cpu {
namespace {

// CH channels known at compile time, so that the passes that split a row into planes and join
// the planes' results back vectorize.
template <std::size_t CH> void u8_channels(const convolution_call& c) {
  const convolution_problem& p = c.p;
  const auto* in = static_cast<const std::uint8_t*>(c.in);
  const auto* mask = static_cast<const float*>(c.mask);
  const std::size_t rw = p.kw / 2, width = p.cols + 2 * rw;
  // A plane one cache line more than a multiple of the line apart from the next (c03's reason).
  const std::size_t plane = (width + 15) / 16 * 16 + 16;
  const std::int64_t rows = std::int64_t(p.rows), kh = std::int64_t(p.kh);
  const std::int64_t rh = kh / 2, cols = std::int64_t(p.cols);
  const float outside = float(p.cval);
#pragma omp parallel
  {
    const part mine = part_of(p.rows, omp_get_thread_num(), omp_get_num_threads());
    std::vector<float> ring(p.kh * CH * plane), sums(CH * p.cols);
    std::vector<const float*> taps(p.kh * p.kw);
    const auto slot = [&](std::int64_t v) {
      return ring.data() + std::size_t(((v % kh) + kh) % kh) * CH * plane;
    };
    // Virtual row v (before the boundary maps it), as padded f32 planes.
    const auto convert_row = [&](std::int64_t v) {
      float* to = slot(v);
      const std::int64_t g = boundary_index(v, rows, p.mode);
      if (g < 0) {
        std::fill_n(to, CH * plane, outside);
        return;
      }
      const std::uint8_t* row = in + std::size_t(g) * c.ld_in;
#pragma omp simd
      for (std::size_t x = 0; x < p.cols; ++x)
        for (std::size_t k = 0; k < CH; ++k) to[k * plane + rw + x] = float(row[x * CH + k]);
      for (std::size_t q = 0; q < rw; ++q) {  // the padding: the columns off each end
        const std::int64_t left = boundary_index(std::int64_t(q) - std::int64_t(rw), cols, p.mode);
        const std::int64_t right = boundary_index(cols + std::int64_t(q), cols, p.mode);
        for (std::size_t k = 0; k < CH; ++k) {
          float* pl = to + k * plane;
          pl[q] = left < 0 ? outside : float(row[std::size_t(left) * CH + k]);
          pl[rw + p.cols + q] = right < 0 ? outside : float(row[std::size_t(right) * CH + k]);
        }
      }
    };
    for (std::size_t y = mine.first; y < mine.first + mine.count; ++y) {
      const std::int64_t top = std::int64_t(y) - rh;
      if (y == mine.first)
        for (std::int64_t i = 0; i < kh; ++i) convert_row(top + i);
      else convert_row(top + kh - 1);
      for (std::size_t k = 0; k < CH; ++k) {
        for (std::size_t i = 0; i < p.kh; ++i)
          for (std::size_t j = 0; j < p.kw; ++j)
            taps[i * p.kw + j] = slot(top + std::int64_t(i)) + k * plane + j;
        weighted_span(
            mask, p.kh * p.kw, [&](std::size_t t) { return taps[t]; }, 0, p.cols,
            sums.data() + k * p.cols);
      }
      if (p.u8_out) {
        std::uint8_t* out = static_cast<std::uint8_t*>(c.out) + y * c.ld_out;
#pragma omp simd
        for (std::size_t x = 0; x < p.cols; ++x)
          for (std::size_t k = 0; k < CH; ++k) {
            float v = sums[k * p.cols + x];  // saturate_u8, in f32 so that it vectorizes
            v = v > 0 ? v : 0;               // NaN as 0
            v = v < 255 ? v : 255;
            out[x * CH + k] = std::uint8_t(std::nearbyint(v));
          }
      } else {
        float* out = static_cast<float*>(c.out) + y * c.ld_out;
#pragma omp simd
        for (std::size_t x = 0; x < p.cols; ++x)
          for (std::size_t k = 0; k < CH; ++k) out[x * CH + k] = sums[k * p.cols + x];
      }
    }
  }
}

void run(const convolution_call& c) {
  switch (c.p.channels) {
  case 1:
    return u8_channels<1>(c);
  case 3:
    return u8_channels<3>(c);
  default:
    return u8_channels<4>(c);
  }
}

}  // namespace

extern const convolution_rung c04_u8_channels{
    .info =
        {.step = 4,
         .summary =
             "a u8 image's channels: rows converted once to padded f32 planes, then c02's blocks"},
    .can_run = u8_image,
    .run = run,
};

}  // namespace pplab::detail::convolution_cpu
