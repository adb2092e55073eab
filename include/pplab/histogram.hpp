#pragma once
// Histogram: counting values into even bins, with values outside the range and NaN counted apart.
//
// - 8- and 16-bit integers default to their natural 256 / 65536 bins over the type's range;
// - other dtypes default to 10 bins (as numpy.histogram) over [min, max] of the data;
// - bins are [lo, hi) with bin i = [edge(i), edge(i+1)), edge(i) = lo + i*(hi-lo)/bins, and a
//   value equal to an edge always lands in the bin that edge opens; with closed_last the last
//   bin is [edge(bins-1), hi], as numpy.histogram (a range inferred from the data always is);
// - float32 data: by default its edges are computed in double, as for every other dtype, so a
//   value lands in the same bin as float32 and as float64. numpy.histogram computes float32
//   data's edges as float32 numbers and compares in float32; edge_rule::numpy follows it bit for
//   bit (docs/choices.md says why it is not the default);
// - counts are 64-bit; values below lo, above hi (or equal to hi with a half-open last bin) and
//   NaN are counted in underflow, overflow and nan: nothing is dropped silently;
// - bin_edges, when given, are the bins themselves, as numpy.histogram's array of edges: bin i is
//   [e[i], e[i+1]), the last bin closed, values compared with the edges in double (as NumPy
//   compares data with float64 edges); the edges must not decrease, nor hold NaN or infinity;
// - weights, when given (float32 or float64, one per value, where the data are), make each bin
//   the sum of its values' weights instead of their count: the sums, not the counts, are the
//   answer (histogram_result::sums), each to within the accumulation's rounding of NumPy's
//   (which sums in double too), and the same bits again when the call is run again.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <vector>

#include "backend.hpp"
#include "dtype.hpp"
#include "error.hpp"

namespace pplab {

inline constexpr std::size_t max_bins = std::size_t(1) << 24;

// How the edges of float32 data are computed (data of every other dtype: in double, as NumPy's).
enum class edge_rule : std::uint8_t {
  f64,             // lo + i * ((hi - lo) / bins) in double, and compared in double (the default)
  numpy,           // numpy.histogram's rules (NumPy 2): the range inferred as [min, max] for
                   // every dtype (bytes too), 10 bins by default, and float32 edges f32_rounded
                   // for a range given, f32_arithmetic for a range inferred from the data
  numpy1,          // the same as NumPy 1.x: float32 edges f32_rounded for any range
  f32_rounded,     // float32 edges, each the double edge rounded: NumPy 1.x, and NumPy 2 for a
                   // range given as Python floats; values compared in float32
  f32_arithmetic,  // float32 edges from float32 arithmetic, i * step + lo with step =
                   // (hi - lo) / bins, each operation rounded to float32: NumPy 2 for a range
                   // of float32 numbers (the data's minimum and maximum)
};

struct histogram_options {
  std::size_t bins = 0;              // 0: natural bins for 8/16-bit integers, else 10
  std::optional<double> lo, hi;      // both or neither; none: the type's range or the data's
  bool closed_last = false;          // numpy.histogram's closed last bin
  edge_rule edges = edge_rule::f64;  // the arithmetic of float32 data's edges
  // The bins' edges (bins + 1 of them, in the host's memory): bins, lo, hi and closed_last are
  // then theirs (the last bin closed), and `edges` is not used.
  std::span<const double> bin_edges;
  // One weight per value, of weight_type (f32 or f64), in the memory the data are in.
  const void* weights = nullptr;
  dtype weight_type = dtype::f64;
};

struct histogram_result {
  double lo = 0, hi = 0;
  bool closed_last = false;
  edge_rule edges = edge_rule::f64;   // f64, f32_rounded or f32_arithmetic
  std::vector<std::uint64_t> counts;  // one per bin
  std::uint64_t underflow = 0, overflow = 0, nan = 0;
  std::string rung;  // the id of the rung that counted (`pplab list histogram`)
  // With weights: each bin's sum of weights (counts is then empty), and those of the values
  // below, above and NaN.
  bool weighted = false;
  std::vector<double> sums;
  double underflow_sum = 0, overflow_sum = 0, nan_sum = 0;
  std::vector<double> bin_edges;  // the edges given (options.bin_edges), else empty

