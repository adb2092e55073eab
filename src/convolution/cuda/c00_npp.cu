// convolution/cuda/c00_npp: NPP's nppiFilterBorder_32f_C1R on f32 images in nearest mode (NPP's
// one border), the vendor baseline of the CUDA toolkit (npp_filter.cu), measured beside the ladder
// and never the API's default.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 8192x8192 mask 5x5 nearest
// in 0.253 ms, 2118 GB/s (50.4% of copy bandwidth); f32 8192x8192 mask 7x7 nearest in 1.485 ms, 362
// GB/s (8.6% of copy bandwidth).
#include "convolution/cuda/npp_filter.hpp"

namespace pplab::detail::convolution_cuda {

extern const convolution_rung c00_npp{
    .info = {.step = 0,
             .summary = "NPP's FilterBorder on f32 images (nearest mode): the vendor baseline"},
    .can_run =
        [](const convolution_problem& p) {
          return p.type == dtype::f32 && p.channels == 1 && !p.u8_out && npp_takes(p, p.cols * 4);
        },
    .scratch_bytes = npp_mask_bytes,
    .run = npp_filter,
};

}  // namespace pplab::detail::convolution_cuda
