// convolution/seq/c01_direct_loop: the definition, where the tiling notes' exercise starts. Every
// output reads its kh x kw taps; each tap's row and column go through the boundary mode (a branch
// and, off the image, a modulo per tap), and mask x input is added in double, as SciPy's
// ndimage adds it. The reference for every other rung. It does 2 loads and 2 index mappings per
// multiply-add. A u8 image's channels are filtered each on its own, the mask in f32 (as every
// rung takes it for u8), the output f32 or rounded and saturated to u8.
// Measured (2-core AMD EPYC, bench/results/cpu-2core-2026-11-28-convolution-62d57fd.json): f32
// 8192x8192 mask 7x7 nearest in 4699.3 ms (0.6% of the FMA peak): the reference, two index mappings
// and two loads a multiply-add.
#include "convolution/host_kernel.hpp"

namespace pplab::detail::convolution_seq {
namespace {

// Every output of every channel: its taps through the boundary mode, each value and mask tap as
// the rungs take them (In and M), added in double; `store(at, sum)` writes output element `at`.
template <class In, class M, class Store>
void direct_loop(const convolution_call& c, double outside, Store store) {
  const convolution_problem& p = c.p;
  const auto* in = static_cast<const In*>(c.in);
  const auto* mask = static_cast<const M*>(c.mask);
  const auto rows = std::int64_t(p.rows), cols = std::int64_t(p.cols);
  const auto ch = std::int64_t(p.channels), ld_in = std::int64_t(c.ld_in);
  const auto rh = std::int64_t(p.kh / 2), rw = std::int64_t(p.kw / 2);
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t x = 0; x < cols; ++x)
      for (std::int64_t k = 0; k < ch; ++k) {
        double acc = 0;
        for (std::int64_t i = 0; i < std::int64_t(p.kh); ++i) {
          const std::int64_t r = boundary_index(y + i - rh, rows, p.mode);
          for (std::int64_t j = 0; j < std::int64_t(p.kw); ++j) {
            const std::int64_t q = boundary_index(x + j - rw, cols, p.mode);
            const double v = r < 0 || q < 0 ? outside : double(in[r * ld_in + q * ch + k]);
            acc += double(mask[i * std::int64_t(p.kw) + j]) * v;
          }
        }
        store(std::size_t(y) * c.ld_out + std::size_t(x * ch + k), acc);
      }
}

template <class T> void direct_loop_float(const convolution_call& c) {
  T* out = static_cast<T*>(c.out);
  direct_loop<T, T>(c, double(T(c.p.cval)), [&](std::size_t at, double v) { out[at] = T(v); });
}

void direct_loop_u8(const convolution_call& c) {
  const double outside = double(float(c.p.cval));
  if (c.p.u8_out) {
    auto* out = static_cast<std::uint8_t*>(c.out);
    direct_loop<std::uint8_t, float>(c, outside,
                                     [&](std::size_t at, double v) { out[at] = saturate_u8(v); });
  } else {
    auto* out = static_cast<float*>(c.out);
    direct_loop<std::uint8_t, float>(c, outside,
                                     [&](std::size_t at, double v) { out[at] = float(v); });
  }
}

void run(const convolution_call& c) {
  if (u8_image(c.p)) direct_loop_u8(c);
  else if (c.p.type == dtype::f32) direct_loop_float<float>(c);
  else direct_loop_float<double>(c);
}

}  // namespace

extern const convolution_rung c01_direct_loop{
    .info = {.step = 1,
             .summary = "every tap through the boundary mode, added in double: the reference"},
    .can_run = [](const convolution_problem& p) { return float_image(p) || u8_image(p); },
    .run = run,
};

}  // namespace pplab::detail::convolution_seq
