// scipy.ndimage.correlate of any rank on the GPU, in SciPy's arithmetic (pplab/device.hpp,
// correlate_in_scipys_order_device; the host's is src/convolution/scipy_correlate.cpp, which
// says the order): a thread four neighbouring answers on the last axis, the kept weights in C
// order, each product and sum rounded on its own (__dmul_rn, __dadd_rn: never fused into an
// FMA), from 0 as SciPy's. Answers whose windows lie inside the array read each weight's input
// at a fixed offset from their window's first element; near the edges each axis's index goes
// through the mode's table for that axis (made once on the host: a lookup where the mode's
// arithmetic, 64-bit remainders among it, would cost a warp more than its interior answers). The
// input is the output's type or double (the caller converts any other first). Arrays of rank 2
// or more whose tile fits go to the tiled kernel (scipy_correlate_tiled.cu) instead.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "convolution/boundary.hpp"
#include "convolution/scipy_order.hpp"
#include "core/cuda/check.cuh"
#include "core/cuda/launch.cuh"
#include "pplab/error.hpp"

namespace pplab::detail {
namespace {

using geometry = scipy_correlate_geometry;

// Answers taken together by one thread, neighbours on the last axis: each weight's value and
// offset read once for all of them.
constexpr int per_thread = 4;
constexpr std::size_t shared_taps = 1024;

// I: the index type, 32 bits where the array has fewer than 2^31 elements (the divisions that
// find an answer's indices cost a fraction of 64-bit ones).
template <class T, class U, class I>
__global__ void __launch_bounds__(256)
    correlate_in_scipys_order(const T* __restrict__ in, U* __restrict__ out, geometry g,
                              const double* __restrict__ w, const std::int64_t* __restrict__ offset,
                              const std::int32_t* __restrict__ index,
                              const std::int32_t* __restrict__ map) {
  // The weights and their offsets in shared memory, read by every thread at each tap (up to
  // shared_taps of them; more are read through the cache).
  __shared__ double shared_w[shared_taps];
  __shared__ I shared_offset[shared_taps];
  const bool staged = g.taps <= shared_taps;
  if (staged)
    for (std::size_t t = threadIdx.x; t < g.taps; t += blockDim.x) {
      shared_w[t] = w[t];
      shared_offset[t] = I(offset[t]);
    }
  __syncthreads();
  const int last = g.rank - 1;
  const I n = I(g.shape[last]), groups_per_line = (n + per_thread - 1) / per_thread;
  const I groups = I(g.count / g.shape[last]) * groups_per_line;
  const I step = I(gridDim.x) * blockDim.x;
  for (I group = I(blockIdx.x) * blockDim.x + threadIdx.x; group < groups; group += step) {
    const I line = group / groups_per_line, x0 = (group % groups_per_line) * per_thread;
    const int count = n - x0 < I(per_thread) ? int(n - x0) : per_thread;
    // The line's index on each axis before the last; whether the answers' windows lie inside.
    std::int64_t i[scipy_correlate_max_rank];
    I rest = line, base = 0, stride = n;
    bool inside = std::int64_t(x0) - g.before[last] >= 0 &&
                  std::int64_t(x0) + count - 1 - g.before[last] + g.side[last] <= std::int64_t(n);
    for (int a = last - 1; a >= 0; --a) {
      const I side = I(g.shape[a]);
      i[a] = std::int64_t(rest % side);
      rest /= side;
      const std::int64_t first = i[a] - g.before[a];
      inside = inside && first >= 0 && first + g.side[a] <= std::int64_t(side);
      base += I(first < 0 ? 0 : first) * stride;
      stride *= side;
    }
    double acc[per_thread] = {};
    if (inside && staged) {
      const T* window = in + (base + x0 - I(g.before[last]));
#pragma unroll 4
      for (std::size_t t = 0; t < g.taps; ++t) {
        const double wt = shared_w[t];
        const T* x = window + shared_offset[t];
#pragma unroll
        for (int k = 0; k < per_thread; ++k)
          if (k < count) acc[k] = __dadd_rn(acc[k], __dmul_rn(wt, double(x[k])));
      }
    } else if (inside) {
      const T* window = in + (base + x0 - I(g.before[last]));
      for (std::size_t t = 0; t < g.taps; ++t) {
        const double wt = w[t];
        const T* x = window + I(offset[t]);
#pragma unroll
        for (int k = 0; k < per_thread; ++k)
          if (k < count) acc[k] = __dadd_rn(acc[k], __dmul_rn(wt, double(x[k])));
      }
    } else {
#pragma unroll
      for (int k = 0; k < per_thread; ++k) {  // unrolled: acc stays in registers
        if (k >= count) continue;
        double sum = 0.0;
        for (std::size_t t = 0; t < g.taps; ++t) {
          I from = 0;
          bool outside = false;
          for (int a = 0; a <= last; ++a) {
            const std::int64_t at = a == last ? std::int64_t(x0) + k : i[a];
            const std::int32_t q = map[g.map_at[a] + at + index[t * g.rank + a]];
            outside = outside || q < 0;
            from = from * I(g.shape[a]) + I(q < 0 ? 0 : q);
          }
          sum = __dadd_rn(sum, __dmul_rn(w[t], outside ? g.cval : double(in[from])));
        }
        acc[k] = sum;
      }
    }
    U* dst = out + (line * n + x0);
    for (int k = 0; k < count; ++k) {
      if constexpr (std::is_integral_v<U>) dst[k] = scipy_integer<U>(acc[k]);
      else dst[k] = U(acc[k]);
    }
  }
}

template <class T, class U>
void launch(const void* in, void* out, const geometry& g, const double* w,
            const std::int64_t* offset, const std::int32_t* index, const std::int32_t* map,
            cudaStream_t s) {
  const auto* x = static_cast<const T*>(in);
  auto* y = static_cast<U*>(out);
  if (g.count < (std::size_t(1) << 31)) {
    const unsigned grid = resident_blocks(correlate_in_scipys_order<T, U, std::uint32_t>, 256);
    correlate_in_scipys_order<T, U, std::uint32_t>
        <<<grid, 256, 0, s>>>(x, y, g, w, offset, index, map);
  } else {
    const unsigned grid = resident_blocks(correlate_in_scipys_order<T, U, std::uint64_t>, 256);
    correlate_in_scipys_order<T, U, std::uint64_t>
        <<<grid, 256, 0, s>>>(x, y, g, w, offset, index, map);
  }
  PPLAB_CUDA_LAUNCHED();
}

}  // namespace

bool scipy_correlate_tiled(dtype in_type, const void* in, dtype out_type, void* out,
                           const geometry& g, const double* w, const std::int32_t* index,
                           const std::int32_t* map, void* stream);  // scipy_correlate_tiled.cu

void scipy_correlate_here(dtype in_type, const void* in, dtype out_type, void* out,
                          const scipy_correlate_geometry& g, const double* device_weights,
                          const std::int64_t* device_offsets, const std::int32_t* device_indices,
                          const std::int32_t* device_map, void* stream) {
  if (g.count == 0) return;
  if (scipy_correlate_tiled(in_type, in, out_type, out, g, device_weights, device_indices,
                            device_map, stream))
    return;
  const auto s = static_cast<cudaStream_t>(stream);
  bool launched = false;
  visit_dtype(out_type, [&](auto u) {
    using U = decltype(u);
    if (in_type == out_type)
      launch<U, U>(in, out, g, device_weights, device_offsets, device_indices, device_map, s),
          launched = true;
    else if (in_type == dtype::f64)
      launch<double, U>(in, out, g, device_weights, device_offsets, device_indices, device_map, s),
          launched = true;
  });
  if (!launched)
    fail(errc::invalid_argument,
         "correlate_in_scipys_order on the GPU reads the output's type or float64, not " +
             std::string(name_of(in_type)) + " into " + std::string(name_of(out_type)));
}

}  // namespace pplab::detail
