#pragma once
// numpy.histogram2d's first step: each point's bin, x's bin times y's bin count plus y's, or
// `outside` (x_bins x y_bins) for a point outside either axis's edges or NaN in either, as a
// 32-bit slot; the histogram's rungs then count the slots (src/histogram/two_d.cpp), or on the
// GPU the kernel that finds them counts them. Each axis is binned as an array of edges
// (edge_lookup_binner, binning.hpp), on the host or on the GPU.
#include <cstddef>
#include <cstdint>

#include "pplab/dtype.hpp"

namespace pplab::detail {

// The edges of one axis and their lookup table (edge_lookup_binner's), in the memory of the
// backend that bins.
struct axis_edges {
  const double* edges;    // bins + 1
  const unsigned* table;  // edge_lookup_binner::cells_for(bins) + 1
  std::size_t bins;
};

// Host memory, on this thread (threads = false) or all the cpu backend's threads.
void bin_points_2d_host(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                        axis_edges ay, std::uint32_t* slots, bool threads);
// Device memory (x, y, the edges, the tables and the slots), on the GPU's current stream; the
// cuda module's (src/histogram/cuda/points_2d.cu), through its table.
void bin_points_2d_device(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                          axis_edges ay, std::uint32_t* slots, void* stream);
// The same points counted in the kernel that finds their bins, none written: counts has
// x_bins x y_bins + 1 entries (the bins, then the points outside), overwritten. False, and
// nothing done, where both axes and a 16-bit counter per entry do not fit a block's shared
// memory (src/histogram/cuda/points_2d.cu).
bool count_points_2d_device(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                            axis_edges ay, std::uint64_t* counts, void* stream);

}  // namespace pplab::detail
