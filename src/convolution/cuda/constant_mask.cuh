#pragma once
// The mask in constant memory: every thread of a warp reads the same tap at once, which the
// constant cache serves in one broadcast. One bank per rung file (each .cu is its own module) and
// GPU, shared by every call of that rung there, whatever its stream or host thread: `mask_in_bank`
// orders them (below), so that calls with different masks on several streams at once each read
// their own.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "convolution/cuda/conv_cuda.cuh"

namespace pplab::detail::convolution_cuda {
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
  if (!found || get_current(&ctx) != CUDA_SUCCESS) return 0;
  if (!ctx) {
    // A host thread whose runtime calls so far needed no context (a pointer query) has none
    // current yet: the device's primary context made current, as the copy below would make it.
    // Without it the thread's calls took context 0's bank, unordered with the other threads'.
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaSetDevice(device) != cudaSuccess ||
        get_current(&ctx) != CUDA_SUCCESS || !ctx)
      return 0;
  }
  if (get_id(ctx, &id) != CUDA_SUCCESS) return 0;
  return id;
}

// The mask of one call in the constant bank, from before the call's kernels are enqueued on
// stream s until after (a guard around the launches: its life is the call's). The bank's values
// are copied on s unless the bank already holds the same values in this context (a caller
// filtering image after image uses one mask, and a copy from pageable memory waits for the host:
// H100, 1024 x 1024 with 3 x 3, 14 us a call with the copy, 13 us without). Calls are ordered on
// the GPU as the bank needs, without a host wait: a copy of other values waits for every kernel
// that read the bank before (an event per stream that did), and a kernel that reads values
// copied on another stream waits for that copy. The guard holds a lock from the copy to the
// launch, so that no other call changes the bank in between.
template <class T> class mask_in_bank {
public:
  mask_in_bank(const T* mask, int taps, cudaStream_t s)
      : lock_(guard()), s_(s), bank_(state(current_context_id())) {
    bank& b = bank_;
    const unsigned long long context = b.context;
    const std::size_t bytes = sizeof(T) * std::size_t(taps);
    const auto* from = reinterpret_cast<const unsigned char*>(mask);
    if (context != 0 && b.held.size() == bytes && std::equal(b.held.begin(), b.held.end(), from)) {
      if (b.copied) PPLAB_CUDA(cudaStreamWaitEvent(s, b.copied, 0));
      return;
    }
    // After the last copy and every kernel that read it. Each later reader waits for this copy,
    // so the readers before it need no event of their own any more.
    if (b.copied) PPLAB_CUDA(cudaStreamWaitEvent(s, b.copied, 0));
    for (const auto& [stream, read] : b.readers) {
      PPLAB_CUDA(cudaStreamWaitEvent(s, read, 0));
      cudaEventDestroy(read);  // released once it has happened
    }
    b.readers.clear();
    if constexpr (sizeof(T) == 4)
      PPLAB_CUDA(cudaMemcpyToSymbolAsync(mask_f32, mask, bytes, 0, cudaMemcpyHostToDevice, s));
    else PPLAB_CUDA(cudaMemcpyToSymbolAsync(mask_f64, mask, bytes, 0, cudaMemcpyHostToDevice, s));
    if (!b.copied) PPLAB_CUDA(cudaEventCreateWithFlags(&b.copied, cudaEventDisableTiming));
    PPLAB_CUDA(cudaEventRecord(b.copied, s));
    b.held.assign(from, from + bytes);
  }
  // After the launches: the stream's last kernel that reads the bank, for the next copy to wait
  // for. (A failure here is the launch's own, which the call reports.)
  ~mask_in_bank() {
    bank& b = bank_;
    cudaEvent_t& read = b.readers[s_];
    if (!read && cudaEventCreateWithFlags(&read, cudaEventDisableTiming) != cudaSuccess) {
      b.readers.erase(s_);
      b.held.clear();  // unknown readers: the next call copies again, after a wait for all
      cudaDeviceSynchronize();
      return;
    }
    cudaEventRecord(read, s_);
  }
  mask_in_bank(const mask_in_bank&) = delete;
  mask_in_bank& operator=(const mask_in_bank&) = delete;

private:
  // One bank per CUDA context (each GPU's, or a context made again after cudaDeviceReset): a
  // process that drives several GPUs (the nccl rung) keeps each GPU's mask and events apart.
  struct bank {
    std::vector<unsigned char> held;  // the values in the bank
    unsigned long long context = 0;
    cudaEvent_t copied = nullptr;                 // after the last copy
    std::map<cudaStream_t, cudaEvent_t> readers;  // each stream's last reader since the copy
  };
  static std::mutex& guard() {  // calls from several host threads
    static std::mutex m;
    return m;
  }
  // Context 0 (one that cannot be told) shares a bank that never keeps its values (above).
  static bank& state(unsigned long long context) {
    static std::map<unsigned long long, bank> banks;
    bank& b = banks[context];
    b.context = context;
    return b;
  }
  std::lock_guard<std::mutex> lock_;
  cudaStream_t s_;
  bank& bank_;
};

}  // namespace
}  // namespace pplab::detail::convolution_cuda
