// matmul/cuda/m08_double_buffered_64x64: m08's double-buffered kernel (double_buffered.cuh) on
// 64 x 64 tiles of C: four times the blocks of the 128 x 128 tiles, for products that give the SMs
// too few big tiles (the policy's pick for small M x N with shallow K: matmul/policy.cpp).
#include "matmul/cuda/double_buffered.cuh"

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m08_double_buffered_64x64{
    .info = {.id = "matmul/cuda/m08_double_buffered_64x64",
             .where = backend::cuda,
             .step = 8,
             .summary = "the same with 64 x 64 tiles: 4x the blocks"},
    .can_run = grid_fits,
    .run = double_buffered_run<small_tiles>,
};

}  // namespace pplab::detail::matmul_cuda
