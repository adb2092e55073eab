// convolution/cpu/c00_opencv: OpenCV's filter2D and, for a mask that is an outer product,
// sepFilter2D: the vendor baselines, measured beside the ladder and never the policy's pick. Both
// correlate (OpenCV's "filter" is SciPy's correlate, anchor at the centre); its filters do not
// wrap, and its constant border is 0 alone. Registered here; the calls themselves are in the
// vendors module (src/convolution/vendors/opencv_filters.cpp, core/modules.hpp), so that a
// program that never runs them does not load OpenCV.
#include <climits>

#include "convolution/host_kernel.hpp"
#include "core/modules.hpp"

namespace pplab::detail {
namespace {

// What OpenCV's filters take: shapes that fit its int sizes, and no wrap or non-zero constant.
bool opencv_can_run(const convolution_problem& p) {
  return (float_or_double(p) || u8_image(p)) && p.rows > 0 && p.cols > 0 && p.rows < INT_MAX &&
         p.cols < INT_MAX && p.mode != boundary::wrap &&
         (p.mode != boundary::constant || p.cval == 0);
}
bool opencv_separable_can_run(const convolution_problem& p) {
  return opencv_can_run(p) && float_or_double(p) && p.separable;
}

void convolution_cpu_c00_filter2d(const convolution_call& c) {
  vendor_function<void(const convolution_call&)>("opencv_filter2d")(c);
}
void convolution_cpu_c00_sepfilter2d(const convolution_call& c) {
  vendor_function<void(const convolution_call&)>("opencv_sepfilter2d")(c);
}

}  // namespace

void register_convolution_opencv(std::vector<convolution_rung>& r) {
  r.push_back({{"convolution/cpu/c00_opencv_filter2d", backend::cpu, 0,
                "OpenCV's filter2D: the vendor baseline"},
               opencv_can_run,
               nullptr,
               convolution_cpu_c00_filter2d});
  r.push_back({{"convolution/cpu/c00_opencv_sepfilter2d", backend::cpu, 0,
                "OpenCV's sepFilter2D, two 1-D passes: the separable masks' vendor baseline"},
               opencv_separable_can_run,
               nullptr,
               convolution_cpu_c00_sepfilter2d});
}

}  // namespace pplab::detail
