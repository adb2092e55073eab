#pragma once
// The CUDA toolbox's tensor-core part: what the tensor-core matmul rungs (m13 f64, m14 f32 as three
// TF32 products) and the lab's tensor-core probes share.
#include <cuda_runtime.h>

#include <cstdint>

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

// ---- sm_90a's warpgroup products (wgmma): four warps (a warpgroup) multiply tiles read from
// shared memory through descriptors, asynchronously. Built only where the arch-specific features
// are (sm_90a, the default build); elsewhere these trap, and wgmma_in_build() says so.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PPLAB_WGMMA 1
#endif
// Each translation unit's own flag, read from its code for the current GPU.
[[maybe_unused]] static __device__ bool wgmma_built =
#ifdef PPLAB_WGMMA
    true;
#else
    false;
#endif
// Whether this translation unit's code for the current GPU has the warpgroup products (no GPU:
// no).
[[maybe_unused]] static bool wgmma_in_build() {
  bool built = false;
  if (cudaMemcpyFromSymbol(&built, wgmma_built, sizeof built) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return built;
}

// The descriptor of a K-major tile in shared memory whose rows are 128 bytes (32 floats) long,
// laid out as the copy engine writes it with its 128-byte swizzle: the 16-byte piece c of row r
// at piece c ^ (r % 8), groups of 8 rows 1024 bytes apart. `at` is the tile's first row, 1024-byte
// aligned, plus the K step's bytes within the row (32 a step of 8 TF32 values); the swizzle is
// taken from the address, so such offsets need no other change.
__device__ inline std::uint64_t wgmma_tile_128b(const void* at) {
  const auto a = std::uint64_t(__cvta_generic_to_shared(at));
  return (a & 0x3ffff) >> 4                // the start, in 16-byte units
         | std::uint64_t(1) << 16          // the leading offset: unused by swizzled K-major tiles
         | std::uint64_t(1024 >> 4) << 32  // 8-row groups 1024 bytes apart
         | std::uint64_t(1) << 62;         // the 128-byte swizzle
}

// The descriptor of a K-major tile in shared memory without swizzle: core matrices of 8 rows of
// 16 bytes (4 TF32 values) each, 128 bytes in a row; `k_step` bytes from one core matrix to the
// next along K (the leading offset), `row_step` bytes from one group of 8 rows to the next (the
// stride offset). `at` is the tile's shared-memory address, 16-byte aligned.
__device__ inline std::uint64_t wgmma_tile_plain(unsigned at, unsigned k_step, unsigned row_step) {
  return std::uint64_t((at & 0x3ffff) >> 4) | std::uint64_t(k_step >> 4) << 16 |
         std::uint64_t(row_step >> 4) << 32;
}

// Makes this thread's ordinary stores to shared memory visible to the warpgroup products that read
// it by descriptor (they read through the async proxy); a barrier after it, before the products.
__device__ inline void wgmma_shared_stores_fence() {
#ifdef PPLAB_WGMMA
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// Orders this thread's register writes before the warpgroup's next products read them.
__device__ inline void wgmma_fence() {
#ifdef PPLAB_WGMMA
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
// Closes the products issued since the last commit into one group.
__device__ inline void wgmma_commit() {
#ifdef PPLAB_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
// Waits until at most `pending` groups of this warpgroup's products are unfinished.
template <int pending> __device__ inline void wgmma_wait() {
#ifdef PPLAB_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
#endif
}

// The 64 accumulators of an m64n128 product: their operand numbers %0 .. %63 in the instruction,
// and d[0] .. d[63] as read-write operands of the asm statement.
#define PPLAB_WGMMA_D64                                                                          \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "  \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "   \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "   \
  "%56, %57, %58, %59, %60, %61, %62, %63}"
#define PPLAB_WGMMA_D64_OPERANDS(d)                                                              \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),           \
      "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
      "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
      "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
      "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
      "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
      "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
      "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
      "+f"(d[63])

// d += a b for a 64 x 128 tile of C, K = 8: a (64 x 8) and b (128 x 8, i.e. B transposed) TF32
// tiles in shared memory by descriptor, sums in fp32. The warpgroup's warp w holds rows 16 w to
// 16 w + 15; lane (g, t) holds, for j = 0 to 15, d[4j .. 4j + 3] = C's (g, 8j + 2t),
// (g, 8j + 2t + 1), (g + 8, 8j + 2t), (g + 8, 8j + 2t + 1) of its warp's rows (mma_16x8x8_tf32's
// layout, 16 times across). Asynchronous: d is ready after wgmma_commit and wgmma_wait.
__device__ inline void wgmma_64x128x8_tf32(float (&d)[64], std::uint64_t a, std::uint64_t b) {
#ifdef PPLAB_WGMMA
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " PPLAB_WGMMA_D64 ", %64, %65, 1, 1, 1;\n"
               : PPLAB_WGMMA_D64_OPERANDS(d)
               : "l"(a), "l"(b));
#else
  __trap();
#endif
}

// wgmma_64x128x8_tf32 with a (64 x 8) from registers, as wgmma_64x16x8_tf32 brings it: d's
// layout as wgmma_64x128x8_tf32's. Asynchronous: d is ready, and a's registers free, after
// wgmma_commit and wgmma_wait.
__device__ inline void wgmma_64x128x8_tf32(float (&d)[64], const unsigned (&a)[4],
                                           std::uint64_t b) {
#ifdef PPLAB_WGMMA
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " PPLAB_WGMMA_D64
               ", {%64, %65, %66, %67}, %68, 1, 1, 1;\n"
               : PPLAB_WGMMA_D64_OPERANDS(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
#else
  __trap();
#endif
}

// d += a b for a 64 x 16 tile of C, K = 8: a (64 x 8) from registers, b (16 x 8, B transposed)
// in shared memory by descriptor, sums in fp32. The warpgroup's warp w brings rows 16 w to 16 w +
// 15 of a as mma_16x8x8_tf32 brings A's 16 rows, and holds the same rows of C: lane (g, t) holds,
// for j = 0, 1, d[4j .. 4j + 3] = C's (g, 8j + 2t), (g, 8j + 2t + 1), (g + 8, 8j + 2t), (g + 8, 8j
// + 2t + 1). Asynchronous: d is ready, and a's registers free, after wgmma_commit and wgmma_wait.
__device__ inline void wgmma_64x16x8_tf32(float (&d)[8], const unsigned (&a)[4], std::uint64_t b) {
#ifdef PPLAB_WGMMA
  asm volatile("wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, "
               "%7}, {%8, %9, %10, %11}, %12, 1, 1, 1;\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
                 "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
#else
  __trap();
#endif
}

}  // namespace pplab::detail
