#pragma once
// Device building blocks shared by pplab's GPU rungs and by the user-operator reduction of
// pplab/cuda/reduce.cuh, generic over the value type and the combining operator: shuffles of
// any trivially copyable type, warp and block reductions in a fixed order (deterministic), and
// the single-launch cross-block combine in which the last block to finish reduces the partials.
// For nvcc only.
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace pplab::cuda_detail {

constexpr int warp_size = 32;

// __shfl_down_sync for any trivially copyable T: arithmetic types directly (narrow ones as int),
// anything else (a struct, a 128-bit integer) as 32-bit words.
template <class T> __device__ inline T shfl_down(T v, int delta) {
  static_assert(std::is_trivially_copyable_v<T>);
  if constexpr (std::is_arithmetic_v<T> && sizeof(T) < 4) {
    return T(__shfl_down_sync(0xffffffffu, int(v), delta));
  } else if constexpr (std::is_arithmetic_v<T> && sizeof(T) <= 8) {
    return __shfl_down_sync(0xffffffffu, v, delta);
  } else {
    constexpr int words = int((sizeof(T) + 3) / 4);
    unsigned w[words] = {};
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int i = 0; i < words; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], delta);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
  }
}

// The warp's value in lane 0, by a shuffle tree.
template <class T, class Combine> __device__ inline T warp_reduce(T v, Combine combine) {
#pragma unroll
  for (int d = warp_size / 2; d > 0; d /= 2) v = combine(v, shfl_down(v, d));
  return v;
}

// The whole block's value in thread 0: warps reduce by shuffles, then the first warp reduces the
// warp results from shared memory. Fixed order: deterministic. Every thread must call it.
template <int B, class T, class Combine>
__device__ inline T block_reduce(T v, Combine combine, T identity) {
  static_assert(B % warp_size == 0 && B / warp_size <= warp_size);
  __shared__ alignas(T) unsigned char raw[sizeof(T) * (B / warp_size)];
  T* per_warp = reinterpret_cast<T*>(raw);
  const int lane = int(threadIdx.x) % warp_size, w = int(threadIdx.x) / warp_size;
  v = warp_reduce(v, combine);
  if (lane == 0) per_warp[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < B / warp_size ? per_warp[lane] : identity;
    v = warp_reduce(v, combine);
  }
  return v;
}

// A load that skips L1 (other blocks wrote the value; L1 is not coherent across SMs).
template <class T> __device__ inline T load_from_l2(const T* p) {
  constexpr int words = int((sizeof(T) + 3) / 4);
  if constexpr (sizeof(T) % 4 == 0) {
    unsigned w[words];
    for (int i = 0; i < words; ++i) w[i] = __ldcg(reinterpret_cast<const unsigned*>(p) + i);
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
  } else {
    return *static_cast<const volatile T*>(p);
  }
}

// The cross-block combine in one launch. Each block's value `v` (in thread 0, after
// block_reduce) is written to partial[blockIdx.x], made visible GPU-wide, and the block takes a
// ticket; the block that draws the last ticket knows every partial is written, reduces them in
// block order, hands the answer to `finish` in its thread 0, and puts the counter back to zero
// for the next launch. Every thread of every block must call it. `tickets` starts at zero.
template <int B, class T, class Combine, class Finish>
__device__ inline void last_block_combine(T v, Combine combine, T identity, T* partial,
                                          unsigned* tickets, Finish finish) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = v;
    __threadfence();  // the partial is visible GPU-wide before the ticket is taken
    last = atomicAdd(tickets, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  v = identity;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += B) v = combine(v, load_from_l2(partial + b));
  v = block_reduce<B>(v, combine, identity);
  if (threadIdx.x == 0) {
    finish(v);
    *tickets = 0;
  }
}

}  // namespace pplab::cuda_detail
