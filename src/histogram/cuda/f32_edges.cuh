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

// The same bins from one 8-byte record per cell, made for a span a sixteenth of a cell wider on
// each side than the cell: the first bin the span meets and, where it meets two, the edge between
// them (+inf where it meets one). The cell's estimate (v - lo) * scale is off by at most 2^-7 of
// a cell (two float roundings of at most 2^-24 each, and scale's own of 2^-23, on a position
// below 2^16 cells), so a value always lies in its estimated cell's span: its bin is `first`, or
// `first + 1` when v >= the edge, with no check and one shared load. A span that meets three
// bins or more (edges closer than a cell, repeated edges) is marked, and holds how many: its
// values take the binary search over those bins' edges (a warp takes it if any of its values
// does, so it must stay short).
struct cell_record {
  float edge;      // between bins first and first + 1; or with several_bins, the count's bits
  unsigned first;  // the span's first bin, or'ed with several_bins where it meets three or more
};
constexpr unsigned several_bins = 0x80000000u;

struct f32_cell_record_binner {
  const float* e;  // bins + 1 edges, each up(edge)
  const cell_record* record;
  std::size_t bins;
  float lo, hi, scale;  // scale 0: a width or scale past float's range; one cell, all searched
  unsigned cells;
  bool last_exact;

  __device__ std::size_t operator()(float v) const {
    if (v != v) return bins + 2;
    if (v < lo) return bins;
    if (v >= hi) return v == hi && last_exact ? bins - 1 : bins + 1;
    const float u = (v - lo) * scale;
    const unsigned c = u < float(cells) ? unsigned(u) : cells - 1;
    const cell_record r = record[c];
    if (!(r.first & several_bins)) return r.first + unsigned(v >= r.edge);
    const unsigned first = r.first & ~several_bins;
    return first + edge_array_binner::last_at_or_below(e + first, __float_as_uint(r.edge), v);
  }
};

// The records' cells: 16 a bin up to 1024 bins (128 KiB of records), 8 a bin past that (2^16 at
// most, the bound above), so that few spans meet three bins. Edges at sorted normal samples, with
// normal data: 8 a bin put 1.5-1.7% of the cells' spans there and 3.0-3.7% of the values (the
// crowded edges are where the values are), so most warps of 32 lanes held a value to search at
// each step and took the search; 16 a bin put 0.9-1.1% of the values there (three samples of
// 1025 edges, computed on the host). h18 at 1024 such edges, 2^28 values (H200): 0.645 ms at 8 a
// bin (three blocks of 512 an SM), 0.454 ms at 16 (one block of 1024; bench/results/
// h200-2026-11-29-histogram-edges-weights-1a06c6b.txt, its 2026-12-01 section).
__host__ __device__ inline unsigned record_cells_for(std::size_t bins) {
  if (bins <= 1024) return unsigned(16 * bins);
  return 8 * bins < (std::size_t(1) << 16) ? unsigned(8 * bins) : 1u << 16;
}

__host__ __device__ inline std::size_t f32_records_shared_bytes(std::size_t bins) {
  return std::size_t(record_cells_for(bins)) * sizeof(cell_record) + (bins + 1) * sizeof(float);
}

// The binner over a block's copy at `room` (f32_records_shared_bytes of it) made from the double
// edges in global memory: the edges rounded up, then each cell's record from them. Every thread
// of the block calls it (it syncs once inside); the caller syncs before binning.
__device__ inline f32_cell_record_binner records_from_doubles(const double* edges, std::size_t bins,
                                                              unsigned char* room) {
  const unsigned cells = record_cells_for(bins);
  auto* record = reinterpret_cast<cell_record*>(room);
  auto* e = reinterpret_cast<float*>(record + cells);
  for (std::size_t i = threadIdx.x; i <= bins; i += blockDim.x) e[i] = __double2float_ru(edges[i]);
  const float lo = __double2float_ru(edges[0]), hi = __double2float_ru(edges[bins]),
              width = hi - lo;
  const float scale =
      width > 0 && isfinite(width) && isfinite(float(cells) / width) ? float(cells) / width : 0.0f;
  __syncthreads();
  // The last edge at or below v (0 below e[0]), v in double.
  const auto last_at_or_below = [&](double v) {
    unsigned at = 0, len = unsigned(bins + 1);
    while (len > 1) {
      const unsigned half = len / 2;
      at = double(e[at + half]) <= v ? at + half : at;
      len -= half;
    }
    return at < bins ? at : unsigned(bins - 1);
  };
  for (unsigned k = threadIdx.x; k < cells; k += blockDim.x) {
    unsigned first = 0, last = unsigned(bins - 1);
    if (scale > 0) {
      // The span of values whose estimate can fall in cell k, in double (its roundings are
      // 2^-53 of a span 2^-4 wider than it needs).
      first = last_at_or_below(double(lo) + (double(k) - 0.0625) / double(scale));
      last = last_at_or_below(double(lo) + (double(k) + 1.0625) / double(scale));
    }
    record[k] = last == first ? cell_record{INFINITY, first}
                : last == first + 1
                    ? cell_record{e[first + 1], first}
                    : cell_record{__uint_as_float(last - first + 1), first | several_bins};
  }
  return {e, record, bins, lo, hi, scale, cells, double(hi) == edges[bins]};
}

}  // namespace pplab::detail::histogram_cuda
