// reduce/moments_in_blocks: var, std and the nan moments (nanmean, nanvar, nanstd) in fixed
// blocks of 4096 elements, whatever the threads: each block takes the textbook two passes while
// it sits in L1 (its mean, then the squared deviations from it; nanmean one pass of count and
// sum), each pass in 32 independent double accumulators, and the blocks' (count, mean, squared
// deviations) triples are merged in block order by the combine of every rung (Chan, Golub and
// LeVeque): the answer depends on n alone. cpu r05 shares the blocks among its threads, seq r04
// walks them in turn. A NaN adds nothing to either pass and is not counted (a select the compiler
// vectorizes), so a nan op's block triple is that of its numbers.
// Why blocks and two passes: a triple merged an element at a time (seq r01, cpu r02) rounds the
// running mean at every element, and at a mean far from the spread those roundings reach the
// squared deviations: at a mean of 1e9 and a spread of 1, seq r01's variance of 100001 values was
// 1.1e-7 off the exact one (numpy.var: 1.6e-14); two passes over a block put the mean's error
// into the deviations once, squared.
// Thirty-two accumulators: eight doubles fill one AVX-512 register, and one register's adds wait
// each on the one before (4 cycles): four registers keep the adder busy. With eight lanes a pass
// ran at a third of the memory's pace on two cores, and nanmean took three passes (7.97 ms for
// 2^25 f32 against nansum's 2.04 ms).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "reduce/reduce_common.hpp"

namespace pplab::detail::moments_blocks {

constexpr std::size_t block = 4096;
constexpr std::size_t lanes = 32;

// Sums f(x[i]) over the block in `lanes` accumulators (element i into lane i % lanes), added in
// lane order.
template <class T, class F> double lane_sum(const T* x, std::size_t len, F f) {
  double acc[lanes] = {};
  std::size_t i = 0;
  for (; i + lanes <= len; i += lanes)
    for (std::size_t j = 0; j < lanes; ++j) acc[j] += f(x[i + j]);
  for (; i < len; ++i) acc[i % lanes] += f(x[i]);
  double s = 0;
  for (double a : acc) s += a;
  return s;
}

// A block's count of numbers and their mean less `shift`, in one pass (the count in integer
// lanes: a block's 4096 elements fit). Floats only (number_mask reads a float's bits).
template <class T> moments block_count_and_mean(const T* x, std::size_t len, double shift) {
  double acc[lanes] = {};
  std::int32_t count[lanes] = {};
  std::size_t i = 0;
  for (; i + lanes <= len; i += lanes)
    for (std::size_t j = 0; j < lanes; ++j) {
      acc[j] += number_or(double(x[i + j]) - shift, 0.0);
      count[j] += std::int32_t(number_mask(x[i + j]) & 1);
    }
  for (; i < len; ++i) {
    acc[i % lanes] += number_or(double(x[i]) - shift, 0.0);
    count[i % lanes] += std::int32_t(number_mask(x[i]) & 1);
  }
  double s = 0;
  std::int32_t c = 0;
  for (std::size_t j = 0; j < lanes; ++j) s += acc[j], c += count[j];
  if (c == 0) return {};
  return {double(c), s / double(c), 0.0};
}

// A block's triple of its values less `shift` (the same squared deviations; the mean less shift).
template <class T, bool skip_nan> moments block_moments(const T* x, std::size_t len, double shift) {
  if constexpr (skip_nan) {  // NaN masked out by its bits (reduce_common.hpp): no branches
    const moments counted = block_count_and_mean(x, len, shift);
    if (counted.n == 0) return {};
    const double mean = counted.mean;
    const double m2 = lane_sum(x, len, [mean, shift](T v) {
      const double d = number_or((double(v) - shift) - mean, 0.0);
      return d * d;
    });
    return {counted.n, mean, m2};
  }
  const double mean = lane_sum(x, len, [shift](T v) { return double(v) - shift; }) / double(len);
  const double m2 = lane_sum(x, len, [mean, shift](T v) {
    const double d = (double(v) - shift) - mean;
    return d * d;
  });
  return {double(len), mean, m2};
}

// The blocks take their values less the shift of reduce_common.hpp (shift_for): near the mean,
// it keeps the blocks' means near zero, so merging them rounds at the spread's scale, not the
// mean's: at a mean of 1e9 and a spread of 1 the blocks' means rounded at 1e9 had left the
// variance 1.2e-9 off the exact one (with the shift: as numpy.var's two passes over the whole
// array).
// The triple of x's n elements: its blocks' triples, each block's taken by `for_blocks(count, f)`
// calling f(b) for every block b (in any order, on any threads), merged in block order.
template <class T, bool skip_nan, bool mean_only, class ForBlocks>
moments in_blocks(const T* x, std::size_t n, ForBlocks for_blocks) {
  const std::size_t blocks = (n + block - 1) / block;
  const double shift = shift_for<T, op::var>(x, n);
  std::vector<moments> part(blocks);
  for_blocks(blocks, [&](std::size_t b) {
    const std::size_t first = b * block;
    const std::size_t len = std::min(block, n - first);
    if constexpr (mean_only) part[b] = block_count_and_mean(x + first, len, shift);
    else part[b] = block_moments<T, skip_nan>(x + first, len, shift);
  });
  moments whole;
  for (const moments& m : part) whole = combine<double, op::var>(whole, m);
  return shifted_back<T, op::var>(whole, shift);
}

// A moments rung's run: the call's triple into c.out, its blocks walked by for_blocks.
template <class ForBlocks> void run_in_blocks(const reduce_call& c, ForBlocks for_blocks) {
  visit_dtype(c.p.type, [&](auto tag) {
    using T = decltype(tag);
    const auto* x = static_cast<const T*>(c.in);
    constexpr bool is_float = std::is_floating_point_v<T>;
    moments& m = *reinterpret_cast<moments*>(c.out);
    if (is_float && c.p.what == op::nanmean)
      m = in_blocks<T, is_float, is_float>(x, c.p.n, for_blocks);
    else if (is_float && skips_nan(c.p.what))
      m = in_blocks<T, is_float, false>(x, c.p.n, for_blocks);
    else m = in_blocks<T, false, false>(x, c.p.n, for_blocks);
  });
}

}  // namespace pplab::detail::moments_blocks
