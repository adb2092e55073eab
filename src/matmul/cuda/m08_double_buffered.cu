// matmul/cuda/m08_double_buffered: m07's warp tiling with double buffering at two levels (the
// kernel: double_buffered.cuh): two shared-memory buffers per operand, the next tiles' global loads
// in flight while the current ones are multiplied, and two register sets of fragments, the next k's
// read from shared memory while this k's multiply-adds run. A thread's 8 x 8 results are 2 x 2
// sub-tiles of 4 x 4 (a quarter-warp's reads of A are 8 consecutive 16-byte chunks). f64 steps K by
// 8 so its two buffers fit the 48 KiB of static shared memory. This file: the 128 x 128 block tile
// (m08_double_buffered_64x64: 64 x 64 tiles). Products whose tiles are all whole and aligned run a
// second instantiation without bounds tests (double_buffered.cuh): 8 instructions beside a thread's
// 64 FFMAs per k step instead of 13; measured on the H200 at 4096^3 3.194 -> 3.019 ms, 0.84x ->
// 0.89x cuBLAS (bench/results/h200-2026-11-23-matmul-2ea7328.json).
#include "matmul/cuda/double_buffered.cuh"

namespace pplab::detail::matmul_cuda {

// m12's multiply, once it has made every tile whole: the interior kernel compiled here only.
template <class T> void m08_whole_tiles(const gemm<T>& g, cudaStream_t s) {
  launch_double_buffered<T, std::conditional_t<sizeof(T) == 4, narrow_sub4, narrow_threads_bk8>>(
      g, s, {}, 1, true);
}
template void m08_whole_tiles<float>(const gemm<float>&, cudaStream_t);
template void m08_whole_tiles<double>(const gemm<double>&, cudaStream_t);

// m19's stacks on the 128 x 128 tiles: `count` products along the grid's third dimension (g's
// strides), the same kernels compiled here only.
template <class T> void m08_stack(const gemm<T>& g, cudaStream_t s, unsigned count) {
  launch_double_buffered<T, std::conditional_t<sizeof(T) == 4, narrow_sub4, narrow_threads_bk8>,
                         true>(g, s, {}, count);
}
template void m08_stack<float>(const gemm<float>&, cudaStream_t, unsigned);
template void m08_stack<double>(const gemm<double>&, cudaStream_t, unsigned);

extern const matmul_rung m08_double_buffered{
    .info = {.step = 8,
             .summary =
                 "two buffers in shared memory and in registers: loads overlap the multiply"},
    .can_run = grid_fits,
    .run = double_buffered_run<narrow_sub4>,
};

}  // namespace pplab::detail::matmul_cuda
