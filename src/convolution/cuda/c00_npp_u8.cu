// convolution/cuda/c00_npp_u8: NPP's nppiFilterBorder32f_8u_C1R / C3R / C4R, an f32 mask over a
// u8 image of 1, 3 or 4 channels to u8, in nearest mode (npp_filter.cu): the vendor baseline of
// the u8 rungs. NPP cuts its results toward zero (H100, CUDA 13.0: 49.88 gives 49) where pplab
// rounds to nearest as OpenCV does, so this rung is held to the truncation of the reference
// (rung_info::truncates) and the API never runs it.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): u8 x3 to u8 4096x4096 mask 5x5
// nearest in 0.161 ms, 15666 GFLOP/s (28.1% of the FMA peak).
#include "convolution/cuda/npp_filter.hpp"

namespace pplab::detail::convolution_cuda {

extern const convolution_rung c00_npp_u8{
    .info = {.step = 0,
             .summary =
                 "NPP's FilterBorder32f on u8 images of 1, 3 or 4 channels to u8 (nearest mode): "
                 "the vendor baseline, its outputs cut toward zero where pplab rounds",
             .truncates = true},
    .can_run =
        [](const convolution_problem& p) {
          return p.type == dtype::u8 && p.u8_out && npp_takes(p, p.cols * p.channels);
        },
    .scratch_bytes = npp_mask_bytes,
    .run = npp_filter,
};

}  // namespace pplab::detail::convolution_cuda
