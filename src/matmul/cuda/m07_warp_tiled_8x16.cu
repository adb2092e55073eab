// matmul/cuda/m07_warp_tiled_8x16: m07's warp-tiled kernel (m07_warp_tiled.cuh) on the 128 x 128 x
// 16 block tile with 128 threads a block, each 8 x 16 results (f64: 8 x 8): more registers, more
// reuse of each value read from shared memory.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 3.893 ms,
// 35308 GFLOP/s (63.3% of the FMA peak), 0.69x cuBLAS's speed.
#include "matmul/cuda/m07_warp_tiled.cuh"

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m07_warp_tiled_8x16{
    .info = {.step = 7,
             .summary = "warp tiles 64 x 64, 128 threads of 8 x 16 results (f64: 8 x 8)"},
    .can_run = grid_fits,
    .run = warp_tiled_run<wide_threads>,
};

}  // namespace pplab::detail::matmul_cuda
