#pragma once
// What the register-strip rungs (c06, c07) share around their arithmetic: the input tile with its
// halo staged into shared memory, and a thread's strip of outputs stored. Both were counted in the
// SASS as costing more instructions than the filter itself (bench/results/
// h100-2026-11-27-convolution-c06-c07-sass-ncu.txt): a division into row and column and a 64-bit
// address for every staged element, a 64-bit multiply for every stored output. With the two below
// (H100, bench/results/h100-2026-11-27-convolution-staging-6471ce1.txt): c06 at 7 x 7 0.280 ->
// 0.246 ms, at 15 x 15 0.881 -> 0.786 ms; c07 at 15 x 15 separable 0.329 -> 0.279 ms.
#include <cstdint>

#include "convolution/cuda/conv_cuda.cuh"
#include "core/cuda/vector_access.cuh"

namespace pplab::detail::convolution_cuda {

// A tile's staged columns start `lead` columns left of its first output: the mask's radius r
// rounded up to a multiple of 4, so that on an image whose rows are 16-byte aligned (any cudaMalloc
// of 8192 columns) the first staged column is too, and the tile is read in 16-byte loads. They end
// r right of its last output, the count rounded up to a multiple of 4. A thread reads its taps
// lead - r columns further right than it would from a tile that began at the halo.
constexpr int lead(int r) { return (r + 3) / 4 * 4; }
constexpr int staged_width(int tile, int r) { return (tile + lead(r) + r + 3) / 4 * 4; }

// Whether thread tid's unit u (its place tid + u x threads) lies in a tile of `count` units: always
// when (u + 1) x threads <= count, so only the last ones need the test.
template <int count, int threads> __device__ __forceinline__ bool unit_in_tile(int tid, int u) {
  return (u + 1) * threads <= count || tid + u * threads < count;
}

// The h x units tile of U at p (bytes, rows ld bytes apart), wholly inside the image, into `in`
// (row-major), thread `tid` of `threads` taking units tid, tid + threads, ... of it. Every load
// is issued before the first store, so a thread has all its loads in flight at once (one at a
// time, a warp would wait a memory latency per unit and the SM would hold too few bytes in flight
// to reach the bandwidth). The unit's column is stepped from the thread's first one (threads %
// units columns and threads / units rows at a time, with a carry) rather than divided out of its
// index, and the pointer stepped the same way: a step is one 64-bit add.
template <class U, int h, int units, int threads>
__device__ __forceinline__ void stage_inside(const char* p, std::ptrdiff_t ld, U* in, int tid) {
  constexpr int per_thread = (h * units + threads - 1) / threads;
  constexpr int down = threads / units, across = threads % units;
  const auto in_tile = [&](int u) { return unit_in_tile<h * units, threads>(tid, u); };
  U staged[per_thread];
  int lx = tid % units;  // the one division
  const std::ptrdiff_t step = down * ld + across * std::ptrdiff_t(sizeof(U));
  const std::ptrdiff_t step_wrapped = step + ld - units * std::ptrdiff_t(sizeof(U));
  p += (tid / units) * ld + lx * std::ptrdiff_t(sizeof(U));
#pragma unroll
  for (int u = 0; u < per_thread; ++u) {
    if (in_tile(u)) staged[u] = *reinterpret_cast<const U*>(p);
    const bool wraps = lx >= units - across;  // the next unit is a row further down
    p += wraps ? step_wrapped : step;
    lx += wraps ? across - units : across;
  }
#pragma unroll
  for (int u = 0; u < per_thread; ++u)
    if (in_tile(u)) in[tid + u * threads] = staged[u];
}

// The h x w input tile whose first element is (y, x) into `in` (row-major, w wide, 16-byte
// aligned), thread `tid` of `threads` staging its share. A tile wholly inside the image is read
// through a stepped pointer (stage_inside): in 16-byte pieces where the rows allow it (w a multiple
// of 4, the tile's first element and the row pitch 16-byte aligned), which takes 4 times fewer
// loads, stores and steps than one element at a time; a tile on the image's edge reads each
// element through `read`, its place stepped (tile_walk).
template <class T, int h, int w, int threads>
__device__ __forceinline__ void stage_tile(const image<T>& f, T* in, int y, int x, int tid) {
  if (y >= 0 && y + h <= f.rows && x >= 0 && x + w <= f.cols) {
    const T* first = f.in + std::size_t(y) * f.ld_in + std::size_t(x);
    const std::ptrdiff_t ld = std::ptrdiff_t(f.ld_in * sizeof(T));
    const char* p = reinterpret_cast<const char*>(first);
    if constexpr (w % 4 == 0) {
      if (reinterpret_cast<std::uintptr_t>(first) % 16 == 0 && ld % 16 == 0)
        return stage_inside<vec16_t<T>, h, w* int(sizeof(T)) / 16, threads>(
            p, ld, reinterpret_cast<vec16_t<T>*>(in), tid);
    }
    return stage_inside<T, h, w, threads>(p, ld, in, tid);
  }
  constexpr int per_thread = (h * w + threads - 1) / threads;
  const auto in_tile = [&](int u) { return unit_in_tile<h * w, threads>(tid, u); };
  T staged[per_thread];
  tile_walk at(tid, w, threads);
#pragma unroll
  for (int u = 0; u < per_thread; ++u, at.step())
    if (in_tile(u)) staged[u] = read(f, y + at.row, x + at.col);
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

}  // namespace pplab::detail::convolution_cuda
