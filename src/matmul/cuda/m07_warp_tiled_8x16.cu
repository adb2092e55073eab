// matmul/cuda/m07_warp_tiled_8x16: m07's warp-tiled kernel (m07_warp_tiled.cuh) on the 128 x 128 x
// 16 block tile with 128 threads a block, each 8 x 16 results (f64: 8 x 8): more registers, more
// reuse of each value read from shared memory.
#include "matmul/cuda/m07_warp_tiled.cuh"

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m07_warp_tiled_8x16{
    .info = {.id = "matmul/cuda/m07_warp_tiled_8x16",
             .where = backend::cuda,
             .step = 7,
             .summary = "warp tiles 64 x 64, 128 threads of 8 x 16 results (f64: 8 x 8)"},
    .can_run = grid_fits,
    .run = warp_tiled_run<wide_threads>,
};

}  // namespace pplab::detail::matmul_cuda
