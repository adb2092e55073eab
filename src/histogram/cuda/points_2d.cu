// numpy.histogram2d on the GPU: each point's slot from two axes of edges, each block holding
// both axes in shared memory (points_2d.hpp); the slots written for the 1-D histogram's rungs
// (slotted), or counted in the kernel that finds them (counted), two 16-bit counters a word.
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt, its fourth
// section): 2^26 float32 points into 256 x 256 bins through Python on CuPy arrays, counted where
// found with each axis's cell records: 0.459 ms at 4 cells a bin, 0.588 ms at 8 (two runs; 21.7x
// and 17.4x cupy.histogram2d), where the slots then h07 took 1.375 ms (of which this kernel
// 0.46 ms and h07's count 0.20 ms, the rest the host's part, then the counts' way back).
#include <cuda_runtime.h>

#include <string>

#include "core/cuda/toolbox.cuh"
#include "core/visit.hpp"
#include "histogram/binning.hpp"
#include "histogram/cuda/f32_edges.cuh"
#include "histogram/cuda/packed_counters.cuh"
#include "histogram/points_2d.hpp"
#include "pplab/error.hpp"

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

// Float32 points: each axis's edges rounded up to float and one record per cell
// (f32_cell_record_binner, f32_edges.cuh: the same bins, one shared load an axis for a cell that
// meets one or two bins, as every cell of even bins does), made by each block from the double
// edges. It syncs the block inside.
__device__ histogram_cuda::f32_cell_record_binner loaded_f32(const axis_edges& a,
                                                             unsigned char* room) {
  return histogram_cuda::records_from_doubles(a.edges, a.bins, room);
}

// An axis in shared memory at `room`: float32 points' cell records (loaded_f32), or the double
// edges and their table.
template <bool records> __device__ auto loaded_axis(const axis_edges& a, unsigned char* room) {
  if constexpr (records) return loaded_f32(a, room);
  else return loaded(a, room);
}

// `records`: float32 points binned by each axis's cell records, else in double.
template <class T, bool records>
__global__ void slotted(const T* __restrict__ x, const T* __restrict__ y, std::size_t n,
                        axis_edges ax, axis_edges ay, std::size_t x_room, std::uint32_t* slots) {
  extern __shared__ unsigned long long room[];
  auto* base = reinterpret_cast<unsigned char*>(room);
  const auto bx = loaded_axis<records>(ax, base), by = loaded_axis<records>(ay, base + x_room);
  __syncthreads();
  const auto outside = std::uint32_t(ax.bins * ay.bins);
  histogram_cuda::for_each_pair<4>(x, y, n, [&](T vx, T vy, std::size_t i) {
    const std::size_t i_x = bx(vx), i_y = by(vy);
    slots[i] = i_x < ax.bins && i_y < ay.bins ? std::uint32_t(i_x * ay.bins + i_y) : outside;
  });
}

// The same points counted where their slots are found: the slots never reach memory. The
// block's shared memory holds both axes, then the counters, two to a word (packed_counters.cuh),
// for the x_bins x y_bins slots and one for the points outside.
template <class T, bool records>
__global__ void __launch_bounds__(1024)
    counted(const T* __restrict__ x, const T* __restrict__ y, std::size_t n, axis_edges ax,
            axis_edges ay, std::size_t x_room, std::size_t counters_at,
            histogram_cuda::count_t* counts) {
  extern __shared__ unsigned long long room[];
  auto* base = reinterpret_cast<unsigned char*>(room);
  const auto bx = loaded_axis<records>(ax, base), by = loaded_axis<records>(ay, base + x_room);
  auto* words = reinterpret_cast<unsigned*>(base + counters_at);
  const auto outside = unsigned(ax.bins * ay.bins);
  histogram_cuda::packed_zeroed(words, outside + 1);
  __syncthreads();
  histogram_cuda::for_each_pair<4>(x, y, n, [&](T vx, T vy, std::size_t) {
    const std::size_t i_x = bx(vx), i_y = by(vy);
    histogram_cuda::packed_add_one(
        words, i_x < ax.bins && i_y < ay.bins ? unsigned(i_x * ay.bins + i_y) : outside, counts);
  });
  __syncthreads();
  histogram_cuda::packed_flushed(words, outside + 1, counts);
}

