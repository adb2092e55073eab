#pragma once
// What the GPU rungs for weights and arrays of edges share (h13, h14): the dispatch from the
// call's dtype to a rung's kernels with either an even-bin binner (histogram_cuda.cuh's choice)
// or, for an array of edges, `edges_to_load`, which each block turns into an edge_array_binner
// over its own copy of the edges in shared memory (`bound`): the binary search then reads shared
// memory, not L1 and L2.
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {

// The edges, in global memory, that a block copies into its shared memory.
struct edges_to_load {
  const double* e;
  std::size_t bins;
};

// The shared-memory bytes a block needs for the binner's edges (none for even bins).
template <class Bin> std::size_t edge_bytes(const Bin&) { return 0; }
inline std::size_t edge_bytes(const edges_to_load& b) { return (b.bins + 1) * sizeof(double); }
inline std::size_t edge_bytes(const histogram_problem& p) {
  return p.edge_array ? (p.bins + 1) * sizeof(double) : 0;
}

// edge_lookup_binner's table on the GPU (binning.hpp): first[k] for k = 0..cells, one thread each.
__global__ inline void edge_lookup_table_built(const double* e, std::size_t bins, unsigned cells,
                                               unsigned* first) {
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k <= cells) first[k] = edge_lookup_binner::entry(e, bins, cells, k);
}
inline void edge_lookup_table_built(const double* e, std::size_t bins, unsigned* first,
                                    cudaStream_t s) {
  const unsigned cells = edge_lookup_binner::cells_for(bins);
  edge_lookup_table_built<<<(cells + 256) / 256, 256, 0, s>>>(e, bins, cells, first);
  PPLAB_CUDA_LAUNCHED();
}

// The binner a kernel uses: an even-bin binner as it is; edges copied into `room` (the block's
// shared memory, edge_bytes of it) by the block's threads. The caller syncs before binning.
template <class Bin> __device__ Bin bound(const Bin& b, double*) { return b; }
__device__ inline edge_array_binner bound(const edges_to_load& b, double* room) {
  for (std::size_t i = threadIdx.x; i <= b.bins; i += blockDim.x) room[i] = b.e[i];
  return edge_array_binner{room, b.bins};
}

// The slots zeroed on the stream, then Impl::template run<T>(x, n, binner, call, stream) for every
// dtype (these rungs are the API's only ones for weights and arrays of edges, so an int16 image
// must find one), the binner even bins' (integers into bins one wide: unit_width_binner) or
// edges_to_load (EvenBins false: a rung for arrays of edges alone, whose kernels for even bins
// are not compiled).
template <class Impl, bool EvenBins = true> void dispatch_any_bins(const histogram_call& c) {
  if constexpr (EvenBins) {
    if (!c.p.edge_array && !unit_width_binner::usable(c.p)) {
      dispatch<Impl, dtypes::all>(c);
      return;
    }
  }
  const auto s = static_cast<cudaStream_t>(c.stream);
  PPLAB_CUDA(cudaMemsetAsync(c.counts, 0, slots(c.p) * sizeof(count_t), s));
  if (c.p.n == 0) return;
  visit_dtype(c.p.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(c.in);
    if constexpr (EvenBins && std::is_integral_v<T>)  // numpy.bincount's bins
      if (!c.p.edge_array) return Impl::template run<T>(x, c.p.n, unit_width_binner(c.p), c, s);
    if (c.p.edge_array) Impl::template run<T>(x, c.p.n, edges_to_load{c.edges, c.p.bins}, c, s);
  });
}

}  // namespace pplab::detail::histogram_cuda
