#pragma once
// CUB's call for the channels of an image, the lab's baseline for them: DeviceHistogram::
// MultiHistogramEven over interleaved RGBA bytes, 256 bins per channel, as decoded images come
// (src/histogram/cuda/h00_cub.cu). pplab holds an image's channels apart (its reader separates
// them while decoding), so the lab runs the API's rung on the four channels beside it. A build
// without the cuda module has no such call (src/histogram/cuda_forward.cpp throws).
#include <cstddef>
#include <cstdint>

namespace pplab::detail {

// Scratch bytes for cub_rgba_histogram over `pixels` pixels.
std::size_t cub_rgba_histogram_scratch(std::size_t pixels);
// counts: 4 x 256 64-bit device counters, channel by channel, overwritten; pixels: device memory,
// 4 bytes (R, G, B, A) each, any number of them (CUB counts at most 2^28 at a time here).
void cub_rgba_histogram(const void* pixels, std::size_t n_pixels, std::uint64_t* counts,
                        void* scratch, void* stream);

}  // namespace pplab::detail
