#pragma once
// User operators on the GPU, for programs compiled by nvcc: any associative, commutative device
// callable with an identity, over data already in device memory. One launch, deterministic: the
// last-block-finishes combine of reduce/cuda/r12 (pplab/cuda/detail/block.cuh), over any
// trivially copyable type T (a struct of three floats, say).
//
//   pplab::point3* d_points = ...;  // device memory
//   pplab::point3 far = pplab::reduce(pplab::cuda, pplab::device_span<pplab::point3>{d_points, n},
//                                     pplab::farthest_point_op());
#include <cuda_runtime.h>

#include <string>

#include "pplab/cuda/detail/block.cuh"
#include "pplab/device.hpp"
#include "pplab/ops.hpp"

namespace pplab {
namespace cuda_detail {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw error(errc::device, std::string(what) + " failed: " + cudaGetErrorString(e));
}

template <class T> struct store_to {
  T* out;
  __device__ void operator()(const T& v) const { *out = v; }
};

template <class T, class C, int B>
__global__ void __launch_bounds__(B)
    custom_reduce(const T* __restrict__ in, std::size_t n, C combine, T identity, T* partial,
                  unsigned* tickets, T* out) {
  T v = identity;
  for (std::size_t i = std::size_t(blockIdx.x) * B + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * B)
    v = combine(v, in[i]);
  v = block_reduce<B>(v, combine, identity);
  last_block_combine<B>(v, combine, identity, partial, tickets, store_to<T>{out});
}

}  // namespace cuda_detail

template <class T, class C>
T reduce(cuda_t, device_span<T> d, const custom_op<std::remove_cv_t<T>, C>& o,
         cudaStream_t stream = nullptr) {
  using U = std::remove_cv_t<T>;
  constexpr int B = 256;
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