  std::size_t bin_count = 0;  // bins (counts is empty where they stay on the GPU: device.hpp)
  std::size_t bins() const noexcept { return bin_count; }
  // As numpy.linspace(lo, hi, bins + 1)[i], in the arithmetic `edges` says (a float32 edge
  // given as the double that holds it).
  double edge(std::size_t i) const noexcept;
  // Every edge, edge(0) to edge(bins()), into out (bins() + 1 values; float: the float32 edges
  // as they are, others rounded): one pass, for many bins.
  void edges_into(double* out) const noexcept;
  void edges_into(float* out) const noexcept;
  std::uint64_t total() const noexcept;  // every element, outliers and NaN included
  // numpy.histogram's density=True: each bin's count (or sum) divided by the bin's width and by
  // the total of the bins (outliers not counted), in double; NaN where that total is 0.
  std::vector<double> density() const;
};

// `how` may name the rung to run (pplab/backend.hpp); the result says which ran.
histogram_result histogram(backend where, dtype t, const void* data, std::size_t n,
                           const histogram_options& options = {}, const rung_choice& how = {});

// numpy.histogram2d: points (x[i], y[i]) into the bins of two arrays of edges, each axis binned
// as histogram's bin_edges (bin i is [e[i], e[i+1]), the last bin closed, compared in double).
// A point outside either axis's edges, or NaN in either, is counted apart (`outside`).
// even_edges gives numpy.linspace(lo, hi, bins + 1)'s edges for even bins.
struct histogram2d_options {
  std::span<const double> x_edges, y_edges;  // in the host's memory; x_bins x y_bins < 2^24
  const void* weights = nullptr;             // one per point, where the points are
  dtype weight_type = dtype::f64;            // f32 or f64
};
struct histogram2d_result {
  std::size_t x_bins = 0, y_bins = 0;
  std::vector<double> x_edges, y_edges;
  // x_bins x y_bins, row-major (x the row): counts, or with weights each bin's sum of weights.
  bool weighted = false;
  std::vector<std::uint64_t> counts;
  std::vector<double> sums;
  std::uint64_t outside = 0;  // points outside the edges of either axis, or NaN in either
  double outside_sum = 0;     // their weights' sum
  std::string rung;           // the rung that counted the points' bins
  // numpy.histogram2d's density=True: each bin over its area and the total, in double.
  std::vector<double> density() const;
};
std::vector<double> even_edges(double lo, double hi, std::size_t bins);
histogram2d_result histogram2d(backend where, dtype t, const void* x, const void* y, std::size_t n,
                               const histogram2d_options& options, const rung_choice& how = {});

// numpy.histogramdd: points of D coordinates (1 <= D <= 32) into the bins of D arrays of edges,
// each axis binned as histogram2d's; the bins in C order (axis 0 the slowest), their product
// under 2^24. The coordinates: axes[d][i * stride] is point i's on axis d (stride 1: one array
// per axis; stride D: the rows of an (n, D) array, axes[d] its column d's first element).
struct histogramdd_options {
  std::vector<std::span<const double>> edges;  // one per axis, in the host's memory
  const void* weights = nullptr;               // one per point, where the points are
  dtype weight_type = dtype::f64;              // f32 or f64
};
struct histogramdd_result {
  std::vector<std::size_t> bins;           // each axis's
  std::vector<std::vector<double>> edges;  // each axis's
  bool weighted = false;
  std::vector<std::uint64_t> counts;  // the product of bins, C order
  std::vector<double> sums;           // with weights
  std::uint64_t outside = 0;          // points outside any axis's edges, or NaN in any
  double outside_sum = 0;
  std::string rung;  // the rung that counted the points' bins
  // numpy.histogramdd's density=True: each bin over its volume and the total, in double.
  std::vector<double> density() const;
};
histogramdd_result histogramdd(backend where, dtype t, std::span<const void* const> axes,
                               std::size_t stride, std::size_t n,
                               const histogramdd_options& options, const rung_choice& how = {});

template <class Tag, std::ranges::contiguous_range R>
histogram_result histogram(Tag where, const R& data, const histogram_options& options = {}) {
  using T = std::remove_cv_t<std::ranges::range_value_t<R>>;
  return histogram(backend(where), dtype_of<T>(), std::ranges::data(data), std::ranges::size(data),
                   options);
}

}  // namespace pplab
