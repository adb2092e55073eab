// reduce/cpu/r05_moments_in_blocks: var and std at the memory's pace, the same bits whatever the
// thread count. r02 merges every element into a running (count, mean, squared deviations) triple:
// a division per element, each waiting for the one before. Here the data is cut into blocks of
// 4096 elements, fixed whatever the threads, and each block takes the textbook two passes while
// it sits in L1: its mean, then the squared deviations from it, each pass in eight independent
// double accumulators (the compiler keeps them in vector registers; no division per element).
// The threads share the blocks; the blocks' triples are then merged in block order by the same
// combine as every rung (Chan, Golub and LeVeque), so the answer depends on n alone.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_cpu {
namespace {

constexpr std::size_t block = 4096;
constexpr std::size_t lanes = 8;

// Sums f(x[i]) over the block in `lanes` accumulators (element i into lane i % lanes), added in
// lane order.
template <class T, class F> double lane_sum(const T* x, std::size_t len, F f) {
  double acc[lanes] = {};
  std::size_t i = 0;
  for (; i + lanes <= len; i += lanes)
    for (std::size_t j = 0; j < lanes; ++j) acc[j] += f(double(x[i + j]));
  for (; i < len; ++i) acc[i % lanes] += f(double(x[i]));
  double s = 0;
  for (double a : acc) s += a;
  return s;
}

template <class T> moments block_moments(const T* x, std::size_t len) {
  const double mean = lane_sum(x, len, [](double v) { return v; }) / double(len);
  const double m2 = lane_sum(x, len, [mean](double v) { return (v - mean) * (v - mean); });
  return {double(len), mean, m2};
}

template <class T> moments in_blocks(const T* x, std::size_t n) {
  const std::size_t blocks = (n + block - 1) / block;
  std::vector<moments> part(blocks);
#pragma omp parallel for schedule(static) if (blocks > 1)
  for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b) {
    const std::size_t first = std::size_t(b) * block;
    part[std::size_t(b)] = block_moments(x + first, std::min(block, n - first));
  }
  moments whole;
  for (const moments& m : part) whole = combine<double, op::var>(whole, m);
  return whole;
}

void run(const reduce_call& c) {
  visit_dtype(c.p.type, [&](auto tag) {
    using T = decltype(tag);
    *reinterpret_cast<moments*>(c.out) = in_blocks(static_cast<const T*>(c.in), c.p.n);
  });
}

}  // namespace

extern const reduce_rung r05_moments_in_blocks{
    .info = {.step = 5,
             .summary = "var and std: fixed blocks of 4096 in two passes each, merged in block "
                        "order: the same bits for any thread count"},
    .can_run = moments_problems,
    .run = run,
};

}  // namespace pplab::detail::reduce_cpu
