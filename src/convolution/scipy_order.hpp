#pragma once
// What the host's and the GPU's passes in SciPy's order share (pplab/convolution.hpp,
// correlate1d_in_scipys_order): SciPy's test of the weights' symmetry, which picks its order of
// the adds, and the conversion of an answer to an integer type.
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "core/visit.hpp"
#include "pplab/convolution.hpp"

namespace pplab::detail {

// 0: neither (the last weight's product first, then the others from the first); 1: symmetric
// (the centre's product, then each pair's sum times its weight, the outermost first); -1:
// antisymmetric (each pair's difference). NI_Correlate1D's test, on the weights as given (before
// any placement): odd lengths only, within DBL_EPSILON.
inline int scipy_symmetry(std::span<const double> w) {
  const std::size_t k = w.size(), c = k / 2;
  if (k % 2 == 0) return 0;
  constexpr double eps = std::numeric_limits<double>::epsilon();
  bool even = true, odd = true;
  for (std::size_t j = 1; j <= c; ++j) {
    even = even && std::fabs(w[c + j] - w[c - j]) <= eps;
    odd = odd && std::fabs(w[c + j] + w[c - j]) <= eps;
  }
  return even ? 1 : odd ? -1 : 0;
}

// A double as C converts it to the integer type U, where C defines it (toward zero, in range);
// elsewhere as x86's conversion through int64 gives it (modulo U's range; NaN, infinities and
// values past int64's range as int64's least value), as NumPy's astype does. uint64 takes its
// whole range, and a negative value as SciPy stores it (the negation of its magnitude's).
template <class U> PPLAB_HD U scipy_integer(double v) {
  if constexpr (std::is_same_v<U, std::uint64_t>) {
    if (v > -1.0 && v < 0x1p64) return U(v);
    if (v < 0 && v > -0x1p64) return U(0) - U(-v);
    return U(1) << 63;
  } else {
    const bool in_range = v > -0x1p63 && v < 0x1p63;
    return U(in_range ? std::int64_t(v) : std::numeric_limits<std::int64_t>::min());
  }
}

// The GPU's pass (src/convolution/cuda/scipy_order.cu, through the cuda module's table): `in` of
// the output's integer type or float64, device memory, as correlate1d_in_scipys_order's; the
// weights in device memory; queued on `stream`.
void scipy_order_pass_device(dtype in_type, const void* in, dtype out_type, void* out,
                             std::size_t outer, std::size_t n, std::size_t inner,
                             const double* device_weights, std::size_t k, long origin, int sym,
                             boundary mode, double cval, double divisor, void* stream);

}  // namespace pplab::detail
