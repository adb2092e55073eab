// convolution/cpu/c00_opencv_filter2d: OpenCV's filter2D, the vendor baseline, measured beside the
// ladder and never the policy's pick (c00_opencv_sepfilter2d: its separable filter). OpenCV's
// "filter" correlates as SciPy's correlate does, anchor at the centre; its filters do not wrap,
// and its constant border is 0 alone. The call itself is in the vendors module
// (src/convolution/vendors/opencv_filters.cpp, core/modules.hpp), so that a program that never
// runs it does not load OpenCV.
// Measured (2-core AMD EPYC, bench/results/cpu-2core-2026-11-28-convolution-62d57fd.json): f32
// 8192x8192 mask 7x7 nearest in 125.3 ms, 22.3% of the FMA peak; 15 x 15 in 1534.8 ms, 8.4% (its
// DFT path from 11 x 11).
#include <climits>

#include "convolution/host_kernel.hpp"
#include "core/modules.hpp"

namespace pplab::detail::convolution_cpu {
namespace {

// What OpenCV's filters take: shapes that fit its int sizes, and no wrap or non-zero constant.
bool can_run(const convolution_problem& p) {
  return (float_or_double(p) || u8_image(p)) && p.rows > 0 && p.cols > 0 && p.rows < INT_MAX &&
         p.cols < INT_MAX && p.mode != boundary::wrap &&
         (p.mode != boundary::constant || p.cval == 0);
}

void run(const convolution_call& c) {
  vendor_function<void(const convolution_call&)>("opencv_filter2d")(c);
}

}  // namespace

extern const convolution_rung c00_opencv_filter2d{
    .info = {.step = 0, .summary = "OpenCV's filter2D: the vendor baseline"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::convolution_cpu
