// matmul/cuda/m03_tiled_w32: the tiling notes' tiled kernel (m03_tiled.cuh) with 32 x 32 tiles:
// 1024 threads a block, each loaded element used 32 times (8 flops per loaded byte in f32), 8 KiB
// of shared memory; one block's barrier stalls all 1024 threads.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 17.113
// ms, 8031 GFLOP/s (14.4% of the FMA peak), 0.16x cuBLAS's speed.
#include "matmul/cuda/m03_tiled.cuh"

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m03_tiled_w32{
    .info = {.step = 3, .summary = "shared-memory tiles 32 x 32"},
    .can_run = grid_fits,
    .run = tiled_run<32>,
    .explain = tiled_explain<32>,
};

}  // namespace pplab::detail::matmul_cuda
