// matmul/cuda/m08_double_buffered_64x64: m08's double-buffered kernel (double_buffered.cuh) on
// 64 x 64 tiles of C: four times the blocks of the 128 x 128 tiles, for products that give the SMs
// too few big tiles (the policy's pick for small M x N with shallow K: matmul/policy.cpp).
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 1024x1024x1024 in 0.064 ms,
// 33605 GFLOP/s (60.2% of the FMA peak), 1.00x cuBLAS's speed (the 128 x 128 tiles: 0.54x); at
// 4096^3 0.77x, where the big tiles give 0.89x.
#include "matmul/cuda/double_buffered.cuh"

namespace pplab::detail::matmul_cuda {

// m19's stacks of f32 products on the 64 x 64 tiles (m08_stack's, for stacks of few big tiles).
void m08_64x64_stack(const gemm<float>& g, cudaStream_t s, unsigned count) {
  launch_double_buffered<float, small_tiles, true>(g, s, {}, count);
}

extern const matmul_rung m08_double_buffered_64x64{
    .info = {.step = 8, .summary = "the same with 64 x 64 tiles: 4x the blocks"},
    .can_run = grid_fits,
    .run = double_buffered_run<small_tiles>,
};

}  // namespace pplab::detail::matmul_cuda
