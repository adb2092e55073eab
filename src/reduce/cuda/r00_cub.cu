// reduce/cuda/r00_cub: cub::DeviceReduce, the vendor baseline, measured beside the ladder and
// never the default. It computes the same answer as the rungs: the same accumulator type (double
// for float sums, 64-bit integers for integer sums) given as CUB's init value, and the same
// NaN-propagating min and max, so the two are timed doing the same work (argmin and argmax:
// CUB's reduction of the rungs' (value, index) pairs, so that it keeps NumPy's rules for ties and
// NaN). The answer is written
// through a transform output iterator straight into the result, with no extra launch.
// Beside it, as a reference (cub_float_sum), CUB's own float Sum as users call it.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 0.2555 ms,
// 4202 GB/s (87% of theoretical); 2^24: 0.0284 ms.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

template <class T, op O> struct to_scalar {
  std::size_t mean_n;
  __device__ scalar operator()(acc_t<T, O> v) const {
    scalar s;
    store(&s, v, mean_n);
    return s;
  }
};

// The input converted to the accumulator on the fly (an int32 sum must not wrap at 32 bits);
// for argmin and argmax, each index to the (value, index) pair of the element there.
template <class T, op O> struct widen {
  __device__ acc_t<T, O> operator()(T x) const {
    if constexpr (O == op::count_nonzero) return lift<T, O>(x, 0);  // one or zero
    else return acc_t<T, O>(x);
  }
};
template <class T, op O> struct pair_at {
  const T* in;
  __device__ acc_t<T, O> operator()(std::size_t i) const { return lift<T, O>(in[i], i); }
};

struct rung {
  static constexpr bool args = true;
  template <class T, op O>
  static void run(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                  cudaStream_t s) {
    auto result = thrust::make_transform_output_iterator(out, to_scalar<T, O>{mean_n});
    const auto reduce = [&](auto input) {
      std::size_t bytes = 0;
      PPLAB_CUDA(cub::DeviceReduce::Reduce(nullptr, bytes, input, result, n, op_combine<T, O>{},
                                           identity<T, O>(), s));
      PPLAB_CUDA(cub::DeviceReduce::Reduce(scratch, bytes, input, result, n, op_combine<T, O>{},
                                           identity<T, O>(), s));
    };
    if constexpr (is_arg(O))
      reduce(thrust::make_transform_iterator(thrust::counting_iterator<std::size_t>(0),
                                             pair_at<T, O>{in}));
    else reduce(thrust::make_transform_iterator(in, widen<T, O>{}));
  }
};

// CUB's own Sum over floats, the answer widened to the scalar the call contract wants.
}  // namespace

extern const reduce_rung r00_cub{
    .info = {.step = 0,
             .summary = "cub::DeviceReduce with the same accumulator: the vendor baseline"},
    .can_run = supports<dtypes::all, true>,
    .scratch_bytes =
        [](const reduce_problem&) {
          return std::size_t(1) << 20;  // CUB asks for a few kilobytes; 1 MiB covers any n
        },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::all>(c); },
};

}  // namespace pplab::detail::reduce_cuda
