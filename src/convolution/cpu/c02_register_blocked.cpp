// convolution/cpu/c02_register_blocked: several outputs per mask load. The interior of a row is
// cut into blocks of W neighbouring outputs whose sums stay in vector registers for the whole
// mask: each tap is one broadcast of the mask value and one unaligned vector load of W inputs,
// feeding W multiply-adds (c01 loads an input and a mask value per multiply-add, and its single
// sum is one long chain of dependent adds). W is eight vectors of the widest SIMD the build
// targets: eight independent chains keep both FMA pipes busy through the multiply-add's latency
// (two a cycle, four cycles each). With four (to 2026-11-30) one pipe idled: on the 2-core EPYC
// (AVX2) at 8192^2, 3 x 3 42.3 ms against 29.7, 5 x 5 70.9 against 39.9, 7 x 7 107.5 against 86.7. The row's last partial block is a whole block
// ending at the interior's end (computing a few outputs twice), not a scalar loop: at 1024 x 1024
// with 7 x 7 the scalar tail of 58 outputs per row had doubled the row's time. Compiled with FMA
// contraction (sources.cmake). Rows shared among the OpenMP threads as in c01.
// Measured (2-core AMD EPYC, bench/results/cpu-2core-2026-11-28-convolution-62d57fd.json): f32
// 8192x8192 mask 7x7 nearest in 67.0 ms, 41.7% of the FMA peak, 1.87x OpenCV's filter2D, 16.2x c01;
// 3 x 3 50.8% of the copy ceiling, 1.89x filter2D. On 2026-11-30 on another 2-core EPYC, with
// eight vectors (bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its seventh
// section): 3 x 3 1.48x filter2D, 5 x 5 2.85x, 7 x 7 1.89x, 11 x 11 1.26x, 15 x 15 4.18x.
#include <omp.h>

#include "convolution/host_kernel.hpp"

namespace pplab::detail::convolution_cpu {
namespace {

// The W outputs from x on: their sums in registers for the whole mask.
template <class T, std::size_t W>
void block_at(const filter<T>& f, const T* const* rows, std::size_t x, T* out) {
  const std::size_t rw = f.kw / 2;
  T acc[W] = {};
  for (std::size_t i = 0; i < f.kh; ++i) {
    const T* in = rows[i] + x - rw;
    const T* m = f.mask + i * f.kw;
    for (std::size_t j = 0; j < f.kw; ++j) {
      const T mj = m[j];
#pragma omp simd
      for (std::size_t w = 0; w < W; ++w) acc[w] += mj * in[j + w];
    }
  }
  for (std::size_t w = 0; w < W; ++w) out[x + w] = acc[w];
}

// The interior [lo, hi) in blocks of W, the last partial block as a whole block ending at the
// interior's end: the outputs it shares with the block before are computed again in the same
// order, to the same bits. A narrower interior takes blocks of half as many (to one vector),
// then one output at a time: on rows of 128 values (the last axis of a 128^3 volume), 120
// outputs one at a time had run 8x slower a value than rows of 1024.
template <class T, std::size_t W>
void blocks_of(const filter<T>& f, const T* const* rows, std::size_t lo, std::size_t hi,
               T* out) {
  constexpr std::size_t L = simd_bytes / sizeof(T);
  if constexpr (W >= L) {
    if (hi - lo < W) return blocks_of<T, W / 2>(f, rows, lo, hi, out);
    std::size_t x = lo;
    for (; x + W <= hi; x += W) block_at<T, W>(f, rows, x, out);
    if (x < hi) block_at<T, W>(f, rows, hi - W, out);
  } else {
    for (std::size_t x = lo; x < hi; ++x) block_at<T, 1>(f, rows, x, out);
  }
}

template <class T> void interior_blocked(const filter<T>& f, const T* const* rows, T* out) {
  const auto [lo, hi] = interior_columns(f);
  blocks_of<T, 2 * block_width<T>>(f, rows, lo, hi, out);
}

struct register_blocked {
  template <class T> static void run(const filter<T>& f) {
    rows_on_threads(f, [](const filter<T>& g, const T* const* rows, T* out) {
      interior_blocked(g, rows, out);
    });
  }
};

void run(const convolution_call& c) { dispatch_convolution<register_blocked>(c); }

}  // namespace

extern const convolution_rung c02_register_blocked{
    .info = {.step = 2,
             .summary = "blocks of outputs kept in vector registers: one mask load feeds a block"},
    .can_run = float_image,
    .run = run,
};

}  // namespace pplab::detail::convolution_cpu
