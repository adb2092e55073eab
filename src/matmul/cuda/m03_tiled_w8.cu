// matmul/cuda/m03_tiled_w8: the tiling notes' tiled kernel (m03_tiled.cuh) with 8 x 8 tiles: 64
// threads a block, each loaded element used 8 times (2 flops per loaded byte in f32); too few
// threads per block for the hardware's limit of resident blocks to fill an SM.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 26.946
// ms, 5100 GFLOP/s (9.1% of the FMA peak), 0.10x cuBLAS's speed.
#include "matmul/cuda/m03_tiled.cuh"

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m03_tiled_w8{
    .info = {.step = 3, .summary = "shared-memory tiles 8 x 8, a barrier after load and compute"},
    .can_run = grid_fits,
    .run = tiled_run<8>,
    .explain = tiled_explain<8>,
};

}  // namespace pplab::detail::matmul_cuda
