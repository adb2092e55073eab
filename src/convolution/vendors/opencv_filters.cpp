// The calls of convolution/cpu/c00_opencv_filter2d and _sepfilter2d (registered in
// src/convolution/cpu/c00_opencv.cpp), in the vendors module: OpenCV's filter2D and
// sepFilter2D. OpenCV's border modes are SciPy's under other names: BORDER_REFLECT is reflect,
// BORDER_REFLECT_101 mirror, BORDER_REPLICATE nearest, BORDER_CONSTANT constant with the value 0
// only (the rungs' can_run keeps wrap and other constants away). Its threads are its own (Debian
// builds it on TBB), set to OpenMP's thread count.
#include <omp.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "convolution/host_kernel.hpp"
#include "core/modules.hpp"

namespace pplab::detail {
namespace {

int opencv_border(boundary b) {
  switch (b) {
  case boundary::reflect:
    return cv::BORDER_REFLECT;
  case boundary::mirror:
    return cv::BORDER_REFLECT_101;
  case boundary::nearest:
    return cv::BORDER_REPLICATE;
  default:
    return cv::BORDER_CONSTANT;
  }
}

template <class T> constexpr int opencv_type = sizeof(T) == 4 ? CV_32F : CV_64F;

template <class T>
cv::Mat image(const T* data, std::size_t rows, std::size_t cols, std::size_t ld) {
  return cv::Mat(int(rows), int(cols), opencv_type<T>, const_cast<T*>(data), ld * sizeof(T));
}

struct filter_2d {
  template <class T> static void run(const filter<T>& f) {
    cv::setNumThreads(omp_get_max_threads());
    cv::Mat out = image(f.out, f.rows, f.cols, f.ld_out);
    cv::filter2D(image(f.in, f.rows, f.cols, f.ld_in), out, -1, image(f.mask, f.kh, f.kw, f.kw),
                 cv::Point(-1, -1), 0, opencv_border(f.mode));
  }
};

// A u8 image of 1, 3 or 4 channels (CV_8UC1/3/4), to f32 or to u8 (OpenCV's saturate_cast
// rounds to nearest, ties to even, as pplab does).
void filter_2d_u8(const convolution_call& c) {
  const convolution_problem& p = c.p;
  cv::setNumThreads(omp_get_max_threads());
  const int ch = int(p.channels);
  const cv::Mat in(int(p.rows), int(p.cols), CV_MAKETYPE(CV_8U, ch), const_cast<void*>(c.in),
                   c.ld_in);
  cv::Mat out(int(p.rows), int(p.cols), CV_MAKETYPE(p.u8_out ? CV_8U : CV_32F, ch), c.out,
              c.ld_out * (p.u8_out ? 1 : 4));
  const cv::Mat mask(int(p.kh), int(p.kw), CV_32F, const_cast<void*>(c.mask));
  cv::filter2D(in, out, p.u8_out ? CV_8U : CV_32F, mask, cv::Point(-1, -1), 0,
               opencv_border(p.mode));
}

struct separable_filter_2d {
  template <class T> static void run(const filter<T>& f) {
    cv::setNumThreads(omp_get_max_threads());
    const T* col = f.mask + f.kh * f.kw;
    const T* row = col + f.kh;
    cv::Mat out = image(f.out, f.rows, f.cols, f.ld_out);
    cv::sepFilter2D(image(f.in, f.rows, f.cols, f.ld_in), out, -1, image(row, 1, f.kw, f.kw),
                    image(col, f.kh, 1, 1), cv::Point(-1, -1), 0, opencv_border(f.mode));
  }
};

void convolution_cpu_c00_filter2d(const convolution_call& c) {
  if (u8_image(c.p)) filter_2d_u8(c);
  else dispatch_convolution<filter_2d>(c);
}
void convolution_cpu_c00_sepfilter2d(const convolution_call& c) {
  dispatch_convolution<separable_filter_2d>(c);
}

}  // namespace

void add_convolution_vendors_exports(module_exports& e) {
  e.add("opencv_filter2d", &convolution_cpu_c00_filter2d);
  e.add("opencv_sepfilter2d", &convolution_cpu_c00_sepfilter2d);
}

}  // namespace pplab::detail
