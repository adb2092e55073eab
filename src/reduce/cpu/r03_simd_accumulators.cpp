// reduce/cpu/r03_simd_accumulators: several independent accumulators per thread, laid out as
// SIMD lanes. The sequential loop's one dependency chain becomes `lanes` chains the compiler
// keeps in vector registers, so adds overlap and the loop runs at memory speed.
// The input is cut into fixed blocks whatever the thread count; each block's lanes are combined
// pairwise, then the block partials pairwise in index order: the same bits on every run with
// any number of threads, and a float error that grows with the block size and log2(n), not n.
// argmin and argmax find each block's extreme with the same lanes, then its first index only in
// blocks that beat the thread's best so far. The nan ops: nansum and nanprod lift a NaN to 0 or 1
// in the lanes (a select the compiler vectorizes); nanmin and nanmax are min's and max's lanes,
// whose compare already keeps the lane where the element is NaN, with a note of whether any
// element was a number (a block of NaN alone answers NaN). What limits it now: DRAM read
// bandwidth.
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): f32 sum of
// 2^28, 24.3 GB/s, 95% of read bandwidth.
#include <omp.h>

#include <vector>

#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_cpu {
namespace {

constexpr std::size_t block = 4096;

// Combine without the NaN test, for the vector lanes; NaN for min/max is tracked apart.
template <class T, op O> inline acc_t<T, O> lane_combine(acc_t<T, O> a, acc_t<T, O> b) {
  if constexpr (O == op::min) return b < a ? b : a;
  else if constexpr (O == op::max) return b > a ? b : a;
  else return combine<T, O>(a, b);
}

template <class T, op O> acc_t<T, O> reduce_block(const T* x, std::size_t n) {
  if constexpr (O == op::count_nonzero) {
    // A block's counts in lanes of x's own width (the compare's mask subtracted, in the vector
    // code), so the compare and the count share one register's lanes for every dtype: 64-bit
    // lanes for bytes counted u8 at 6.6 GB/s. 64 lanes take at most 64 of a block's 4096
    // elements each, which any lane width holds.
    static_assert(block / 64 <= 255);
    using U = std::conditional_t<
        sizeof(T) == 1, std::uint8_t,
        std::conditional_t<sizeof(T) == 2, std::uint16_t,
                           std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
    constexpr std::size_t lanes = 64;
    U acc[lanes] = {};
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes)
      for (std::size_t j = 0; j < lanes; ++j) acc[j] = U(acc[j] + U(x[i + j] != T(0)));
    std::int64_t count = 0;
    for (; i < n; ++i) count += x[i] != T(0);
    for (std::size_t j = 0; j < lanes; ++j) count += acc[j];
    return count;
  } else if constexpr (O == op::nanmin || O == op::nanmax) {
    constexpr op P = plain_of(O);
    using A = acc_t<T, P>;
    constexpr std::size_t lanes = 128 / sizeof(A);
    A acc[lanes];
    for (A& a : acc) a = identity<T, P>();
    unsigned number = 0;
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes)
      for (std::size_t j = 0; j < lanes; ++j) {
        acc[j] = lane_combine<T, P>(acc[j], x[i + j]);
        number |= unsigned(number_mask(x[i + j]) & 1);
      }
    for (; i < n; ++i) {
      acc[0] = lane_combine<T, P>(acc[0], x[i]);
      number |= unsigned(number_mask(x[i]) & 1);
    }
    for (std::size_t width = lanes / 2; width > 0; width /= 2)
      for (std::size_t j = 0; j < width; ++j) acc[j] = lane_combine<T, P>(acc[j], acc[j + width]);
    return number ? acc[0] : identity<T, O>();
  }
  using A = acc_t<T, O>;
  if constexpr (std::is_integral_v<A> && (O == op::sum || O == op::nansum)) {
    // An integer sum is associative: one accumulator, which the compiler splits into vector
    // lanes itself, widening each element as it loads it (the lanes below took 1.28x as long for
    // i32 on the 2-core EPYC, AVX-512: 2^24 values 1.17 against r02's 0.91 ms).
    A sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += A(x[i]);
    return sum;
  }
  constexpr std::size_t lanes = 128 / sizeof(A);  // four 256-bit registers of accumulators
  A acc[lanes];
  for (A& a : acc) a = identity<T, O>();
  unsigned nan = 0;
  std::size_t i = 0;
  // nansum's and nanprod's NaN made their identity by its bits: a select the compiler vectorizes
  const auto lifted = [](T v) {
    if constexpr (O == op::nansum || O == op::nanprod) return A(number_or(v, T(identity<T, O>())));
    else return A(v);
  };
  for (; i + lanes <= n; i += lanes)
    for (std::size_t j = 0; j < lanes; ++j) {
      acc[j] = lane_combine<T, O>(acc[j], lifted(x[i + j]));
      if constexpr ((O == op::min || O == op::max) && std::is_floating_point_v<T>)
        nan |= unsigned(x[i + j] != x[i + j]);
    }
  for (; i < n; ++i) acc[0] = combine<T, O>(acc[0], lift<T, O>(x[i], i));
  for (std::size_t width = lanes / 2; width > 0; width /= 2)
    for (std::size_t j = 0; j < width; ++j) acc[j] = combine<T, O>(acc[j], acc[j + width]);
  if constexpr (std::is_floating_point_v<A>)
    if (nan) return std::numeric_limits<A>::quiet_NaN();
  return acc[0];
}

