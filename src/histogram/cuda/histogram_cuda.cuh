#pragma once
// What the GPU histogram rungs share on top of the CUDA toolbox: the dispatch from the call's
// dtype and binner to a rung's kernels, and the launch helpers every rung uses. Counts are the
// call's bins + 3 slots of 64 bits (bins, underflow, overflow, NaN: histogram/binning.hpp);
// every rung zeroes them on its stream first, so it overwrites them as the contract says.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/cuda/toolbox.cuh"
#include "histogram/binning.hpp"

namespace pplab::detail::histogram_cuda {

using count_t = unsigned long long;  // what atomicAdd takes for 64 bits
static_assert(sizeof(count_t) == sizeof(std::uint64_t));
inline count_t* counts_of(const histogram_call& c) { return reinterpret_cast<count_t*>(c.counts); }

// The dtypes a rung compiles for: all ten, or (the teaching rungs, to keep the build lean)
// bytes and the 32- and 64-bit types; such a rung says so in can_run.
enum class dtypes { all, teaching };

// (Counts over even bins only: the rungs for weights and arrays of edges say so themselves.)
template <dtypes D> bool supports(const histogram_problem& p) {
  return counts_even_bins(p) && (D == dtypes::all || p.type == dtype::u8 || size_of(p.type) >= 4);
}

// Zeroes the counts (unless told not to: a step that does not touch them), then calls
// Impl::template run<T>(x, n, binner, call, stream, extra...) with the call's dtype and binner
// (natural bins for 8/16-bit integers when the problem asks; for floats NumPy's float32 edges when
// the problem asks and they differ from the double edges, else bins of a power-of-two width
// without comparisons where the range allows, else the float binner where its error bound
// allows, else the float-pair binner; else the range binner).
enum class counts_first { zeroed, untouched };
template <class Impl, dtypes D, class... Extra>
void dispatch(const histogram_call& c, counts_first counts = counts_first::zeroed, Extra... extra) {
  const auto s = static_cast<cudaStream_t>(c.stream);
  if (counts == counts_first::zeroed)
    PPLAB_CUDA(cudaMemsetAsync(c.counts, 0, slots(c.p) * sizeof(count_t), s));
  if (c.p.n == 0) return;
  visit_dtype(c.p.type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (D == dtypes::all || std::is_same_v<T, std::uint8_t> || sizeof(T) >= 4) {
      const T* x = static_cast<const T*>(c.in);
      if constexpr (sizeof(T) <= 2 && std::is_integral_v<T>) {
        if (c.p.natural) {
          Impl::template run<T>(x, c.p.n, natural_binner{std::int64_t(c.p.lo)}, c, s, extra...);
          return;
        }
      }
      if constexpr (std::is_same_v<T, float>) {
        if (f32_edge_binner::needed(c.p)) {
          Impl::template run<T>(x, c.p.n, f32_edge_binner(c.p), c, s, extra...);
          return;
        }
        if (power_of_two_width_binner::usable(c.p)) {
          Impl::template run<T>(x, c.p.n, power_of_two_width_binner(c.p), c, s, extra...);
          return;
        }
        if (float_range_binner::usable(c.p)) {
          Impl::template run<T>(x, c.p.n, float_range_binner(c.p), c, s, extra...);
          return;
        }
        if (pair_range_binner::usable(c.p)) {
          Impl::template run<T>(x, c.p.n, pair_range_binner(c.p), c, s, extra...);
          return;
        }
      }
      Impl::template run<T>(x, c.p.n, range_binner(c.p), c, s, extra...);
    }
  });
}

// A grid-stride loop's index: 64-bit, so inputs past 2^31 elements are reached.
__device__ inline std::size_t global_thread() {
  return std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::size_t grid_threads() { return std::size_t(gridDim.x) * blockDim.x; }

// A grid-stride walk over two arrays side by side (values and weights, x and y), `unroll`
// elements of each loaded before any is used, so a thread has 2 x unroll reads in flight while it
// bins and adds: group(va, vb, i, stride) for each group, va and vb arrays of `unroll` elements
// (of one at the end), element u at index i + u x stride.
template <int unroll, class A, class B, class G>
__device__ inline void for_each_pair_group(const A* __restrict__ a, const B* __restrict__ b,
                                           std::size_t n, G&& group) {
  const std::size_t threads = grid_threads();
  std::size_t i = global_thread();
  for (; i + (unroll - 1) * threads < n; i += unroll * threads) {
    A va[unroll];
    B vb[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) va[u] = a[i + u * threads], vb[u] = b[i + u * threads];
    group(va, vb, i, threads);
  }
  for (; i < n; i += threads) {
    const A va[1] = {a[i]};
    const B vb[1] = {b[i]};
    group(va, vb, i, threads);
  }
}

// The same walk, f(a[i], b[i], i) for each i < n.
template <int unroll, class A, class B, class F>
__device__ inline void for_each_pair(const A* __restrict__ a, const B* __restrict__ b,
                                     std::size_t n, F&& f) {
  for_each_pair_group<unroll>(
      a, b, n, [&](const auto& va, const auto& vb, std::size_t i, std::size_t stride) {
        constexpr int count = int(sizeof(va) / sizeof(va[0]));
#pragma unroll
        for (int u = 0; u < count; ++u) f(va[u], vb[u], i + u * stride);
      });
}

// Launches a grid-stride kernel over as many blocks of `threads` as the GPU holds at once (the
// count found once per kernel).
template <auto kernel, class... Args>
void launch_resident(unsigned threads, cudaStream_t s, Args... args) {
  static const unsigned grid = resident_blocks(kernel, int(threads));
  kernel<<<grid, threads, 0, s>>>(args...);
  PPLAB_CUDA_LAUNCHED();
}

// The rungs with 32-bit private counters launch over windows of at most this many elements per
// thread, so no block's counter can pass 2^32 before it is flushed into the 64-bit counts.
constexpr std::size_t max_per_thread = std::size_t(1) << 22;

// Launches `launch(offset, count)` over [0, n) in windows of at most `threads` x max_per_thread
// elements.
template <class Launch> void in_windows(std::size_t n, std::size_t threads, Launch&& launch) {
  const std::size_t window = threads * max_per_thread;
  for (std::size_t at = 0; at < n; at += window) launch(at, std::min(window, n - at));
}

}  // namespace pplab::detail::histogram_cuda
