#pragma once
// The mask in constant memory: every thread of a warp reads the same tap at once, which the
// constant cache serves in one broadcast. One copy per rung file (each .cu is its own module);
// the copy is enqueued on the call's stream, so it lands before the kernel that reads it.
// Concurrent calls on different streams with different masks would overwrite each other's: the
// call contract is one call in flight per rung.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "convolution/cuda/conv_cuda.cuh"

namespace pplab::detail::gpu_conv {
namespace {

__constant__ float mask_f32[max_mask_side * max_mask_side];
__constant__ double mask_f64[max_mask_side * max_mask_side];

template <class T> __device__ __forceinline__ T tap(int k) {
  if constexpr (sizeof(T) == 4) return mask_f32[k];
  else return mask_f64[k];
}

// The current CUDA context's id, unique for the process's life (a context made again after
// cudaDeviceReset gets a new one), or 0 when it cannot be told; through the runtime's driver entry
// points, as libpplab does not link libcuda (it must load on machines without a GPU).
inline unsigned long long current_context_id() {
  static PFN_cuCtxGetCurrent_v4000 get_current = nullptr;
  static PFN_cuCtxGetId_v12000 get_id = nullptr;
  static const bool found = [] {
    cudaDriverEntryPointQueryResult q;
    return cudaGetDriverEntryPointByVersion("cuCtxGetCurrent",
                                            reinterpret_cast<void**>(&get_current), 4000,
                                            cudaEnableDefault, &q) == cudaSuccess &&
           cudaGetDriverEntryPointByVersion("cuCtxGetId", reinterpret_cast<void**>(&get_id), 12000,
                                            cudaEnableDefault, &q) == cudaSuccess &&
           get_current && get_id;
  }();
  CUcontext ctx = nullptr;
  unsigned long long id = 0;
  if (!found || get_current(&ctx) != CUDA_SUCCESS || !ctx || get_id(ctx, &id) != CUDA_SUCCESS)
    return 0;
  return id;
}

// The mask copied to the constant bank on stream s, unless the bank already holds the same
// values in this context: a caller filtering image after image uses one mask, and a copy from
// pageable memory waits for the host (H100, 1024 x 1024 with 3 x 3: 14 us a call with the copy,
// 13 us without). Under the contract above (one call in flight per rung) the bank holds what the
// last call uploaded.
template <class T> void upload_mask(const T* mask, int taps, cudaStream_t s) {
  static std::vector<unsigned char> held;  // the bytes last uploaded, and where
  static unsigned long long held_context = 0;
  static std::mutex guard;  // calls from several host threads
  const std::lock_guard<std::mutex> lock(guard);
  const unsigned long long context = current_context_id();
  const std::size_t bytes = sizeof(T) * std::size_t(taps);
  const auto* from = reinterpret_cast<const unsigned char*>(mask);
  if (context != 0 && context == held_context && held.size() == bytes &&
      std::equal(held.begin(), held.end(), from))
    return;
  if constexpr (sizeof(T) == 4)
    PPLAB_CUDA(cudaMemcpyToSymbolAsync(mask_f32, mask, bytes, 0, cudaMemcpyHostToDevice, s));
  else PPLAB_CUDA(cudaMemcpyToSymbolAsync(mask_f64, mask, bytes, 0, cudaMemcpyHostToDevice, s));
  held.assign(from, from + bytes);
  held_context = context;
}

}  // namespace
}  // namespace pplab::detail::gpu_conv