// argmin and argmax at the pace of min and max: a block's extreme value by the lanes above, and
// only where it beats what this thread has found so far (in its blocks before, so with a smaller
// index) a second pass over the block, still in cache, for the first index holding it (the first
// NaN, if the block has one). The pairs' order is total: the threads' answers meet in any order.
// The first j < n with x[j] equal to m (or NaN, when m is): 32 elements at a time compared in
// vector registers (no early exit inside, so the compiler vectorizes it), then the one found.
template <class T> std::size_t first_equal(const T* x, std::size_t n, T m) {
  constexpr std::size_t k = 32;
  std::size_t j = 0;
  if (m != m) {
    for (; j + k <= n; j += k) {
      unsigned any = 0;
      for (std::size_t i = 0; i < k; ++i) any |= unsigned(x[j + i] != x[j + i]);
      if (any) break;
    }
    while (x[j] == x[j]) ++j;
    return j;
  }
  for (; j + k <= n; j += k) {
    unsigned any = 0;
    for (std::size_t i = 0; i < k; ++i) any |= unsigned(x[j + i] == m);
    if (any) break;
  }
  while (x[j] != m) ++j;
  return j;
}

template <class T, op O> acc_t<T, O> arg_blocks(const T* x, std::size_t n) {
  using A = acc_t<T, O>;
  // nanargmin's and nanargmax's block extreme leaves NaN out: NaN only for a block of NaN alone,
  // which holds no candidate.
  constexpr op V = plain_of(O) == op::argmin ? (skips_nan(O) ? op::nanmin : op::min)
                                             : (skips_nan(O) ? op::nanmax : op::max);
  const std::size_t blocks = (n + block - 1) / block;
  // Blocks b0 .. b1 - 1 in order, into `mine`.
  const auto scan = [&](std::size_t b, A& mine) {
    const std::size_t begin = b * block, len = std::min(block, n - begin);
    const T* xb = x + begin;
    const T m = reduce_block<T, V>(xb, len);
    if (skips_nan(O) && m != m) return;
    const A lower_bound{m, std::int64_t(begin)};  // m's index in the block is at least begin
    if (combine<T, O>(mine, lower_bound).index == mine.index) return;
    const std::size_t j = first_equal(xb, len, m);
    mine = {xb[j], std::int64_t(begin + j)};
  };
  A best = identity<T, O>();
  if (blocks <= 1 || omp_in_parallel()) {  // one block, or a row of reduce_rows' threads
    for (std::size_t b = 0; b < blocks; ++b) scan(b, best);
    return best;
  }
#pragma omp parallel
  {
    A mine = identity<T, O>();
#pragma omp for schedule(static)
    for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b) scan(std::size_t(b), mine);
#pragma omp critical
    best = combine<T, O>(best, mine);
  }
  return best;
}

// Sums, products, min and max: each block's lanes, then the block partials pairwise in order.
// A row of reduce_rows' threads (inside a parallel region) and an input of a few blocks take
// their blocks in a plain loop and their partials on the stack: a nested parallel region and a
// heap vector for each 8192-float row cost about as much as reading it. On the 2-core EPYC
// (bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its last sections): the sum
// along axis 1 of 8192^2 f32 8.8-9.9 -> 7.2-7.5 ms; a sum of 2^13 f32 4.2 -> 2.8 us a call. The
// partials combine in the same tree either way: the same bits.
constexpr std::size_t few_blocks = 8, partials_on_stack = 32;
template <class T, op O> acc_t<T, O> value_blocks(const T* x, std::size_t n) {
  using A = acc_t<T, O>;
  const std::size_t blocks = (n + block - 1) / block;
  if (blocks <= 1) return reduce_block<T, O>(x, n);
  A on_stack[partials_on_stack];
  std::vector<A> on_heap;
  if (blocks > partials_on_stack) on_heap.resize(blocks);
  A* const partial = blocks > partials_on_stack ? on_heap.data() : on_stack;
  const auto one = [&](std::size_t b) {
    const std::size_t begin = b * block;
    partial[b] = reduce_block<T, O>(x + begin, std::min(block, n - begin));
  };
  if (blocks < few_blocks || omp_in_parallel()) {
    for (std::size_t b = 0; b < blocks; ++b) one(b);
  } else {
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b) one(std::size_t(b));
  }
  for (std::size_t width = 1; width < blocks; width *= 2)
    for (std::size_t j = 0; j + width < blocks; j += 2 * width)
      partial[j] = combine<T, O>(partial[j], partial[j + width]);
  return partial[0];
}

struct simd_accumulators {
  static constexpr bool args = true;
  static constexpr bool nans = true;
  template <class T, op O> static acc_t<T, O> run(const T* x, std::size_t n) {
    if constexpr (is_arg(O)) return arg_blocks<T, O>(x, n);
    else return value_blocks<T, O>(x, n);
  }
};

}  // namespace

extern const reduce_rung r03_simd_accumulators{
    .info = {.step = 3,
             .summary = "independent SIMD accumulators over fixed blocks: memory speed, same bits"},
    .can_run = any_problem_or_nan,
    .run = dispatch_reduce<simd_accumulators>,
};

}  // namespace pplab::detail::reduce_cpu
