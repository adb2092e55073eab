// matmul/cuda/m01_naive: one thread per element of C, the dot product of a row of A and a column
// of B read straight from global memory. Threads are laid out the way a first attempt often
// does it: x, the fast index within a warp, runs down the rows of C. So the 32 threads of a warp
// read 32 rows of A, each its own cache line, and write 32 rows of C: nothing is coalesced
// except the one element of B they all share.
// Work: 2 M N K flops, and 2 K loads per element of C from global memory (no reuse but the
// caches'): 2 M N K x 4 bytes of load traffic for f32 against 4 (M K + K N + M N) of data.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096 in 140.755
// ms, 976 GFLOP/s (1.7% of the FMA peak), 0.02x cuBLAS's speed.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {

extern const matmul_rung m01_naive{
    .info = {.step = 1, .summary = "one thread per element of C, warps down the rows: uncoalesced"},
    .can_run = grid_fits,
    .run =
        [](const matmul_call& c) {
          dispatch_matmul<per_element<true>>(c, static_cast<cudaStream_t>(c.stream));
        },
};

}  // namespace pplab::detail::matmul_cuda
