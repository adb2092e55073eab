// matmul/cuda/m03_tiled_w16: the tiling notes' tiled kernel (m03_tiled.cuh) with 16 x 16 tiles: 256
// threads a block, each loaded element used 16 times (4 flops per loaded byte in f32), 2 KiB of
// shared memory per block in f32.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 17.244
// ms, 7970 GFLOP/s (14.3% of the FMA peak), 0.16x cuBLAS's speed.
#include "matmul/cuda/m03_tiled.cuh"

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m03_tiled_w16{
    .info = {.step = 3, .summary = "shared-memory tiles 16 x 16"},
    .can_run = grid_fits,
    .run = tiled_run<16>,
    .explain = tiled_explain<16>,
};

}  // namespace pplab::detail::matmul_cuda
