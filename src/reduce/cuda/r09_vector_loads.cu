// reduce/cuda/r09_vector_loads: r08 with 16-byte loads (one uint4: 4 floats, 16 bytes) and four
// of them issued before the first is used, so each thread keeps 64 bytes in flight and the
// memory system sees a quarter of the load instructions. Elements before the first 16-byte
// boundary and after the last whole vector are loaded one by one. Every dtype.
// What limits it: DRAM bandwidth; and the partials still go through a second launch.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 0.2529 ms,
// 4246 GB/s (88% of theoretical); 2^24: 0.0285 ms.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr unsigned B = 256;
constexpr int unroll = 4;

template <class T, op O> std::size_t grid(std::size_t n) {
  static const std::size_t resident = resident_blocks(vector_partials<T, O, B, unroll>, B);
  return std::min(resident, std::max<std::size_t>(1, ceil_div(n, B * (16 / sizeof(T)) * unroll)));
}

struct rung {
  static constexpr bool args = true;
  template <class T, op O>
  static void run(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                  cudaStream_t s) {
    launch_then_combine<T, O>(vector_partials<T, O, B, unroll>, grid<T, O>(n), B, in, n, scratch,
                              out, mean_n, s);
  }
};

}  // namespace

extern const reduce_rung r09_vector_loads{
    .info = {.step = 9, .summary = "16-byte loads, four in flight per thread"},
    .can_run = supports<dtypes::all, true>,
    .scratch_bytes = [](const reduce_problem&) { return bytes_for_partials(64 * 256); },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::all>(c); },
};

}  // namespace pplab::detail::reduce_cuda
