#pragma once
// Histogram: counting values into even bins, with values outside the range and NaN counted apart.
//
// - 8- and 16-bit integers default to their natural 256 / 65536 bins over the type's range;
// - other dtypes default to 10 bins (as numpy.histogram) over [min, max] of the data;
// - bins are [lo, hi) with bin i = [edge(i), edge(i+1)), edge(i) = lo + i*(hi-lo)/bins, and a
//   value equal to an edge always lands in the bin that edge opens; with closed_last the last
//   bin is [edge(bins-1), hi], as numpy.histogram (a range inferred from the data always is);
// - counts are 64-bit; values below lo, above hi (or equal to hi with a half-open last bin) and
//   NaN are counted in underflow, overflow and nan: nothing is dropped silently.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <string>
#include <vector>

#include "backend.hpp"
#include "dtype.hpp"
#include "error.hpp"

namespace pplab {

inline constexpr std::size_t max_bins = std::size_t(1) << 24;

struct histogram_options {
  std::size_t bins = 0;          // 0: natural bins for 8/16-bit integers, else 10
  std::optional<double> lo, hi;  // both or neither; none: the type's range or the data's
  bool closed_last = false;      // numpy.histogram's closed last bin
};

struct histogram_result {
  double lo = 0, hi = 0;
  bool closed_last = false;
  std::vector<std::uint64_t> counts;  // one per bin
  std::uint64_t underflow = 0, overflow = 0, nan = 0;
  std::string rung;  // the id of the rung that counted (`pplab list histogram`)

  std::size_t bins() const noexcept { return counts.size(); }
  double edge(std::size_t i) const noexcept;  // as numpy.linspace(lo, hi, bins + 1)[i]
  std::uint64_t total() const noexcept;       // every element, outliers and NaN included
};

// `how` may name the rung to run (pplab/backend.hpp); the result says which ran.
histogram_result histogram(backend where, dtype t, const void* data, std::size_t n,
                           const histogram_options& options = {}, const rung_choice& how = {});

template <class Tag, std::ranges::contiguous_range R>
histogram_result histogram(Tag where, const R& data, const histogram_options& options = {}) {
  using T = std::remove_cv_t<std::ranges::range_value_t<R>>;
  return histogram(backend(where), dtype_of<T>(), std::ranges::data(data), std::ranges::size(data),
                   options);
}

}  // namespace pplab
