#pragma once
// What the GPU rungs that keep each slot's weights as one 128-bit fixed-point integer in global
// memory share (h15, h19): the slot's scale from its largest exponent, the 128-bit add into
// global memory, and the rounding back to double at the end. A slot's scale is 2^k, k = 50 - e,
// where 2^e is above the slot's largest finite |weight| (the exponent `top` holds e + 2048; 0:
// no nonzero weight); each weight adds round(w 2^k), an integer below 2^50. The inputs number
// below 2^40, so a sum stays below 2^90: no overflow. Integer sums are the same in any order and
// any grouping, so every rung that adds the same terms gives the same bits.
#include "histogram/cuda/fixed_point_sums.cuh"

namespace pplab::detail::histogram_cuda::wide {

constexpr int count_bits = 40;  // the inputs number below 2^40
constexpr int term_bits = 50;   // each term below 2^50: the low word rarely carries
constexpr int unbiased = 2048;  // top holds e + 2048; 0: no weight yet

// The slot's top for weight v (finite, nonzero).
__device__ inline int top_of(double v) { return exponent_above(v) + unbiased; }

// The scale 2^k of a slot whose top is `top` (k at most 1000: a finite double).
__device__ inline double scale_of(int top) {
  const int k = term_bits - (top - unbiased);
  return ldexp(1.0, k < 1000 ? k : 1000);
}

// The two words of the 128-bit sums, low then high, per slot.
struct sum {
  unsigned long long lo, hi;
};

// Adds (lo, hi) to the slot: one atomic on the low word, whose old value tells whether it
// carried, and one on the high word only where the high part plus the carry is not zero.
__device__ inline void added(sum* slot, unsigned long long lo, unsigned long long hi) {
  const unsigned long long old = lo ? atomicAdd(&slot->lo, lo) : 0;
  const unsigned long long high = hi + (old + lo < old ? 1 : 0);
  if (high != 0) atomicAdd(&slot->hi, high);
}

// A 128-bit two's-complement integer (hi, lo) times 2^-k, rounded once to double: the top 64
// bits of its magnitude, with a sticky bit for any below, converted with rounding to nearest.
__device__ inline double rounded(unsigned long long lo, unsigned long long hi, double scale) {
  const bool negative = static_cast<long long>(hi) < 0;
  if (negative) {  // the magnitude: -(hi, lo)
    lo = ~lo + 1;
    hi = ~hi + (lo == 0 ? 1 : 0);
  }
  double m;
  if (hi == 0) {
    m = __ull2double_rn(lo);
  } else {
    const int shift = 64 - __clzll(static_cast<long long>(hi));  // bits of hi in use, 1..63
    const unsigned long long top64 =
        (hi << (64 - shift)) | (lo >> shift) | ((lo << (64 - shift)) != 0 ? 1 : 0);
    m = ldexp(__ull2double_rn(top64), shift);
  }
  return (negative ? -m : m) / scale;  // scale is a power of two: exact unless subnormal
}

// Each slot's answer: its sum rounded to double, unless its flags say infinity or NaN.
__global__ inline void finished(const int* top, const sum* sums, const unsigned* flags, double* out,
                                unsigned nslots) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nslots) return;
  const double s = top[b] == 0 ? 0.0 : rounded(sums[b].lo, sums[b].hi, scale_of(top[b]));
  out[b] = with_flags(s, flags[b]);
}
inline void finished(const int* top, const sum* sums, const unsigned* flags, double* out,
                     unsigned nslots, cudaStream_t s) {
  finished<<<(nslots + 255) / 256, 256, 0, s>>>(top, sums, flags, out, nslots);
  PPLAB_CUDA_LAUNCHED();
}

// The slots' sums, tops and flags, one after the other in the scratch (24 bytes a slot), zeroed
// by the rung before its first pass.
struct slots_layout {
  sum* sums;
  int* top;
  unsigned* flags;
  std::size_t bytes;
};
inline slots_layout slots_layout_of(std::size_t nslots, void* base) {
  auto* p = static_cast<unsigned char*>(base);
  return {reinterpret_cast<sum*>(p), reinterpret_cast<int*>(p + nslots * 16),
          reinterpret_cast<unsigned*>(p + nslots * 20), nslots * 24};
}

}  // namespace pplab::detail::histogram_cuda::wide
