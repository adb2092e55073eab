// numpy.histogramdd on the GPU: each point's slot over its D axes (points_nd.hpp), a thread a
// point, each axis's edges and lookup table read through the caches (a few KiB each, shared by
// every point), the slots then counted by the 1-D histogram's rungs. Two axes have their own
// kernels, with the edges in shared memory and the points counted where found (points_2d.cu).
#include <cuda_runtime.h>

#include "core/cuda/toolbox.cuh"
#include "core/visit.hpp"
#include "histogram/binning.hpp"
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

}  // namespace pplab::detail
