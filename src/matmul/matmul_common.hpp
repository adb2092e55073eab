#pragma once
// What the matmul rungs share: dispatch to float or double, and the beta rule.
#include <algorithm>

#include "matmul/rung.hpp"

namespace pplab::detail {

template <class T> struct gemm {
  std::size_t m, n, k;
  T alpha, beta;
  const T* a;  // (m, k), row stride lda
  std::size_t lda;
  const T* b;  // (k, n), row stride ldb
  std::size_t ldb;
  T* c;  // (m, n), row stride ldc
  std::size_t ldc;
  std::size_t stride_a = 0, stride_b = 0, stride_c = 0;  // a stack's (matmul_call)
};

// The call as a gemm of its type T.
template <class T> gemm<T> typed(const matmul_call& c) {
  return {c.p.m,      c.p.n,
          c.p.k,      T(c.alpha),
          T(c.beta),  static_cast<const T*>(c.a),
          c.lda,      static_cast<const T*>(c.b),
          c.ldb,      static_cast<T*>(c.c),
          c.ldc,      c.stride_a,
          c.stride_b, c.stride_c};
}

// Calls Impl::template run<T>(gemm<T>, extra...) with the call's type.
template <class Impl, class... Extra> void dispatch_matmul(const matmul_call& c, Extra... extra) {
  auto go = [&](auto tag) {
    using T = decltype(tag);
    Impl::template run<T>(typed<T>(c), extra...);
  };
  if (c.p.type == dtype::f32) go(float{});
  else go(double{});
}

// C row = beta * C row; beta == 0 writes zeros without reading (BLAS: NaN in C must not spread).
template <class T> inline void scale_row(T* row, std::size_t n, T beta) {
  if (beta == T(0)) std::fill_n(row, n, T(0));
  else if (beta != T(1))
    for (std::size_t j = 0; j < n; ++j) row[j] *= beta;
}

// f32 or f64, and one product: what every rung but the stack rungs runs.
inline bool one_float_product(const matmul_problem& p) {
  return (p.type == dtype::f32 || p.type == dtype::f64) && p.batch == 1;
}

}  // namespace pplab::detail
