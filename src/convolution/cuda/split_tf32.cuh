#pragma once
// What the split-TF32 rungs (c09, c11) share: each operand as the sum of two TF32 values, big +
// small, so that three TF32 products (small big, big small, big big, summed in fp32) give an f32
// product within fp32's error bound, as matmul's m14 does ("3xTF32").
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "core/cuda/check.cuh"

namespace pplab::detail::convolution_cuda {

// An image value as big + small, TF32 values: big is x with its low 13 bits cleared, small the
// rest (exact in fp32) as it is, whose low 13 bits the tensor cores do not read: truncated, not
// rounded as split_tf32 rounds it (cvt.rna). The rounding's instructions cost more than the
// error they save here: on the H100 at 15 x 15 c09 took 1.10 ms with them and 1.02 ms without
// (with the products' kinds apart: 0.99 against 1.15), and the largest error against an f64
// filter moved from 3.95e-6 to 3.95e-6 of the largest output (31 x 31: 1.09e-5 to 1.12e-5; a
// Python call each, bench/results/h100-2026-11-26-convolution-c09-variants.txt).
__device__ __forceinline__ void split_image_value(float x, unsigned& big, unsigned& small) {
  big = __float_as_uint(x) & 0xffffe000u;
  small = __float_as_uint(x - __uint_as_float(big));
}

// A mask's tap as big + small, as split_tf32 does on the GPU (big: the low 13 bits cleared;
// small: the rest, exact in fp32, rounded to nearest, ties away, to TF32 as cvt.rna does). The
// taps are split once on the host, into the fragments the rung's kernel reads.
inline void split_on_host(float x, unsigned& big, unsigned& small) {
  std::memcpy(&big, &x, 4);
  big &= 0xffffe000u;
  float b;
  std::memcpy(&b, &big, 4);
  const float rest = x - b;
  std::memcpy(&small, &rest, 4);
  if ((small & 0x7f800000u) != 0x7f800000u) small = (small + 0x1000u) & 0xffffe000u;
}

// The rung's fragments of B (split on the host) and then the call's kh x kw taps (for the outputs
// filtered tap by tap), copied to the rung's scratch on the stream: a pageable copy is staged
// before it returns. Returns where the taps start on the GPU; the fragments start at `scratch`.
inline const float* fragments_and_taps_to(void* scratch, std::vector<uint4> b, const float* mask,
                                          std::size_t taps, cudaStream_t s) {
  const std::size_t blocks = b.size();
  b.resize(blocks + (taps + 3) / 4);
  std::memcpy(b.data() + blocks, mask, taps * sizeof(float));
  PPLAB_CUDA(cudaMemcpyAsync(scratch, b.data(), blocks * sizeof(uint4) + taps * sizeof(float),
                             cudaMemcpyHostToDevice, s));
  return reinterpret_cast<const float*>(static_cast<const uint4*>(scratch) + blocks);
}

}  // namespace pplab::detail::convolution_cuda
