// numpy.histogramdd on the GPU: each point's slot over its D axes (points_nd.hpp).
//   - counted (without weights, where every axis and a 16-bit counter a slot fit a block's
//     shared memory: 16^3 RGB bins take 8 KiB of counters): each block copies every axis's edges
//     and lookup table into shared memory, and counts the slots it finds there, two counters to
//     a word (packed_counters.cuh), as histogram2d's counted kernel does; no slot reaches memory.
//   - slotted (else): a thread a point writes its slot, the edges and tables read through the
//     caches; the 1-D histogram's rungs then count the slots.
// Measured (H200, 2^26 RGB u8 pixels into 16^3 bins through Python on CuPy arrays,
// bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, its last two sections): the slots
// written, then counted by a 1-D rung, 1.815 ms (6.57x cupy.histogramdd); counted where found
// 1.040-1.050 ms (10.5x), where histogram2d's counted kernel takes 2^26 f32 points in 0.43 ms:
// its float32 points are binned by float cell records, a u8 axis here in double.
#include <cuda_runtime.h>

#include <new>

#include "core/cuda/toolbox.cuh"
#include "core/visit.hpp"
#include "histogram/binning.hpp"
#include "histogram/cuda/packed_counters.cuh"
#include "histogram/points_nd.hpp"

namespace pplab::detail {
namespace {

template <class T>
__global__ void slotted_nd(nd_points p, std::size_t n, std::uint32_t outside,
                           std::uint32_t* __restrict__ slots) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t slot = 0;
    bool inside = true;
    for (unsigned d = 0; d < p.count; ++d) {
      const axis_edges& a = p.axes[d];
      const T v = static_cast<const T*>(p.data[d])[i * p.stride];
      const std::size_t b = edge_lookup_binner(a.edges, a.bins, a.table)(v);
      inside = inside && b < a.bins;
      slot = inside ? slot * std::uint32_t(a.bins) + std::uint32_t(b) : 0;
    }
    slots[i] = inside ? slot : outside;
  }
}

PPLAB_HD inline std::size_t round8(std::size_t bytes) { return (bytes + 7) / 8 * 8; }

// The shared bytes of one axis: its edges, then its table, to a multiple of 8.
PPLAB_HD inline std::size_t axis_bytes(std::size_t bins) {
  return round8((bins + 1) * 8 + (std::size_t(edge_lookup_binner::cells_for(bins)) + 1) * 4);
}

// Where the counters start: the axes' binners, then each axis's edges and table.
std::size_t counters_at(const nd_points& p) {
  std::size_t at = round8(p.count * sizeof(edge_lookup_binner));
  for (unsigned d = 0; d < p.count; ++d) at += axis_bytes(p.axes[d].bins);
  return at;
}

template <class T>
__global__ void __launch_bounds__(1024)
    counted_nd(nd_points p, std::size_t n, std::size_t counters_at,
               histogram_cuda::count_t* counts) {
  extern __shared__ unsigned long long room[];
  auto* base = reinterpret_cast<unsigned char*>(room);
  auto* binners = reinterpret_cast<edge_lookup_binner*>(base);
  // Every axis's edges and table, one after another past the binners.
  unsigned char* at = base + round8(p.count * sizeof(edge_lookup_binner));
  for (unsigned d = 0; d < p.count; ++d) {
    const axis_edges& a = p.axes[d];
    auto* e = reinterpret_cast<double*>(at);
    auto* t = reinterpret_cast<unsigned*>(e + a.bins + 1);
    const unsigned cells = edge_lookup_binner::cells_for(a.bins);
    for (std::size_t i = threadIdx.x; i <= a.bins; i += blockDim.x) e[i] = a.edges[i];
    for (unsigned k = threadIdx.x; k <= cells; k += blockDim.x) t[k] = a.table[k];
    at += axis_bytes(a.bins);
  }
  auto* words = reinterpret_cast<unsigned*>(base + counters_at);
  const std::uint32_t outside = p.outside();
  histogram_cuda::packed_zeroed(words, outside + 1);
  __syncthreads();
  if (threadIdx.x < p.count) {  // each axis's binner over its shared edges and table
    unsigned char* mine = base + round8(p.count * sizeof(edge_lookup_binner));
    for (unsigned d = 0; d < threadIdx.x; ++d) mine += axis_bytes(p.axes[d].bins);
    const std::size_t bins = p.axes[threadIdx.x].bins;
    const auto* e = reinterpret_cast<const double*>(mine);
    new (&binners[threadIdx.x])
        edge_lookup_binner(e, bins, reinterpret_cast<const unsigned*>(e + bins + 1));
  }
  __syncthreads();
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t slot = 0;
    bool inside = true;
    for (unsigned d = 0; d < p.count; ++d) {
      const std::size_t bins = p.axes[d].bins;
      const std::size_t b = binners[d](static_cast<const T*>(p.data[d])[i * p.stride]);
      inside = inside && b < bins;
      slot = inside ? slot * std::uint32_t(bins) + std::uint32_t(b) : 0;
    }
    histogram_cuda::packed_add_one(words, inside ? slot : outside, counts);
  }
  __syncthreads();
  histogram_cuda::packed_flushed(words, outside + 1, counts);
}

}  // namespace

void bin_points_nd_here(dtype t, const nd_points& p, std::size_t n, std::uint32_t* slots,
                        void* stream) {
  if (n == 0) return;
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    const unsigned grid = resident_blocks(slotted_nd<T>, 256, 0);
    slotted_nd<T><<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(p, n, p.outside(), slots);
    PPLAB_CUDA_LAUNCHED();
  });
}

bool count_points_nd_here(dtype t, const nd_points& p, std::size_t n, std::uint64_t* counts,
                          void* stream) {
  const std::size_t nslots = std::size_t(p.outside()) + 1, at = counters_at(p),
                    shared = at + histogram_cuda::packed_counter_bytes(nslots);
  if (shared > max_shared_per_block() || p.count > 1024) return false;
  const auto s = static_cast<cudaStream_t>(stream);
  PPLAB_CUDA(cudaMemsetAsync(counts, 0, nslots * sizeof(std::uint64_t), s));
  if (n == 0) return true;
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    allow_shared(counted_nd<T>, shared);
    const unsigned grid = resident_blocks(counted_nd<T>, 1024, shared);
    counted_nd<T>
        <<<grid, 1024, shared, s>>>(p, n, at, reinterpret_cast<histogram_cuda::count_t*>(counts));
    PPLAB_CUDA_LAUNCHED();
  });
  return true;
}

}  // namespace pplab::detail
