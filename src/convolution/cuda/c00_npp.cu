// convolution/cuda/c00_npp: NPP's FilterBorder, the vendor baseline of the CUDA toolkit, measured
// beside the ladder and never the API's default: nppiFilterBorder_32f_C1R for f32 images, and
// (registered apart, as c00_npp_u8) nppiFilterBorder32f_8u_C1R / C3R / C4R for u8 images to u8: an
// f32 mask over u8 pixels. Those cut their results toward zero (H100, CUDA 13.0: 49.88 gives 49),
// where pplab rounds to nearest as OpenCV does, so that rung is held to the truncation of the
// reference (rung_info::truncates) and the API never runs it. NPP takes the mask in reverse order
// (a convolution), so the rung reverses the correlation's mask into device memory (its scratch) on
// the call's stream. NPP's documented border is NPP_BORDER_REPLICATE, SciPy's nearest: the rung
// runs that mode alone.
#include <nppi_filtering_functions.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "convolution/cuda/conv_cuda.cuh"

namespace pplab::detail::gpu_conv {
namespace {

// NPP's stream context, filled as its header asks (the device's properties read once).
NppStreamContext context_for(cudaStream_t s) {
  static std::mutex guard;
  static std::vector<cudaDeviceProp> props;
  int device = 0;
  PPLAB_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop;
  {
    const std::lock_guard<std::mutex> lock(guard);
    if (props.size() <= std::size_t(device))
      props.resize(std::size_t(device) + 1, cudaDeviceProp{});
    if (props[std::size_t(device)].multiProcessorCount == 0)
      PPLAB_CUDA(cudaGetDeviceProperties(&props[std::size_t(device)], device));
    prop = props[std::size_t(device)];
  }
  NppStreamContext c{};
  c.hStream = s;
  c.nCudaDeviceId = device;
  c.nMultiProcessorCount = prop.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
  c.nSharedMemPerBlock = prop.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = prop.major;
  c.nCudaDevAttrComputeCapabilityMinor = prop.minor;
  PPLAB_CUDA(cudaStreamGetFlags(s, &c.nStreamFlags));
  return c;
}

void check(NppStatus status, const char* call) {
  if (status < 0)
    fail(errc::device,
         std::string(call) + " failed with NPP status " + std::to_string(int(status)));
}

// What both of NPP's filters ask of an image: nearest mode (their one border), not empty, and a
// row count and a row's bytes that fit NPP's int sizes and steps.
bool npp_takes(const convolution_problem& p, std::size_t row_bytes) {
  return p.mode == boundary::nearest && p.rows > 0 && p.cols > 0 &&
         p.rows < (std::size_t(1) << 31) && row_bytes < (std::size_t(1) << 31);
}

}  // namespace

bool c00_can_run(const convolution_problem& p) {
  return p.type == dtype::f32 && p.channels == 1 && !p.u8_out && npp_takes(p, p.cols * 4);
}

bool c00_u8_can_run(const convolution_problem& p) {
  return p.type == dtype::u8 && p.u8_out && npp_takes(p, p.cols * p.channels);
}

std::size_t c00_scratch(const convolution_problem& p) { return p.kh * p.kw * sizeof(float); }

void c00_run(const convolution_call& c) {
  const convolution_problem& p = c.p;
  const auto s = static_cast<cudaStream_t>(c.stream);
  // The mask reversed; from pageable memory, the copy has taken the bytes when cudaMemcpyAsync
  // returns.
  const auto* mask = static_cast<const float*>(c.mask);
  std::vector<float> reversed(mask, mask + p.kh * p.kw);
  std::reverse(reversed.begin(), reversed.end());
  PPLAB_CUDA(cudaMemcpyAsync(c.scratch, reversed.data(), reversed.size() * sizeof(float),
                             cudaMemcpyHostToDevice, s));
  const NppiSize size{int(p.cols), int(p.rows)}, kernel{int(p.kw), int(p.kh)};
  const NppiPoint origin{0, 0}, anchor{int(p.kw / 2), int(p.kh / 2)};
  const NppStreamContext ctx = context_for(s);
  const auto* k = static_cast<const Npp32f*>(c.scratch);
  if (p.type == dtype::f32) {
    check(nppiFilterBorder_32f_C1R_Ctx(static_cast<const Npp32f*>(c.in), int(c.ld_in * 4), size,
                                       origin, static_cast<Npp32f*>(c.out), int(c.ld_out * 4), size,
                                       k, kernel, anchor, NPP_BORDER_REPLICATE, ctx),
          "nppiFilterBorder_32f_C1R_Ctx");
  } else {
    const auto* in = static_cast<const Npp8u*>(c.in);
    auto* out = static_cast<Npp8u*>(c.out);
    const int ld_in = int(c.ld_in), ld_out = int(c.ld_out);
    const auto run = p.channels == 1   ? nppiFilterBorder32f_8u_C1R_Ctx
                     : p.channels == 3 ? nppiFilterBorder32f_8u_C3R_Ctx
                                       : nppiFilterBorder32f_8u_C4R_Ctx;
    check(run(in, ld_in, size, origin, out, ld_out, size, k, kernel, anchor, NPP_BORDER_REPLICATE,
              ctx),
          "nppiFilterBorder32f_8u_CxR_Ctx");
  }
}

}  // namespace pplab::detail::gpu_conv
