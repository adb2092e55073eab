#pragma once
// What the register-strip rungs (c06, c07) share around their arithmetic: the input tile with its
// halo staged into shared memory, and a thread's strip of outputs stored. Both were counted in the
// SASS as costing more instructions than the filter itself (bench/results/
// h100-2026-11-27-convolution-c06-c07-sass-ncu.txt): a division into row and column and a 64-bit
// address for every staged element, a 64-bit multiply for every stored output. With the two below
// (H100, bench/results/h100-2026-11-27-convolution-staging-6471ce1.txt): c06 at 7 x 7 0.280 ->
// 0.246 ms, at 15 x 15 0.881 -> 0.786 ms; c07 at 15 x 15 separable 0.329 -> 0.279 ms.
#include "convolution/cuda/conv_cuda.cuh"

namespace pplab::detail::gpu_conv {

// The h x w input tile whose first element is (y, x) into `in` (row-major, w wide), thread `tid`
// of `threads` taking elements tid, tid + threads, ... of it. Every load is issued before the
// first store, so a thread has all its loads in flight at once (one at a time, a warp would wait
// a memory latency per element and the SM would hold too few bytes in flight to reach the
// bandwidth). The element's column is stepped from the thread's first one (threads % w columns
// and threads / w rows at a time, with a carry) rather than divided out of its index, and a tile
// wholly inside the image is read through one pointer stepped the same way; a tile on the image's
// edge reads each element through `read`.
template <class T, int h, int w, int threads>
__device__ __forceinline__ void stage_tile(const image<T>& f, T* in, int y, int x, int tid) {
  constexpr int per_thread = (h * w + threads - 1) / threads;
  constexpr int down = threads / w, across = threads % w;
  // Element u of every thread lies in the tile when (u + 1) x threads <= h x w: only the last
  // ones need the test.
  const auto in_tile = [&](int u) {
    return (u + 1) * threads <= h * w || tid + u * threads < h * w;
  };
  T staged[per_thread];
  int ly = tid / w, lx = tid % w;  // the one division
  if (y >= 0 && y + h <= f.rows && x >= 0 && x + w <= f.cols) {
    // In bytes: a step is one 64-bit add, with no scaling by the element's size.
    const std::ptrdiff_t ld = std::ptrdiff_t(f.ld_in * sizeof(T));
    const std::ptrdiff_t step = down * ld + across * std::ptrdiff_t(sizeof(T));
    const std::ptrdiff_t step_wrapped = step + ld - w * std::ptrdiff_t(sizeof(T));
    const char* p =
        reinterpret_cast<const char*>(f.in + std::size_t(y + ly) * f.ld_in + std::size_t(x + lx));
#pragma unroll
    for (int u = 0; u < per_thread; ++u) {
      if (in_tile(u)) staged[u] = *reinterpret_cast<const T*>(p);
      const bool wraps = lx >= w - across;  // the next element is a row further down
      p += wraps ? step_wrapped : step;
      lx += wraps ? across - w : across;
    }
  } else {
#pragma unroll
    for (int u = 0; u < per_thread; ++u) {
      if (in_tile(u)) staged[u] = read(f, y + ly, x + lx);
      lx += across, ly += down;
      if (lx >= w) lx -= w, ++ly;
    }
  }
#pragma unroll
  for (int u = 0; u < per_thread; ++u)
    if (in_tile(u)) in[tid + u * threads] = staged[u];
}

// A thread's S outputs down column x from row y into the image's output (those inside it), the
// address stepped by a row at a time.
template <class T, int S>
__device__ __forceinline__ void store_strip(const image<T>& f, const T (&acc)[S], int y, int x) {
  T* o = f.out + std::size_t(y) * f.ld_out + std::size_t(x);
  const int left = f.rows - y;
#pragma unroll
  for (int s = 0; s < S; ++s, o += f.ld_out)
    if (s < left) *o = acc[s];
}

}  // namespace pplab::detail::gpu_conv
