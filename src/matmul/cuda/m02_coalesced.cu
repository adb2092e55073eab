// matmul/cuda/m02_coalesced: m01 with the tiling notes' mapping: x runs along the columns of C, so
// the 32 threads of a warp read 32 neighbouring elements of a row of B (one coalesced transaction),
// share one element of A (a broadcast), and write 32 neighbouring elements of C.
// What limits it: every element of A and B is still loaded from global memory (or L1/L2) once
// per use: K loads of B per element of C, 2 flops per 8 bytes loaded in f32.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 47.158
// ms, 2914 GFLOP/s (5.2% of the FMA peak), 0.06x cuBLAS's speed.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m02_coalesced{
    .info = {.step = 2, .summary = "one thread per element of C, warps along the rows"},
    .can_run = grid_fits,
    .run =
        [](const matmul_call& c) {
          dispatch_matmul<per_element<false>>(c, static_cast<cudaStream_t>(c.stream));
        },
};

}  // namespace pplab::detail::matmul_cuda
