#pragma once
// The CUDA toolbox's tensor-core part: what the tensor-core matmul rungs (m13 f64, m14 f32 as three
// TF32 products) and the lab's tensor-core probes share.
#include <cuda_runtime.h>

#include "core/cuda/launch.cuh"  // kernel_built_for

namespace pplab::detail {

// The fp64 tensor cores (sm_90): d += a b for one 16 x 8 x 4 tile of doubles, a warp together.
// Lane (g, t) = (lane / 4, lane % 4) brings A's elements (g, t) and (g + 8, t) and B's (t, g), and
// holds C's (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1). Products and sums in fp64
// throughout. Code built for an older GPU traps: ask kernel_built_for() first. Not volatile:
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

// The TF32 tensor cores (sm_80 on): d += a b for one 16 x 8 x 8 tile, a warp together, products of
// TF32 values (8 bits of exponent, 10 of mantissa: the low 13 bits of each fp32 operand are not
// read) summed in fp32. Lane (g, t) brings A's (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4) and
// B's (t, g), (t + 4, g), and holds C's elements as mma_16x8x4 does.
__device__ inline void mma_16x8x8_tf32(float (&d)[4], const unsigned (&a)[4],
                                       const unsigned (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();
#endif
}

// x as the sum of two TF32 values, big + small: big is x with its low 13 bits cleared (exact, and
// never rounded up past the largest float), the rest (exact in fp32, under 2^-10 of x) rounded to
// TF32, so x = big + small to 2^-22 of x; the product of two smalls, which m14 drops, is under
// 2^-20 of the product and has its sign (a bias toward zero; fp32 keeps 2^-24 per operation). Big
// rounded to nearest instead halves the small parts and measured 1.7x less error in the lab, but
// its two more instructions per value cost m14 12% (register spills at two blocks per SM;
// bench/results/h200-2026-11-24-matmul-m14-steps.txt). A NaN stays a NaN; an infinity leaves a
// rest of inf - inf, a NaN: every product it enters is NaN (strict arithmetic would give an
// infinity or a NaN).
__device__ inline void split_tf32(float x, unsigned& big, unsigned& small) {
  big = __float_as_uint(x) & 0xffffe000u;
  const float rest = x - __uint_as_float(big);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(small) : "f"(rest));
#else
  small = __float_as_uint(rest);
#endif
}

}  // namespace pplab::detail
