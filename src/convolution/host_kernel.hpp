#pragma once
// What the host rungs share: the call in its type, the row pointers of one output row's taps
// (the boundary applied to rows once per output row, not per tap), and the border pixels, where
// the boundary applies to columns too. The interior loops are each rung's own.
#include <algorithm>
#include <cstring>
#include <tuple>
#include <vector>

#include "convolution/boundary.hpp"
#include "convolution/rung.hpp"

namespace pplab::detail {

// The widest SIMD register the build targets, and the block of outputs a register-blocked loop
// keeps in four of them (four independent chains of multiply-adds hide the FMA latency).
#if defined(__AVX512F__)
inline constexpr std::size_t simd_bytes = 64;
#elif defined(__AVX__)
inline constexpr std::size_t simd_bytes = 32;
#else
inline constexpr std::size_t simd_bytes = 16;
#endif
template <class T> inline constexpr std::size_t block_width = 4 * simd_bytes / sizeof(T);

template <class T> struct filter {
  std::size_t rows, cols, kh, kw;
  boundary mode;
  T cval;
  const T* in;
  std::size_t ld_in;
  const T* mask;  // kh x kw
  T* out;
  std::size_t ld_out;
};

// Calls Impl::template run<T>(filter<T>) with the call's type.
template <class Impl> void dispatch_convolution(const convolution_call& c) {
  auto go = [&](auto tag) {
    using T = decltype(tag);
    Impl::template run<T>(filter<T>{
        c.p.rows, c.p.cols, c.p.kh, c.p.kw, c.p.mode, T(c.p.cval), static_cast<const T*>(c.in),
        c.ld_in, static_cast<const T*>(c.mask), static_cast<T*>(c.out), c.ld_out});
  };
  if (c.p.type == dtype::f32) go(float{});
  else go(double{});
}

// The kh input rows that output row y reads (null: a row of the constant value).
template <class T> void tap_rows(const filter<T>& f, std::size_t y, const T** rows) {
  const std::int64_t top = std::int64_t(y) - std::int64_t(f.kh / 2);
  for (std::size_t i = 0; i < f.kh; ++i) {
    const std::int64_t r = boundary_index(top + std::int64_t(i), std::int64_t(f.rows), f.mode);
    rows[i] = r < 0 ? nullptr : f.in + std::size_t(r) * f.ld_in;
  }
}

// The columns whose every tap lies inside the row: [kw/2, cols - kw/2) (empty when the mask is
// as wide as the image or wider).
template <class T> std::pair<std::size_t, std::size_t> interior_columns(const filter<T>& f) {
  const std::size_t r = f.kw / 2;
  if (f.cols <= 2 * r) return {f.cols, f.cols};
  return {r, f.cols - r};
}

// The columns the border pixels read, the boundary applied once per call rather than at every
// tap of every row (on an image of short rows, 16384 x 128 with 9 taps, the border's taps had
// cost more than the interior's): output x < lo reads column left[x + j] at tap j, output
// x >= hi column right[x - hi + j]; -1 is the constant.
struct border_columns {
  std::size_t lo = 0, hi = 0;
  std::vector<std::int64_t> left, right;
  template <class T> explicit border_columns(const filter<T>& f) {
    std::tie(lo, hi) = interior_columns(f);
    hi = std::max(hi, lo);
    const std::int64_t r = std::int64_t(f.kw / 2), n = std::int64_t(f.cols);
    for (std::int64_t k = 0; k < std::int64_t(lo + f.kw - 1); ++k)
      left.push_back(boundary_index(k - r, n, f.mode));
    if (hi < f.cols)
      for (std::int64_t k = 0; k < std::int64_t(f.cols - hi + f.kw - 1); ++k)
        right.push_back(boundary_index(std::int64_t(hi) + k - r, n, f.mode));
  }
};

// One border pixel from its tap rows and its columns (`at[j]`: tap j's), the taps added in
// order as the interior adds them.
template <class T, class Acc = T>
T border_pixel_at(const filter<T>& f, const T* const* rows, const std::int64_t* at) {
  Acc acc = 0;
  for (std::size_t i = 0; i < f.kh; ++i)
    for (std::size_t j = 0; j < f.kw; ++j) {
      const std::int64_t c = at[j];
      const T v = rows[i] && c >= 0 ? rows[i][c] : f.cval;
      acc += Acc(f.mask[i * f.kw + j]) * Acc(v);
    }
  return T(acc);
}

// The border pixels of output row y (left and right of the interior).
template <class T>
void border_pixels(const filter<T>& f, const border_columns& b, const T* const* rows, T* out) {
  for (std::size_t x = 0; x < b.lo; ++x) out[x] = border_pixel_at(f, rows, b.left.data() + x);
  for (std::size_t x = b.hi; x < f.cols; ++x)
    out[x] = border_pixel_at(f, rows, b.right.data() + (x - b.hi));
}

// A row of the constant value, as wide as the interior loops read (for tap rows that are null).
template <class T> std::vector<T> constant_row(const filter<T>& f) {
  return std::vector<T>(f.cols, f.cval);
}

}  // namespace pplab::detail

