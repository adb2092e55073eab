#pragma once
// What host and device code share: PPLAB_HD for functions compiled for both sides (binners,
// operators), and arithmetic rounded the same way on both.
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

}  // namespace pplab::detail
