// The cpu backend's convolution ladder.
#include "convolution/rung.hpp"

namespace pplab::detail {

void convolution_cpu_c01(const convolution_call& c);
void convolution_cpu_c02(const convolution_call& c);
bool convolution_cpu_c03_can_run(const convolution_problem& p);
void convolution_cpu_c03(const convolution_call& c);
void convolution_cpu_c04(const convolution_call& c);
#ifdef PPLAB_HAVE_OPENCV
void register_convolution_opencv(std::vector<convolution_rung>& r);  // c00_opencv.cpp, when found
#endif

void register_convolution_cpu(std::vector<convolution_rung>& r) {
  r.push_back({{"convolution/cpu/c01_rows_openmp", backend::cpu, 1,
                "seq c02 with the output rows shared among the threads"},
               float_or_double,
               nullptr,
               convolution_cpu_c01});
  r.push_back({{"convolution/cpu/c02_register_blocked", backend::cpu, 2,
                "blocks of outputs kept in vector registers: one mask load feeds a block"},
               float_or_double,
               nullptr,
               convolution_cpu_c02});
  r.push_back({{"convolution/cpu/c03_separable", backend::cpu, 3,
                "a mask that is an outer product as two 1-D passes through a cache-sized strip"},
               convolution_cpu_c03_can_run,
               nullptr,
               convolution_cpu_c03});
  r.push_back({{"convolution/cpu/c04_u8_channels", backend::cpu, 4,
                "a u8 image's channels: rows converted once to padded f32 planes, then c02's "
                "blocks"},
               u8_image,
               nullptr,
               convolution_cpu_c04});
#ifdef PPLAB_HAVE_OPENCV
  register_convolution_opencv(r);
#endif
}

}  // namespace pplab::detail
