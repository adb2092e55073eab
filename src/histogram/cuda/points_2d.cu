// numpy.histogram2d's first step on the GPU: each point's slot from two axes of edges, each
// block holding both axes' edges and lookup tables in shared memory (points_2d.hpp).
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt, its third run;
// torch.profiler): 2^26 float32 points into 256 x 256 bins 0.46 ms, where double edges and one
// point at a time per thread took 0.66 ms (Nsight Compute, the same session).
#include <cuda_runtime.h>

#include "core/cuda/toolbox.cuh"
#include "core/visit.hpp"
#include "histogram/binning.hpp"
#include "histogram/cuda/f32_edges.cuh"
#include "histogram/points_2d.hpp"

namespace pplab::detail {
namespace {

// The shared bytes of one axis: its edges, then its table.
std::size_t axis_bytes(const axis_edges& a) {
  return (a.bins + 1) * 8 + (std::size_t(edge_lookup_binner::cells_for(a.bins)) + 1) * 4;
}

// Copies an axis into shared memory at `room`; returns its binner there.
__device__ edge_lookup_binner loaded(const axis_edges& a, unsigned char* room) {
  auto* e = reinterpret_cast<double*>(room);
  auto* t = reinterpret_cast<unsigned*>(e + a.bins + 1);
  const unsigned cells = edge_lookup_binner::cells_for(a.bins);
  for (std::size_t i = threadIdx.x; i <= a.bins; i += blockDim.x) e[i] = a.edges[i];
  for (unsigned k = threadIdx.x; k <= cells; k += blockDim.x) t[k] = a.table[k];
  return edge_lookup_binner(e, a.bins, t);
}

// Float32 points: each axis's edges rounded up to float (f32_edges.cuh: the same bins, half the
// shared bytes, float arithmetic), made by each block from the double edges and table.
__device__ histogram_cuda::f32_edge_lookup_binner loaded_f32(const axis_edges& a,
                                                             unsigned char* room) {
  return histogram_cuda::bound_from_doubles(a.edges, a.table, a.bins, room);
}

template <class T>
__global__ void slotted(const T* __restrict__ x, const T* __restrict__ y, std::size_t n,
                        axis_edges ax, axis_edges ay, std::size_t x_room, std::uint32_t* slots) {
  extern __shared__ unsigned long long room[];
  auto* base = reinterpret_cast<unsigned char*>(room);
  const auto load = [&](const axis_edges& a, unsigned char* at) {
    if constexpr (std::is_same_v<T, float>) return loaded_f32(a, at);
    else return loaded(a, at);
  };
  const auto bx = load(ax, base), by = load(ay, base + x_room);
  __syncthreads();
  const auto outside = std::uint32_t(ax.bins * ay.bins);
  histogram_cuda::for_each_pair<4>(x, y, n, [&](T vx, T vy, std::size_t i) {
    const std::size_t i_x = bx(vx), i_y = by(vy);
    slots[i] = i_x < ax.bins && i_y < ay.bins ? std::uint32_t(i_x * ay.bins + i_y) : outside;
  });
}

}  // namespace

void bin_points_2d_here(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                        axis_edges ay, std::uint32_t* slots, void* stream) {
  if (n == 0) return;
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    const auto bytes = [](const axis_edges& a) {
      return std::is_same_v<T, float> ? histogram_cuda::f32_edges_shared_bytes(a.bins)
                                      : axis_bytes(a);
    };
    const std::size_t x_room = (bytes(ax) + 7) / 8 * 8, shared = x_room + bytes(ay);
    allow_shared(slotted<T>, shared);
    const unsigned grid = resident_blocks(slotted<T>, 256, shared);
    slotted<T><<<grid, 256, shared, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(x), static_cast<const T*>(y), n, ax, ay, x_room, slots);
    PPLAB_CUDA_LAUNCHED();
  });
}

}  // namespace pplab::detail
