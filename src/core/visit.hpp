#pragma once
// The one place a run-time (dtype, op) of a reduction becomes types, for host rungs, GPU rungs
// and the staging code alike: f(T{}, op_tag<O>{}) with T the element type and O the operator.
// A mean is a sum divided at the end (the caller divides): of floats, visited as the double sum;
// of integers, as op::mean, whose accumulator is 128 bits wide (reduce_common.hpp).
#include <type_traits>

#include "pplab/dtype.hpp"
#include "pplab/ops.hpp"

// Host and device: the binners and operators are compiled for both sides by nvcc.
#ifdef __CUDACC__
#define PPLAB_HD __host__ __device__
#else
#define PPLAB_HD
#endif

namespace pplab::detail {

// a * b + c rounded twice, as written, on both sides: the host is built with -ffp-contract=off,
// but nvcc fuses a multiply and an add into one FMA unless told otherwise, and a histogram edge
// must be numpy's separately rounded i * step + lo to the last bit. F is float or double.
template <class F> PPLAB_HD inline F mul_add_rounded(F a, F b, F c) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(F) == 4) return __fadd_rn(__fmul_rn(a, b), c);
  else return __dadd_rn(__dmul_rn(a, b), c);
#else
  return a * b + c;
#endif
}

// a * b rounded once, never fused into a later add by nvcc (whose contraction would change the
// rounding an error-free transformation depends on).
template <class F> PPLAB_HD inline F mul_rounded(F a, F b) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(F) == 4) return __fmul_rn(a, b);
  else return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

template <class T, class F> decltype(auto) visit_op(op o, F&& f) {
  switch (o) {
  case op::product:
    return f(op_tag<op::product>{});
  case op::min:
    return f(op_tag<op::min>{});
  case op::max:
    return f(op_tag<op::max>{});
  case op::mean:
    if constexpr (!std::is_floating_point_v<T>) return f(op_tag<op::mean>{});
    [[fallthrough]];
  default:
    return f(op_tag<op::sum>{});
  }
}

template <class F> decltype(auto) visit_reduce(dtype t, op o, F&& f) {
  return visit_dtype(t, [&](auto tag) -> decltype(auto) {
    return visit_op<decltype(tag)>(o, [&](auto otag) -> decltype(auto) { return f(tag, otag); });
  });
}

}  // namespace pplab::detail
