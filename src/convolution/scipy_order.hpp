#pragma once
// What the host's and the GPU's passes in SciPy's order share (pplab/convolution.hpp,
// correlate1d_in_scipys_order): SciPy's test of the weights' symmetry, which picks its order of
// the adds, the host's reads of an extended line, and the conversion of an answer to an integer
// type.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "convolution/boundary.hpp"
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

// The host's reads of a line for SciPy's sums: `rows` positions of the line, first to first +
// rows - 1 (of n elements; `stride` elements from one to the next), each as its `w` neighbouring
// columns, read as doubles into e (row p at e + p * lanes); positions outside as `mode` extends
// the line (cval where it reads outside). A single column (stride 1) converts the stretch inside
// in one contiguous loop.
template <class T>
void read_extended(const T* line, std::size_t stride, std::size_t w, std::size_t lanes,
                   std::int64_t first, std::int64_t n, std::size_t rows, boundary mode, double cval,
                   double* e) {
  // The rows inside the line [inside, past) read it directly; the others as the mode says.
  const std::size_t inside = std::size_t(std::clamp<std::int64_t>(-first, 0, std::int64_t(rows)));
  const std::size_t past =
      std::size_t(std::clamp<std::int64_t>(n - first, std::int64_t(inside), std::int64_t(rows)));
  auto row = [&](std::size_t p, std::int64_t q) {
    double* dst = e + p * lanes;
    if (q < 0) {
      std::fill(dst, dst + w, cval);
      return;
    }
    const T* src = line + std::size_t(q) * stride;
    for (std::size_t c = 0; c < w; ++c) dst[c] = double(src[c]);
  };
  for (std::size_t p = 0; p < inside; ++p) row(p, boundary_index(first + std::int64_t(p), n, mode));
  if (stride == 1 && w == 1) {
    const T* src = line + (first + std::int64_t(inside));
    for (std::size_t p = inside; p < past; ++p) e[p] = double(src[p - inside]);
  } else {
    for (std::size_t p = inside; p < past; ++p) row(p, first + std::int64_t(p));
  }
  for (std::size_t p = past; p < rows; ++p)
    row(p, boundary_index(first + std::int64_t(p), n, mode));
}

// x86-64's truncating conversions (cvttsd2si): NaN and values out of the type's range give its
// least value.
PPLAB_HD inline std::int32_t x86_int32(double v) {
  return v > -2147483649.0 && v < 2147483648.0 ? std::int32_t(v)
                                               : std::numeric_limits<std::int32_t>::min();
}
PPLAB_HD inline std::int64_t x86_int64(double v) {
  return v >= -0x1p63 && v < 0x1p63 ? std::int64_t(v) : std::numeric_limits<std::int64_t>::min();
}

// C's (U)v for a double v as GCC compiles it for x86-64, where C leaves values out of range
// undefined: types narrower than 32 bits and int32 through x86_int32, uint32 and int64 through
// x86_int64 (the low bits kept); uint64 below 2^63 through x86_int64, from 2^63 as v - 2^63
// through it with the top bit flipped.
template <class U> PPLAB_HD U x86_converted(double v) {
  if constexpr (sizeof(U) < 4 || std::is_same_v<U, std::int32_t>) {
    return U(x86_int32(v));
  } else if constexpr (std::is_same_v<U, std::uint64_t>) {
    if (!(v >= 0x1p63)) return U(x86_int64(v));
    return U(x86_int64(v - 0x1p63)) ^ (U(1) << 63);
  } else {
    return U(x86_int64(v));
  }
}

// A double as SciPy's filters store it into the integer type U (CASE_FILTER_OUT and its _SAFE
// form for unsigned types, v > -1 ? (U)v : -(U)(-v)), as its x86-64 builds give it everywhere:
// toward zero, modulo U's range where the conversion's range holds it, else from that
// conversion's least value (measured against SciPy; its uint64 takes -v through int64 alone).
template <class U> PPLAB_HD U scipy_integer(double v) {
  if constexpr (std::is_signed_v<U>) {
    return x86_converted<U>(v);
  } else if constexpr (std::is_same_v<U, std::uint64_t>) {
    return v > -1.0 ? x86_converted<U>(v) : U(0) - U(x86_int64(-v));
  } else {
    return v > -1.0 ? x86_converted<U>(v) : U(U(0) - x86_converted<U>(-v));
  }
}

// The GPU's pass (src/convolution/cuda/scipy_order.cu, through the cuda module's table): `in` of
// the output's integer type or float64, device memory, as correlate1d_in_scipys_order's; the
// weights in device memory; queued on `stream`.
void scipy_order_pass_device(dtype in_type, const void* in, dtype out_type, void* out,
                             std::size_t outer, std::size_t n, std::size_t inner,
                             const double* device_weights, std::size_t k, long origin, int sym,
                             boundary mode, double cval, double divisor, void* stream);

// The GPU's scipy.ndimage.correlate of any rank (src/convolution/cuda/scipy_correlate.cu, through
// the cuda module's table): the array's geometry, and for each kept weight (in C order) its
// value, its offset in elements from an answer's window's first element, and its index on each
// axis (rank of them); and each axis's table of the mode, its entry i + j (an answer's index plus
// a weight's) the element read there, or -1 (constant mode's cval); all in device memory.
inline constexpr int scipy_correlate_max_rank = 8;
struct scipy_correlate_geometry {
  int rank;
  std::size_t shape[scipy_correlate_max_rank];
  std::int64_t before[scipy_correlate_max_rank];  // the weights' side / 2 + origin
  std::int64_t side[scipy_correlate_max_rank];    // the weights' side
  std::int64_t map_at[scipy_correlate_max_rank];  // where each axis's table starts in the map
  std::size_t count, taps;                        // the answers; the kept weights
  boundary mode;
  double cval;
};
void scipy_correlate_device(dtype in_type, const void* in, dtype out_type, void* out,
                            const scipy_correlate_geometry& g, const double* device_weights,
                            const std::int64_t* device_offsets, const std::int32_t* device_indices,
                            const std::int32_t* device_map, void* stream);

}  // namespace pplab::detail