// The shared bytes of both axes (the second at x_room).
template <bool records>
std::size_t axes_bytes(const axis_edges& ax, const axis_edges& ay, std::size_t& x_room) {
  const auto bytes = [](const axis_edges& a) {
    return records ? histogram_cuda::f32_records_shared_bytes(a.bins) : axis_bytes(a);
  };
  x_room = (bytes(ax) + 7) / 8 * 8;
  return x_room + bytes(ay);
}

// Calls f(T tag, bool_constant records): float32 points take the cell records where both axes'
// records and `more` bytes fit a block's shared memory (16 cells a bin to 1024 bins: 132 bytes a
// bin; past that 8: 68 bytes), else (as every other type) the double edges and their table (24
// bytes a bin).
template <class F>
void with_binners(dtype t, const axis_edges& ax, const axis_edges& ay, std::size_t more, F&& f) {
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    std::size_t x_room = 0;
    if constexpr (std::is_same_v<T, float>)
      if ((axes_bytes<true>(ax, ay, x_room) + 7) / 8 * 8 + more <= max_shared_per_block())
        return f(tag, std::true_type{});
    f(tag, std::false_type{});
  });
}

}  // namespace

bool count_points_2d_here(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                          axis_edges ay, std::uint64_t* counts, void* stream) {
  const std::size_t nslots = ax.bins * ay.bins + 1,
                    counter_bytes = histogram_cuda::packed_counter_bytes(nslots);
  bool fits = false;
  with_binners(t, ax, ay, counter_bytes, [&](auto tag, auto records) {
    using T = decltype(tag);
    constexpr bool R = decltype(records)::value;
    std::size_t x_room = 0;
    const std::size_t counters_at = (axes_bytes<R>(ax, ay, x_room) + 7) / 8 * 8,
                      shared = counters_at + counter_bytes;
    if (shared > max_shared_per_block()) return;
    fits = true;
    const auto s = static_cast<cudaStream_t>(stream);
    PPLAB_CUDA(cudaMemsetAsync(counts, 0, nslots * sizeof(std::uint64_t), s));
    if (n == 0) return;
    allow_shared(counted<T, R>, shared);
    const unsigned grid = resident_blocks(counted<T, R>, 1024, shared);
    counted<T, R><<<grid, 1024, shared, s>>>(static_cast<const T*>(x), static_cast<const T*>(y), n,
                                             ax, ay, x_room, counters_at,
                                             reinterpret_cast<histogram_cuda::count_t*>(counts));
    PPLAB_CUDA_LAUNCHED();
  });
  return fits;
}

void bin_points_2d_here(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                        axis_edges ay, std::uint32_t* slots, void* stream) {
  if (n == 0) return;
  with_binners(t, ax, ay, 0, [&](auto tag, auto records) {
    using T = decltype(tag);
    constexpr bool R = decltype(records)::value;
    std::size_t x_room = 0;
    const std::size_t shared = axes_bytes<R>(ax, ay, x_room);
    if (shared > max_shared_per_block())
      fail(errc::invalid_argument,
           "histogram2d: " + std::to_string(ax.bins) + " x " + std::to_string(ay.bins) +
               " bins: both axes' edges (24 bytes a bin) must fit a block's shared memory (" +
               std::to_string(max_shared_per_block()) +
               " bytes) on the GPU; the host's "
               "backends take more");
    allow_shared(slotted<T, R>, shared);
    const unsigned grid = resident_blocks(slotted<T, R>, 256, shared);
    slotted<T, R><<<grid, 256, shared, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(x), static_cast<const T*>(y), n, ax, ay, x_room, slots);
    PPLAB_CUDA_LAUNCHED();
  });
}

}  // namespace pplab::detail
