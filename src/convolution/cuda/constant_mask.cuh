#pragma once
// The mask in constant memory: every thread of a warp reads the same tap at once, which the
// constant cache serves in one broadcast. One copy per rung file (each .cu is its own module);
// the copy is enqueued on the call's stream, so it lands before the kernel that reads it.
// Concurrent calls on different streams with different masks would overwrite each other's: the
// call contract is one call in flight per rung.
#include "convolution/cuda/conv_cuda.cuh"

namespace pplab::detail::gpu_conv {
namespace {

__constant__ float mask_f32[max_mask_side * max_mask_side];
__constant__ double mask_f64[max_mask_side * max_mask_side];

template <class T> __device__ __forceinline__ T tap(int k) {
  if constexpr (sizeof(T) == 4) return mask_f32[k];
  else return mask_f64[k];
}

template <class T> void upload_mask(const T* mask, int taps, cudaStream_t s) {
  if constexpr (sizeof(T) == 4)
    PPLAB_CUDA(
        cudaMemcpyToSymbolAsync(mask_f32, mask, sizeof(T) * taps, 0, cudaMemcpyHostToDevice, s));
  else
    PPLAB_CUDA(
        cudaMemcpyToSymbolAsync(mask_f64, mask, sizeof(T) * taps, 0, cudaMemcpyHostToDevice, s));
}

}  // namespace
}  // namespace pplab::detail::gpu_conv