namespace pplab::detail {

// Output row y's tap rows with the constant row in place of rows off the image.
template <class T>
void tap_rows_or_constant(const filter<T>& f, std::size_t y, const T* constant, const T** rows) {
  tap_rows(f, y, rows);
  for (std::size_t i = 0; i < f.kh; ++i)
    if (!rows[i]) rows[i] = constant;
}

// The interior of one output row, read straight from its tap rows (no boundary), added in T one
// output at a time: the seq ladder's second rung, and the cpu ladder's first on every thread.
template <class T> void interior_plain(const filter<T>& f, const T* const* rows, T* out) {
  const auto [lo, hi] = interior_columns(f);
  const std::size_t rw = f.kw / 2;
  for (std::size_t x = lo; x < hi; ++x) {
    T acc = 0;
    for (std::size_t i = 0; i < f.kh; ++i) {
      const T* in = rows[i] + x - rw;
      const T* m = f.mask + i * f.kw;
      for (std::size_t j = 0; j < f.kw; ++j) acc += m[j] * in[j];
    }
    out[x] = acc;
  }
}

}  // namespace pplab::detail

namespace pplab::detail {

// Every output row on the OpenMP threads, in equal blocks (every row costs the same): its tap
// rows found, its border pixels computed, then `interior(f, rows, out)` for the rest. The cpu
// rungs differ only in their interior.
template <class T, class Interior> void rows_on_threads(const filter<T>& f, Interior interior) {
  const std::vector<T> constant = constant_row(f);
  const border_columns border(f);
#pragma omp parallel
  {
    std::vector<const T*> rows(f.kh);
#pragma omp for schedule(static)
    for (std::ptrdiff_t y = 0; y < std::ptrdiff_t(f.rows); ++y) {
      tap_rows_or_constant(f, std::size_t(y), constant.data(), rows.data());
      T* out = f.out + std::size_t(y) * f.ld_out;
      border_pixels(f, border, rows.data(), out);
      interior(f, rows.data(), out);
    }
  }
}

}  // namespace pplab::detail

namespace pplab::detail {

// out[x + w] = sum over taps t of weight[t] * from[t][x + w], for w < W: the sums in registers,
// written with the compiler's vector type (left to itself, it vectorized the vertical pass
// across the taps, with gathers, at an eighth of this speed).
template <class T, std::size_t W, class From>
[[gnu::always_inline]] inline void weighted_block(const T* weight, std::size_t taps, From from,
                                                  std::size_t x, T* out) {
  constexpr std::size_t L = simd_bytes / sizeof(T), V = W / L;
  typedef T vec __attribute__((vector_size(simd_bytes)));
  if constexpr (V == 0) {
    T acc = 0;
    for (std::size_t t = 0; t < taps; ++t) acc += weight[t] * from(t)[x];
    out[x] = acc;
  } else {
    vec acc[V] = {};
    for (std::size_t t = 0; t < taps; ++t) {
      const vec wt = vec{} + weight[t];
      const T* in = from(t) + x;
      for (std::size_t v = 0; v < V; ++v) {
        vec a;
        std::memcpy(&a, in + v * L, sizeof a);
        acc[v] += wt * a;
      }
    }
    std::memcpy(out + x, acc, sizeof acc);
  }
}

// weighted_block over [lo, hi): whole blocks, the last one ending at hi (its outputs shared with
// the block before computed again in the same order, to the same bits), narrow spans one by one.
template <class T, class From>
void weighted_span(const T* weight, std::size_t taps, From from, std::size_t lo, std::size_t hi,
                   T* out) {
  constexpr std::size_t W = block_width<T>;
  if (hi - lo < W) {
    for (std::size_t x = lo; x < hi; ++x) weighted_block<T, 1>(weight, taps, from, x, out);
    return;
  }
  std::size_t x = lo;
  for (; x + W <= hi; x += W) weighted_block<T, W>(weight, taps, from, x, out);
  if (x < hi) weighted_block<T, W>(weight, taps, from, hi - W, out);
}

}  // namespace pplab::detail
