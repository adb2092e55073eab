// NPP's FilterBorder, the call of the vendor rungs c00_npp (f32) and c00_npp_u8 (u8 to u8). NPP
// takes the mask in reverse order (a convolution), so the call reverses the correlation's mask
// into device memory (the rung's scratch) on the call's stream. NPP's documented border is
// NPP_BORDER_REPLICATE, SciPy's nearest: the rungs run that mode alone.
#include <nppi_filtering_functions.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "convolution/cuda/conv_cuda.cuh"
#include "convolution/cuda/npp_filter.hpp"

namespace pplab::detail::convolution_cuda {
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

}  // namespace

bool npp_takes(const convolution_problem& p, std::size_t row_bytes) {
  return p.mode == boundary::nearest && p.planes == 1 && p.rows > 0 && p.cols > 0 &&
         p.rows < (std::size_t(1) << 31) && row_bytes < (std::size_t(1) << 31);
}

std::size_t npp_mask_bytes(const convolution_problem& p) { return p.kh * p.kw * sizeof(float); }

void npp_filter(const convolution_call& c) {
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

}  // namespace pplab::detail::convolution_cuda
