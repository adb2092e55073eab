// matmul/cuda/m07_warp_tiled_8x8: m07's warp-tiled kernel (m07_warp_tiled.cuh) on the 128 x 128 x
// 16 block tile with 256 threads a block, each 8 x 8 results: more warps to hide the latency of the
// loads.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 3.392 ms,
// 40524 GFLOP/s (72.6% of the FMA peak), 0.79x cuBLAS's speed.
#include "matmul/cuda/m07_warp_tiled.cuh"

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m07_warp_tiled_8x8{
    .info = {.step = 7, .summary = "warp tiles 64 x 32, 256 threads of 8 x 8 results"},
    .can_run = grid_fits,
    .run = warp_tiled_run<narrow_threads>,
};

}  // namespace pplab::detail::matmul_cuda
