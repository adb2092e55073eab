#pragma once
// The CUDA toolbox's tensor-core part: what the f64 matmul rung (m13) and the lab's fp64
// tensor-core probe share.
#include <cuda_runtime.h>

namespace pplab::detail {

// The fp64 tensor cores (sm_90): d += a b for one 16 x 8 x 4 tile of doubles, a warp together.
// Lane (g, t) = (lane / 4, lane % 4) brings A's elements (g, t) and (g + 8, t) and B's (t, g), and
// holds C's (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1). Products and sums in fp64
// throughout. Code built for an older GPU traps: ask tensor_cores_built() first. Not volatile:
// the results are used, and the scheduler may move it among the copies and shared loads.
__device__ inline void mma_16x8x4(double (&d)[4], double a0, double a1, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a0), "d"(a1), "d"(b));
#else
  __trap();
#endif
}

// Whether `kernel` was built for sm_90 or later (its tensor-core instructions run here); false
// where no GPU answers.
template <class Kernel> bool tensor_cores_built(Kernel kernel) {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.binaryVersion >= 90;
}

}  // namespace pplab::detail
