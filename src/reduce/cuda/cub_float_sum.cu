// reduce/cuda/cub_float_sum: cub::DeviceReduce::Sum as users call it on floats, accumulating in
// float. A reference measured beside the ladder (step -1), not a rung of it: its answer is looser
// than the API's (a float accumulator), so it is verified against a float-sized error bound
// (rung_info::float_accumulator) and never run unasked. It shows what the ladder's double
// accumulator costs against the sum most GPU code computes.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 sum n=2^28 in 0.249 ms,
// 4305 GB/s (97.1% of read bandwidth), 1.01x the speed of r00 (CUB with the double accumulator): at
// 2^28 both are bound by reading the data, and the wider accumulator costs nothing.
#include <cub/device/device_reduce.cuh>

#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

__global__ void widen_answer(const float* sum, scalar* out) { store(out, double(*sum), 0); }

bool can_run(const reduce_problem& p) { return !p.exact && p.type == dtype::f32 && p.what == op::sum; }
void run(const reduce_call& c) {
  const auto s = static_cast<cudaStream_t>(c.stream);
  // scratch: [the float sum (256 B)] [CUB's temporary storage]
  auto* sum = static_cast<float*>(c.scratch);
  void* temp = static_cast<char*>(c.scratch) + 256;
  std::size_t bytes = 0;
  const auto* in = static_cast<const float*>(c.in);
  PPLAB_CUDA(cub::DeviceReduce::Sum(nullptr, bytes, in, sum, c.p.n, s));
  PPLAB_CUDA(cub::DeviceReduce::Sum(temp, bytes, in, sum, c.p.n, s));
  widen_answer<<<1, 1, 0, s>>>(sum, c.out);
  PPLAB_CUDA_LAUNCHED();
}

}  // namespace

extern const reduce_rung cub_float_sum{
    .info = {.step = -1,
             .summary =
                 "cub::DeviceReduce::Sum as users call it, accumulating in float: a reference",
             .float_accumulator = true},
    .can_run = can_run,
    .scratch_bytes = [](const reduce_problem&) { return std::size_t(1) << 20; },
    .run = run,
};

}  // namespace pplab::detail::reduce_cuda
