#pragma once
// numpy.histogramdd's first step: each point's bin in C order over its D axes (((i0 x b1 + i1) x
// b2 + i2) ...), or `outside` (b0 x b1 x ... ) for a point outside any axis's edges or NaN in any,
// as a 32-bit slot; the histogram's rungs then count the slots (src/histogram/n_d.cpp). Each axis
// is binned as an array of edges (edge_lookup_binner, binning.hpp), on the host or on the GPU.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "histogram/binning.hpp"
#include "histogram/points_2d.hpp"
#include "histogram/rung.hpp"
#include "pplab/dtype.hpp"

namespace pplab::detail {

// One axis's edges (the caller's, in the host's memory) checked, and their lookup table
// (edge_lookup_binner's); `call` names the axis in the errors.
struct host_axis {
  std::span<const double> edges;
  std::vector<unsigned> table;
  std::size_t bins() const { return edges.size() - 1; }
  host_axis(std::span<const double> e, const std::string& call) : edges(e) {
    check_bin_edges(e, call);
    const unsigned cells = edge_lookup_binner::cells_for(bins());
    table.resize(cells + 1);
    for (unsigned k = 0; k <= cells; ++k)
      table[k] = edge_lookup_binner::entry(e.data(), bins(), cells, k);
  }
  axis_edges on_host() const { return {edges.data(), table.data(), bins()}; }
};

// The points and their axes, passed by value to the GPU's kernel (about 1 KiB at 32 axes).
struct nd_points {
  static constexpr unsigned max_axes = 32;
  const void* data[max_axes];  // point i's coordinate on axis d at data[d][i * stride]
  axis_edges axes[max_axes];   // in the memory of the backend that bins
  unsigned count = 0;          // D
  std::size_t stride = 1;      // 1: an array per axis; D: the rows of an (n, D) array
  PPLAB_HD std::uint32_t outside() const {
    std::size_t b = 1;
    for (unsigned d = 0; d < count; ++d) b *= axes[d].bins;
    return std::uint32_t(b);
  }
};

// The 1-D histogram of the slots as a 2-D or n-D result: its first `inside` counts (or sums)
// are the bins, and the points outside are the last slot's and the outliers' (none, but kept).
template <class Result> void slots_into(Result& out, histogram_result r, std::size_t inside) {
  out.weighted = r.weighted;
  out.rung = r.rung;
  if (r.weighted) {
    out.outside_sum = r.sums[inside] + r.underflow_sum + r.overflow_sum + r.nan_sum;
    r.sums.resize(inside);
    out.sums = std::move(r.sums);
  } else {
    out.outside = r.counts[inside] + r.underflow + r.overflow + r.nan;
    r.counts.resize(inside);
    out.counts = std::move(r.counts);
  }
}

// `entries` counts (or, weighted, sums: doubles' bits) of the cuda executor's device memory,
// copied to the host as the 1-D histogram's result of the slots that `rung` counted.
histogram_result slots_from_device(const std::uint64_t* device_counts, std::size_t entries,
                                   bool weighted, std::string rung);

// Host memory, on this thread (threads = false) or all the cpu backend's threads.
void bin_points_nd_host(dtype t, const nd_points& p, std::size_t n, std::uint32_t* slots,
                        bool threads);
// Device memory (the points, the edges, the tables and the slots), on the GPU's current stream;
// the cuda module's (src/histogram/cuda/points_nd.cu), through its table.
void bin_points_nd_device(dtype t, const nd_points& p, std::size_t n, std::uint32_t* slots,
                          void* stream);
// The same points counted in the kernel that finds their slots, none written: counts has the
// bins' product + 1 entries (the bins, then the points outside), overwritten. False, and nothing
// done, where every axis and a 16-bit counter per entry do not fit a block's shared memory.
bool count_points_nd_device(dtype t, const nd_points& p, std::size_t n, std::uint64_t* counts,
                            void* stream);

}  // namespace pplab::detail
