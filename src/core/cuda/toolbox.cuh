#pragma once
// The CUDA toolbox every pattern's GPU rungs use: checked calls (check.cuh), shuffles and warp
// and block reductions over any type and operator, the last-block cross-block combine
// (pplab/cuda/detail/block.cuh, shared with the user-operator API), launch sizing (launch.cuh),
// and 16-byte vector loads with their cache hints.
#include <cstdint>
#include <type_traits>

#include "core/cuda/check.cuh"
#include "core/cuda/launch.cuh"
#include "pplab/cuda/detail/block.cuh"

namespace pplab::detail {

using cuda_detail::block_reduce;
using cuda_detail::last_block_combine;
using cuda_detail::warp_reduce;
constexpr int warp = cuda_detail::warp_size;

// How 16-byte loads go: through the read-only path (ld.global.nc); marked streaming
// (ld.global.cs: evict first, the data is read once); or read-only with a hint that L2 fetch
// 256 bytes around each miss (whole DRAM bursts for a stream that will want them).
enum class load { readonly, streaming, prefetch256 };

template <load L> __device__ inline uint4 load16(const uint4* p) {
  if constexpr (L == load::streaming) {
    return __ldcs(p);
  } else if constexpr (L == load::prefetch256) {
    uint4 r;
    asm volatile("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
    return r;
  } else {
    return __ldg(p);
  }
}

// Visits what grid thread g of `threads` owns of in[0, n), with 16-byte loads: `unroll` loads in
// flight per thread over the aligned middle (coalesced: neighbours in a warp load neighbouring
// vectors), each vector whole: whole(x, i) with its 16 / sizeof(T) elements x and the index i of
// the first; single loads for the elements before the first 16-byte boundary and after the last
// whole vector: single(x, i).
template <class T, int unroll, load L, class Whole, class Single>
__device__ inline void for_each_vector(const T* __restrict__ in, std::size_t n, std::size_t g,
                                       std::size_t threads, Whole&& whole, Single&& single) {
  constexpr std::size_t per_vec = 16 / sizeof(T);
  std::size_t head = ((16 - (reinterpret_cast<std::uintptr_t>(in) & 15)) & 15) / sizeof(T);
  if (head > n) head = n;
  if (g < head) single(in[g], g);
  const uint4* v = reinterpret_cast<const uint4*>(in + head);
  const std::size_t vectors = (n - head) / per_vec;
  const auto each = [&](const uint4& raw, std::size_t vector) {
    T x[per_vec];
    memcpy(x, &raw, 16);
    whole(x, head + vector * per_vec);
  };
  std::size_t i = g;
  for (; i + (unroll - 1) * threads < vectors; i += unroll * threads) {
    uint4 r[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) r[u] = load16<L>(v + i + u * threads);
#pragma unroll
    for (int u = 0; u < unroll; ++u) each(r[u], i + u * threads);
  }
  for (; i < vectors; i += threads) each(load16<L>(v + i), i);
  const std::size_t tail = head + vectors * per_vec + g;
  if (tail < n) single(in[tail], tail);
}

// for_each_vector one element at a time: f(x, e) gets each element and its place e in its
// vector (0 for the single loads), so a caller can keep independent accumulators per place; an f
// that takes three arguments, f(x, e, i), also gets the element's index i in `in` (argmin, argmax).
template <class T, int unroll, load L, class F>
__device__ inline void for_each_vectorized(const T* __restrict__ in, std::size_t n, std::size_t g,
                                           std::size_t threads, F&& f) {
  constexpr std::size_t per_vec = 16 / sizeof(T);
  const auto visit = [&](T x, std::size_t e, std::size_t at) {
    if constexpr (std::is_invocable_v<F&, T, std::size_t, std::size_t>) f(x, e, at);
    else f(x, e);
  };
  for_each_vector<T, unroll, L>(
      in, n, g, threads,
      [&](const T(&x)[per_vec], std::size_t first) {
#pragma unroll
        for (std::size_t e = 0; e < per_vec; ++e) visit(x[e], e, first + e);
      },
      [&](T x, std::size_t at) { visit(x, 0, at); });
}

}  // namespace pplab::detail
