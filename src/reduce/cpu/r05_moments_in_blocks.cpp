// reduce/cpu/r05_moments_in_blocks: var and std at the memory's pace, the same bits whatever the
// thread count. r02 merges every element into a running (count, mean, squared deviations) triple:
// a division per element, each waiting for the one before. Here the data is cut into blocks of
// 4096 elements, fixed whatever the threads, and each block takes the textbook two passes while
// it sits in L1: its mean, then the squared deviations from it, each pass in eight independent
// double accumulators (the compiler keeps them in vector registers; no division per element).
// The threads share the blocks; the blocks' triples are then merged in block order by the same
// combine as every rung (Chan, Golub and LeVeque), so the answer depends on n alone.
// nanmean, nanvar and nanstd: a NaN adds nothing to either pass and is not counted (a select the
// compiler vectorizes), so a block's triple is that of its numbers. nanmean needs no squared
// deviations: its count and sum are taken in one pass, at nansum's pace (nanvar's first pass too).
// Thirty-two accumulators: eight doubles fill one AVX-512 register, and one register's adds wait
// each on the one before (4 cycles): four registers keep the adder busy. With eight lanes a pass
// ran at a third of the memory's pace on two cores, and nanmean took three passes (7.97 ms for
// 2^25 f32 against nansum's 2.04 ms).
#include <omp.h>

#include <algorithm>
#include <vector>

#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_cpu {
namespace {

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

// A block's count of numbers and their mean, in one pass (the count in integer lanes: a block's
// 4096 elements fit).
template <class T> moments block_count_and_mean(const T* x, std::size_t len) {
  double acc[lanes] = {};
  std::int32_t count[lanes] = {};
  std::size_t i = 0;
  for (; i + lanes <= len; i += lanes)
    for (std::size_t j = 0; j < lanes; ++j) {
      acc[j] += double(number_or(x[i + j], T(0)));
      count[j] += std::int32_t(number_mask(x[i + j]) & 1);
    }
  for (; i < len; ++i) {
    acc[i % lanes] += double(number_or(x[i], T(0)));
    count[i % lanes] += std::int32_t(number_mask(x[i]) & 1);
  }
  double s = 0;
  std::int32_t c = 0;
  for (std::size_t j = 0; j < lanes; ++j) s += acc[j], c += count[j];
  if (c == 0) return {};
  return {double(c), s / double(c), 0.0};
}

template <class T, bool skip_nan> moments block_moments(const T* x, std::size_t len) {
  if constexpr (skip_nan) {  // NaN masked out by its bits (reduce_common.hpp): no branches
    const moments counted = block_count_and_mean(x, len);
    if (counted.n == 0) return {};
    const double mean = counted.mean;
    const double m2 = lane_sum(x, len, [mean](T v) {
      const double d = number_or(double(v) - mean, 0.0);
      return d * d;
    });
    return {counted.n, mean, m2};
  }
  const double mean = lane_sum(x, len, [](T v) { return double(v); }) / double(len);
  const double m2 =
      lane_sum(x, len, [mean](T v) { return (double(v) - mean) * (double(v) - mean); });
  return {double(len), mean, m2};
}

template <class T, bool skip_nan, bool mean_only> moments in_blocks(const T* x, std::size_t n) {
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<moments> part(blocks);
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b) {
    const std::size_t first = std::size_t(b) * block;
    const std::size_t len = std::min(block, n - first);
    if constexpr (mean_only)
      part[std::size_t(b)] = block_count_and_mean(x + first, len);
    else
      part[std::size_t(b)] = block_moments<T, skip_nan>(x + first, len);
  }
  moments whole;
  for (const moments& m : part) whole = combine<double, op::var>(whole, m);
  return whole;
}

void run(const reduce_call& c) {
  visit_dtype(c.p.type, [&](auto tag) {
    using T = decltype(tag);
    const auto* x = static_cast<const T*>(c.in);
    constexpr bool is_float = std::is_floating_point_v<T>;
    moments& m = *reinterpret_cast<moments*>(c.out);
    if (is_float && c.p.what == op::nanmean)
      m = in_blocks<T, is_float, is_float>(x, c.p.n);
    else if (is_float && skips_nan(c.p.what))
      m = in_blocks<T, is_float, false>(x, c.p.n);
    else
      m = in_blocks<T, false, false>(x, c.p.n);
  });
}

}  // namespace

extern const reduce_rung r05_moments_in_blocks{
    .info = {.step = 5,
             .summary = "var and std: fixed blocks of 4096 in two passes each (nanmean one), merged in block "
                        "order: the same bits for any thread count"},
    .can_run = moments_problems,
    .run = run,
};

}  // namespace pplab::detail::reduce_cpu
