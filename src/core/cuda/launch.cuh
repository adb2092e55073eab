#pragma once
// Launch helpers: how many blocks of a kernel the GPU holds at once (a grid-stride kernel's grid),
// and shared memory past the default 48 KiB per block.
#include <cstddef>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "core/cuda/check.cuh"
#include "core/executor.hpp"

namespace pplab::detail {

inline int sm_count() {
  static const int sms = [] {
    int dev = 0, n = 0;
    PPLAB_CUDA(cudaGetDevice(&dev));
    PPLAB_CUDA(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  return sms;
}

// Blocks of `threads` threads of `kernel` resident on one SM at once, each with `shared` bytes of
// dynamic shared memory (past 48 KiB: allowed first, allow_shared). The runtime's answer never
// changes within a process (its GPUs are of one kind): remembered, so that a call pays a lookup
// where a query costs microseconds of host time on every call (on the nccl backend, before the
// next GPU's work is enqueued).
inline int blocks_per_sm(const void* kernel, int threads, std::size_t shared) {
  using key = std::tuple<const void*, int, std::size_t>;
  static std::mutex guard;
  static std::map<key, int> known;
  const key k{kernel, threads, shared};
  {
    std::lock_guard lock(guard);
    if (const auto it = known.find(k); it != known.end()) return it->second;
  }
  int per_sm = 0;
  PPLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared));
  std::lock_guard lock(guard);
  known[k] = per_sm;
  return per_sm;
}
template <class Kernel> int blocks_per_sm(Kernel kernel, int threads, std::size_t shared = 0) {
  return blocks_per_sm(reinterpret_cast<const void*>(kernel), threads, shared);
}

// The same on the whole GPU (at least one block per SM).
template <class Kernel>
unsigned resident_blocks(Kernel kernel, int threads, std::size_t shared = 0) {
  const int per_sm = blocks_per_sm(kernel, threads, shared);
  return unsigned(sm_count() * (per_sm > 0 ? per_sm : 1));
}

// Shared memory one block may have (the opt-in maximum), 48 KiB if the device cannot be asked.
inline std::size_t max_shared_per_block() {
  static const std::size_t bytes = [] {
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
        v <= 0) {
      (void)cudaGetLastError();
      return std::size_t(48) << 10;
    }
    return std::size_t(v);
  }();
  return bytes;
}

// Whether `kernel` was built for sm_`version` or later (90: sm_90), so that the instructions of
// that architecture it uses (tensor cores, cp.async, the copy engine) run here; false where no
// GPU answers.
template <class Kernel> bool kernel_built_for(Kernel kernel, int version = 90) {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.binaryVersion >= version;
}

// Lets `kernel` take `bytes` of dynamic shared memory (above 48 KiB it must opt in).
// The largest amount allowed so far is remembered per kernel and GPU (an attribute of the kernel
// on the current GPU): a call asks the runtime only for more.
template <class Kernel> void allow_shared(Kernel kernel, std::size_t bytes) {
  if (bytes <= (std::size_t(48) << 10)) return;
  using key = std::pair<const void*, int>;
  static std::mutex guard;
  static std::map<key, std::size_t> allowed;
  int device = 0;
  PPLAB_CUDA(cudaGetDevice(&device));
  const key k{reinterpret_cast<const void*>(kernel), device};
  std::lock_guard lock(guard);
  std::size_t& most = allowed[k];
  if (bytes <= most) return;
  PPLAB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  most = bytes;
}

}  // namespace pplab::detail
