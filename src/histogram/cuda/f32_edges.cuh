#pragma once
// An array of edges binned for float32 data in float arithmetic, with NumPy's answers (which
// compare each float32 value with the float64 edges in double). For a float v and a double e,
// v >= e exactly when v >= up(e), the smallest float at or above e: no float lies between e and
// up(e). So the edges rounded up to float (__double2float_ru) give every comparison of the
// double search, at half the bytes per edge and in float arithmetic. Only the closed last edge
// needs more: v == e[bins] holds when v == up(e[bins]) and e[bins] is itself a float.
// The search is edge_lookup_binner's (binning.hpp): the value's even cell, computed in float,
// gives the bins that cell meets as one pair (first, last) read with one 8-byte load; a range
// check against the float edges catches a cell computed a rounding off, which then takes the
// whole search.
#include <cstddef>

#include "histogram/cuda/any_bins.cuh"

namespace pplab::detail::histogram_cuda {

// The bins cell k meets: first[k] .. first[k + 1] of edge_lookup_binner's table.
struct cell_bins {
  unsigned first, last;
};

struct f32_edge_lookup_binner {
  const float* e;         // bins + 1 edges, each up(edge)
  const cell_bins* cell;  // cells of them
  std::size_t bins;
  float lo, hi, scale;  // e[0], e[bins], cells / (e[bins] - e[0]) (the cell's estimate only)
  unsigned cells;
  bool last_exact;  // the last edge is a float: a value equal to it is in the last bin

  __device__ std::size_t operator()(float v) const {
    if (v != v) return bins + 2;
    if (v < lo) return bins;
    if (v >= hi) return v == hi && last_exact ? bins - 1 : bins + 1;
    const float u = (v - lo) * scale;  // in [0, cells] but for rounding
    const unsigned c = u < float(cells) ? unsigned(u) : cells - 1;
    const cell_bins r = cell[c];
    if (!(e[r.first] <= v && v < e[r.last + 1]))
      return edge_array_binner::last_at_or_below(e, bins + 1, v);
    return r.first + edge_array_binner::last_at_or_below(e + r.first, r.last - r.first + 1, v);
  }
};

// The shared bytes of the binner's copy: the cells' pairs, then the edges.
__host__ __device__ inline std::size_t f32_edges_shared_bytes(std::size_t bins) {
  return std::size_t(edge_lookup_binner::cells_for(bins)) * sizeof(cell_bins) +
         (bins + 1) * sizeof(float);
}

// The binner over a block's copy at `room` (f32_edges_shared_bytes of it) made from the double
// edges and edge_lookup_binner's table (cells + 1 entries) in global memory: the edges rounded up
// and the pairs made by the block's threads as they copy them. The caller syncs before binning.
__device__ inline f32_edge_lookup_binner bound_from_doubles(const double* edges,
                                                            const unsigned* first, std::size_t bins,
                                                            unsigned char* room) {
  const unsigned cells = edge_lookup_binner::cells_for(bins);
  auto* cell = reinterpret_cast<cell_bins*>(room);
  auto* e = reinterpret_cast<float*>(cell + cells);
  for (unsigned k = threadIdx.x; k < cells; k += blockDim.x) cell[k] = {first[k], first[k + 1]};
  for (std::size_t i = threadIdx.x; i <= bins; i += blockDim.x) e[i] = __double2float_ru(edges[i]);
  const float lo = __double2float_ru(edges[0]), hi = __double2float_ru(edges[bins]),
              width = hi - lo;
  return {e,     cell,
          bins,  lo,
          hi,    width > 0 && width <= 3.4e38f ? float(cells) / width : 0.0f,
          cells, double(hi) == edges[bins]};
}

}  // namespace pplab::detail::histogram_cuda
