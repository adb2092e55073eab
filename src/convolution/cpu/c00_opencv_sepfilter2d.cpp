// convolution/cpu/c00_opencv_sepfilter2d: OpenCV's sepFilter2D, two 1-D passes, the vendor
// baseline of the masks that are outer products (the separable rungs': cpu c03, cuda c07),
// measured beside the ladder and never the policy's pick. It takes what filter2D takes
// (c00_opencv_filter2d), f32 and f64 only; the call is in the vendors module.
// Measured (2-core AMD EPYC, bench/results/cpu-2core-2026-11-28-convolution-62d57fd.json): 7 x 7
// separable on 8192 x 8192 f32 in 72.0 ms; 15 x 15 in 152.6 ms.
#include "convolution/host_kernel.hpp"
#include "core/modules.hpp"

namespace pplab::detail::convolution_cpu {

extern const convolution_rung c00_opencv_filter2d;  // its limits are OpenCV's

namespace {

void run(const convolution_call& c) {
  vendor_function<void(const convolution_call&)>("opencv_sepfilter2d")(c);
}

}  // namespace

extern const convolution_rung c00_opencv_sepfilter2d{
    .info = {.step = 0,
             .summary =
                 "OpenCV's sepFilter2D, two 1-D passes: the separable masks' vendor baseline"},
    .can_run =
        [](const convolution_problem& p) {
          return c00_opencv_filter2d.can_run(p) && float_or_double(p) && p.separable;
        },
    .run = run,
};

}  // namespace pplab::detail::convolution_cpu
