#pragma once
// Reduction: sum, product, min, max, mean over any dtype, and user operators.
//
// Semantics (docs/reduce.md has the long form):
// - empty input gives the operator's identity (sum 0, product 1, min +inf or the type's max,
//   max -inf or the type's lowest); the mean of nothing is an error;
// - integer sums and products accumulate in 64 bits; float sums accumulate in double over fixed
//   blocks, so a backend gives the same bits on every run whatever the thread count;
// - min and max propagate NaN: if any element is NaN the answer is NaN (as numpy.min).
#include <cstddef>
#include <cstdint>
#include <ranges>
#include <span>
#include <string>
#include <vector>

#include "backend.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "ops.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace pplab {

// A reduction's answer with its accumulator type: i64 (signed ints), u64 (unsigned), f64.
struct scalar {
  enum class kind : std::uint8_t { i64, u64, f64 };
  kind k = kind::f64;
  union {
    std::int64_t i;
    std::uint64_t u;
    double f = 0;
  };
  template <class A> static scalar of(A v) noexcept {
    scalar s;
    if constexpr (std::is_floating_point_v<A>) s.k = kind::f64, s.f = double(v);
    else if constexpr (std::is_signed_v<A>) s.k = kind::i64, s.i = std::int64_t(v);
    else s.k = kind::u64, s.u = std::uint64_t(v);
    return s;
  }
  template <class A> A as() const noexcept {
    switch (k) {
    case kind::i64:
      return A(i);
    case kind::u64:
      return A(u);
    default:
      return A(f);
    }
  }
  double to_double() const noexcept { return as<double>(); }
};

// The exact sum of n floats (f32 or f64, host memory): the real sum of the values, rounded once
// to double, to nearest with ties to even: math.fsum's answer, the same bits for any order of the
// data, any thread count and any backend. A NaN, or +inf with -inf, gives NaN; an infinity that
// of its sign; a sum past double's range +-inf; no values 0.0. Every backend: on mpi, data is
// this rank's part and every rank gets the job's answer, the same bits as one process's; nccl in
// one process of several GPUs (not a job of processes yet); docs/reduce.md. `how` may name the exact rung to run and asks which ran
// (pplab/backend.hpp).
double sum_exact(backend where, dtype t, const void* data, std::size_t n,
                 const rung_choice& how = {});
// The exact mean: the exact sum over n, rounded once. No values is an error.
double mean_exact(backend where, dtype t, const void* data, std::size_t n,
                  const rung_choice& how = {});
// Each of `rows` rows of `cols` floats (rows `ld` elements apart; 0 means cols) summed exactly
// on its own (o: sum or mean), each answer sum_exact's (mean_exact's) of that row alone: the
// exact sums of numpy.sum(x, axis=-1). The seq and cpu backends (there the rows shared among the
// threads), host memory.
void reduce_rows_exact(backend where, dtype t, const void* data, std::size_t rows,
                       std::size_t cols, std::size_t ld, op o, double* out);

// The run-time entry point: data is host memory holding n elements of type t. `how` may name the
// rung to run and asks which ran (pplab/backend.hpp).
scalar reduce(backend where, dtype t, const void* data, std::size_t n, op o,
              const rung_choice& how = {});

// Each of `rows` rows of `cols` elements (rows `ld` elements apart; 0 means cols) reduced on its
// own, as numpy.sum(x, axis=-1) reduces the last axis: out[y] is reduce(where, row y)'s answer,
// with its bits (on cpu the SIMD rung's, whatever the thread count). On seq the rows one after
// another, on cpu shared among the threads; on cuda the rows copied to the GPU and
// reduce_rows_device's answers copied back (GPU memory: call reduce_rows_device). Host memory.
// The mean of an empty row is an error, as reduce's.
void reduce_rows(backend where, dtype t, const void* data, std::size_t rows, std::size_t cols,
                 std::size_t ld, op o, scalar* out);

// One axis of a C-ordered array reduced, as numpy.sum(x, axis=k): the array seen as
// outer x rows x cols, with outer = prod(shape[:k]), rows = shape[k] (the axis reduced) and
// cols = prod(shape[k+1:]). out[o * cols + c] is reduce's answer for the `rows` elements
// data[(o * rows + y) * cols + c], y = 0 .. rows - 1, with the bits of seq's r01 loop on them
// (for var and std its element-by-element merge, less exact at a mean far from the spread than
// the blocks reduce picks for a whole array: docs/reduce.md, var and std). Each
// thread walks down the rows over a block of columns, unit stride along every row read: no copy
// or transpose of the array. Host memory (on cpu the slabs and the blocks of columns shared
// among the threads; on cuda the array copied to the GPU and reduce_axis_device's answers copied
// back); cols = 1 is reduce_rows' case. The mean over an empty axis is an error, as reduce's.
void reduce_axis(backend where, dtype t, const void* data, std::size_t outer, std::size_t rows,
                 std::size_t cols, op o, scalar* out);

// A strided view of host memory (shape and strides in elements, of any sign: NumPy's view of a
// transposed, reversed or sliced array) reduced where it lies, with no copy: whole when axis < 0
// (one answer in *out), else along that axis (one answer per element of the shape less the axis,
// in C order). argmin and argmax count indices in the view's C order, or along the axis. The
// view is walked in lines along the axis of the smallest stride, in groups combined in a fixed
// order: the same bits on every run and thread count (a float sum's bits may differ from those of
// a C-ordered copy, which adds in another order). Host backends only.
void reduce_view(backend where, dtype t, const void* data, std::span<const std::size_t> shape,
                 std::span<const std::ptrdiff_t> strides, int axis, op o, scalar* out);

template <class Tag, std::ranges::contiguous_range R, op O>
auto reduce(Tag where, const R& data, op_tag<O>) {
  using T = std::remove_cv_t<std::ranges::range_value_t<R>>;
  const scalar s =
      reduce(backend(where), dtype_of<T>(), std::ranges::data(data), std::ranges::size(data), O);
  return s.template as<reduce_result_t<T, O>>();
}

// User operators on the host backends. The cpu version is the reduction notes' partition and
// summarize: fixed chunks reduced in parallel, then the chunk partials combined in order, so the
// result does not depend on the thread count even for operators that are only nearly associative.
template <class T, class C> T reduce(seq_t, std::span<const T> data, const custom_op<T, C>& o) {
  T acc = o.identity;
  for (const T& x : data) acc = o.combine(acc, x);
  return acc;
}

template <class T, class C> T reduce(cpu_t, std::span<const T> data, const custom_op<T, C>& o) {
  constexpr std::size_t chunk = 1 << 14;
  const std::size_t chunks = (data.size() + chunk - 1) / chunk;
  std::vector<T> partial(chunks, o.identity);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t c = 0; c < std::ptrdiff_t(chunks); ++c) {
    const std::size_t begin = std::size_t(c) * chunk;
    const std::size_t end = std::min(begin + chunk, data.size());
    T acc = o.identity;
    for (std::size_t i = begin; i < end; ++i) acc = o.combine(acc, data[i]);
    partial[std::size_t(c)] = acc;
  }
  T acc = o.identity;
  for (const T& p : partial) acc = o.combine(acc, p);
  return acc;
}

template <class Tag, std::ranges::contiguous_range R, class T, class C>
T reduce(Tag where, const R& data, const custom_op<T, C>& o) {
  return reduce(where, std::span<const T>(std::ranges::data(data), std::ranges::size(data)), o);
}

}  // namespace pplab
