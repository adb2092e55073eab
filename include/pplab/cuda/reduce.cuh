#pragma once
// User operators on the GPU, for programs compiled by nvcc: any associative, commutative device
// callable with an identity, over data already in device memory. One launch, deterministic: the
// same last-block-finishes kernel as reduce/cuda/r12, over any type T (a struct of three floats,
// say), with a shared-memory tree since T need not fit a shuffle.
//
//   pplab::point3* d_points = ...;  // device memory
//   pplab::point3 far = pplab::reduce(pplab::cuda, pplab::device_span<pplab::point3>{d_points, n},
//                                     pplab::farthest_point_op());
#include <cuda_runtime.h>

#include <string>

#include "pplab/device.hpp"
#include "pplab/ops.hpp"

namespace pplab {
namespace cuda_detail {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw error(errc::device, std::string(what) + " failed: " + cudaGetErrorString(e));
}

// A load that skips L1 (other blocks wrote the value; L1 is not coherent across SMs).
template <class T> __device__ inline T load_from_l2(const T* p) {
  if constexpr (sizeof(T) % 4 == 0) {
    T v;
    unsigned words[sizeof(T) / 4];
    for (unsigned i = 0; i < sizeof(T) / 4; ++i)
      words[i] = __ldcg(reinterpret_cast<const unsigned*>(p) + i);
    memcpy(&v, words, sizeof(T));
    return v;
  } else {
    return *static_cast<const volatile T*>(p);
  }
}

template <class T, class C, unsigned B>
__global__ void __launch_bounds__(B)
    custom_reduce(const T* __restrict__ in, std::size_t n, C combine, T identity, T* partial,
                  unsigned* tickets, T* out) {
  __shared__ T s[B];
  __shared__ bool last;
  const unsigned t = threadIdx.x;
  T v = identity;
  for (std::size_t i = std::size_t(blockIdx.x) * B + t; i < n; i += std::size_t(gridDim.x) * B)
    v = combine(v, in[i]);
  s[t] = v;
  __syncthreads();
  for (unsigned stride = B / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] = combine(s[t], s[t + stride]);
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    last = atomicAdd(tickets, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  v = identity;
  for (unsigned b = t; b < gridDim.x; b += B) v = combine(v, load_from_l2(partial + b));
  s[t] = v;
  __syncthreads();
  for (unsigned stride = B / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] = combine(s[t], s[t + stride]);
    __syncthreads();
  }
  if (t == 0) *out = s[0];
}

}  // namespace cuda_detail

template <class T, class C>
T reduce(cuda_t, device_span<T> d, const custom_op<std::remove_cv_t<T>, C>& o,
         cudaStream_t stream = nullptr) {
  using U = std::remove_cv_t<T>;
  constexpr unsigned B = 256;
  int device = 0, sms = 0;
  cuda_detail::check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_detail::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
                     "cudaDeviceGetAttribute");
  std::size_t blocks = (d.size + B * 4 - 1) / (B * 4);
  blocks = blocks < 1 ? 1 : (blocks > std::size_t(sms) * 4 ? std::size_t(sms) * 4 : blocks);
  // scratch: [tickets (256 B)] [partials] [answer]
  const std::size_t bytes = 256 + (blocks + 1) * sizeof(U);
  char* scratch = nullptr;
  cuda_detail::check(cudaMallocAsync(reinterpret_cast<void**>(&scratch), bytes, stream),
                     "cudaMallocAsync");
  cuda_detail::check(cudaMemsetAsync(scratch, 0, 256, stream), "cudaMemsetAsync");
  U* partial = reinterpret_cast<U*>(scratch + 256);
  U* answer = partial + blocks;
  cuda_detail::custom_reduce<U, C, B><<<unsigned(blocks), B, 0, stream>>>(
      d.data, d.size, o.combine, o.identity, partial, reinterpret_cast<unsigned*>(scratch), answer);
  cuda_detail::check(cudaGetLastError(), "custom_reduce launch");
  U result;
  cuda_detail::check(cudaMemcpyAsync(&result, answer, sizeof(U), cudaMemcpyDeviceToHost, stream),
                     "cudaMemcpyAsync");
  cuda_detail::check(cudaFreeAsync(scratch, stream), "cudaFreeAsync");
  cuda_detail::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return result;
}

}  // namespace pplab
