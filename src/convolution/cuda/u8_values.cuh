#pragma once
// A u8 image's values on the GPU: a byte as f32 and an f32 result as a byte, by the bits of 2^23,
// where a conversion instruction would run at an eighth of the FMA pipe's rate.
#include <cstdint>

namespace pplab::detail::convolution_cuda {

// Rounded to nearest (ties to even), saturated to 0..255, NaN as 0 (fmaxf returns the number).
// Adding 1.5 x 2^23 to a value in [0, 255] leaves it rounded in the low bits of the sum (ties to
// even, as the FPU rounds): two min/max and an add.
__device__ __forceinline__ std::uint8_t to_u8(float v) {
  return std::uint8_t(__float_as_uint(fminf(fmaxf(v, 0.0f), 255.0f) + 12582912.0f));
}

// A byte as f32 by the same trick backwards: its bits under the exponent of 2^23, less 2^23.
__device__ __forceinline__ float to_f32(std::uint8_t b) {
  return __uint_as_float(0x4B000000u | b) - 8388608.0f;
}

}  // namespace pplab::detail::convolution_cuda
