// matmul/cuda/m08_double_buffered: m07's warp tiling with double buffering at two levels (the
// kernel: double_buffered.cuh): two shared-memory buffers per operand, the next tiles' global
// loads in flight while the current ones are multiplied, and two register sets of fragments, the
// next k's read from shared memory while this k's multiply-adds run. A thread's 8 x 8 results are
// 2 x 2 sub-tiles of 4 x 4 (a quarter-warp's reads of A are 8 consecutive 16-byte chunks). f64
// steps K by 8 so its two buffers fit the 48 KiB of static shared memory. Registered with the
// 128 x 128 block tile and with 64 x 64 tiles (four times the blocks, for products that give the
// SMs too few big tiles). Products whose tiles are all whole and aligned run a second
// instantiation without bounds tests (double_buffered.cuh): 8 instructions beside a thread's 64
// FFMAs per k step instead of 13; measured on the H200 at 4096^3 3.194 -> 3.019 ms, 0.84x ->
// 0.89x cuBLAS (bench/results/h200-2026-11-23-matmul-2ea7328.json).
#include "matmul/cuda/double_buffered.cuh"

namespace pplab::detail::gpu_matmul {
namespace {

template <class F32> struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    using P = std::conditional_t<sizeof(T) == 4, F32, narrow_threads_bk8>;
    launch_double_buffered<T, P>(g, s);
  }
};

}  // namespace

void m08_run(const matmul_call& c) {
  dispatch_matmul<rung<narrow_sub4>>(c, static_cast<cudaStream_t>(c.stream));
}
void m08_small_run(const matmul_call& c) {
  dispatch_matmul<rung<small_tiles>>(c, static_cast<cudaStream_t>(c.stream));
}
// m12's multiply, once it has made every tile whole: the interior kernel compiled here only.
template <class T> void m08_whole_tiles(const gemm<T>& g, cudaStream_t s) {
  launch_double_buffered<T, std::conditional_t<sizeof(T) == 4, narrow_sub4, narrow_threads_bk8>>(
      g, s, {}, 1, true);
}
template void m08_whole_tiles<float>(const gemm<float>&, cudaStream_t);
template void m08_whole_tiles<double>(const gemm<double>&, cudaStream_t);

}  // namespace pplab::detail::gpu_matmul
