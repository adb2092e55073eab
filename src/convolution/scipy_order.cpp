// scipy.ndimage.correlate1d's arithmetic, for outputs of an integer type (pplab/convolution.hpp,
// correlate1d_in_scipys_order). An integer output keeps the truncation of each answer, and an
// answer within a rounding of a whole number truncates as the last bit of its sum says: the
// order of the adds decides the integer (128.0 in SciPy's order, 127.99999999999997 in
// another, truncated to 128 and 127). So this pass adds in SciPy's order, per answer:
//   odd length, symmetric weights (|w[c+j] - w[c-j]| <= DBL_EPSILON): w[c] x[0], then
//     + (x[-j] + x[j]) w[c-j] for j from the outermost pair inward;
//   odd length, antisymmetric (|w[c+j] + w[c-j]| <= DBL_EPSILON): the same with x[-j] - x[j];
//   any other: w[k-1] x[last], then + w[t] x[t] for t from the first to the last but one;
// in double, every product and sum rounded on its own (this file is built without contracting
// a * b + c into one FMA, which rounds once). The answers of different elements are independent,
// so the loops run across many elements at once (vectors, threads) without changing any one.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "convolution/boundary.hpp"
#include "convolution/scipy_order.hpp"
#include "core/executor.hpp"
#include "core/run.hpp"
#include "pplab/convolution.hpp"
#include "pplab/error.hpp"
#include "pplab/interrupt.hpp"

namespace pplab {
namespace {

// The geometry of one pass: the array as (outer, n, inner) in C order, the pass along n.
struct geometry {
  std::size_t outer, n, inner;
  std::size_t k;      // the weights' count
  long before;        // the line's extension before its first element: k / 2 + origin
  std::size_t lanes;  // columns of the inner axis taken together (1 where inner is 1)
  std::size_t seg;    // the line's elements per piece of work
  boundary mode;
  double cval;
};

// A piece of work: `lanes` columns (from c0) of the line of outer index o, its elements [s,
// s + len): their inputs, extended as the mode says, as doubles in e (row p holds line element s
// - before + p), then the answers in a (row l holds element s + l).
template <class T>
void read_piece(const geometry& g, const T* in, std::size_t o, std::size_t c0, std::size_t w,
                std::size_t s, std::size_t len, double* e) {
  detail::read_extended(in + o * g.n * g.inner + c0, g.inner, w, g.lanes,
                        std::int64_t(s) - g.before, std::int64_t(g.n), len + g.k - 1, g.mode,
                        g.cval, e);
}

// The answers of a piece, in SciPy's order (above), over the rows of e: `count` = len x lanes
// answers, each taken through the tap rows t (e + t * lanes). Taken in chunks whose rows stay in
// the first-level cache while every tap passes over them.
void correlate_piece(const double* e, double* a, std::size_t count, std::size_t lanes,
                     std::span<const double> w, int sym, double divisor) {
  const std::size_t k = w.size(), c = k / 2;
  constexpr std::size_t chunk = 512;
  for (std::size_t i0 = 0; i0 < count; i0 += chunk) {
    const std::size_t m = std::min(chunk, count - i0);
    double* out = a + i0;
    const double* base = e + i0;
    if (sym == 0) {
      const double* last = base + (k - 1) * lanes;
      for (std::size_t i = 0; i < m; ++i) out[i] = last[i] * w[k - 1];
      for (std::size_t t = 0; t + 1 < k; ++t) {
        const double* x = base + t * lanes;
        const double wt = w[t];
        for (std::size_t i = 0; i < m; ++i) out[i] += x[i] * wt;
      }
    } else {
      const double* centre = base + c * lanes;
      for (std::size_t i = 0; i < m; ++i) out[i] = centre[i] * w[c];
      for (std::size_t t = 0; t < c; ++t) {  // the pair t and k - 1 - t, the outermost first
        const double* lo = base + t * lanes;
        const double* hi = base + (k - 1 - t) * lanes;
        const double wt = w[t];
        if (sym > 0)
          for (std::size_t i = 0; i < m; ++i) out[i] += (lo[i] + hi[i]) * wt;
        else
          for (std::size_t i = 0; i < m; ++i) out[i] += (lo[i] - hi[i]) * wt;
      }
    }
    if (divisor != 1.0)
      for (std::size_t i = 0; i < m; ++i) out[i] /= divisor;
  }
}

template <class U>
void write_piece(const geometry& g, const double* a, U* out, std::size_t o, std::size_t c0,
                 std::size_t w, std::size_t s, std::size_t len) {
  U* line = out + o * g.n * g.inner + c0;
  if (g.inner == 1) {  // one line's stretch: a contiguous conversion
    for (std::size_t l = 0; l < len; ++l) line[s + l] = detail::scipy_integer<U>(a[l]);
    return;
  }
  for (std::size_t l = 0; l < len; ++l) {
    const double* row = a + l * g.lanes;
    U* dst = line + (s + l) * g.inner;
    for (std::size_t c = 0; c < w; ++c) dst[c] = detail::scipy_integer<U>(row[c]);
  }
}

template <class T, class U>
void run_pass(const geometry& g, const T* in, U* out, std::span<const double> w, int sym,
              double divisor, bool threads) {
  const std::size_t blocks = (g.inner + g.lanes - 1) / g.lanes;
  const std::size_t segs = (g.n + g.seg - 1) / g.seg;
  const std::size_t pieces = g.outer * blocks * segs;
  // Waves of pieces, the interrupt asked between them on this thread.
  const std::size_t per_wave = std::max<std::size_t>(1, (std::size_t(1) << 24) / (g.seg * g.lanes));
  for (std::size_t w0 = 0; w0 < pieces; w0 += per_wave) {
    if (w0) stop_if_interrupted();
    const std::size_t w1 = std::min(pieces, w0 + per_wave);
#pragma omp parallel if (threads && w1 - w0 > 1)
    {
      std::vector<double> e((g.seg + g.k - 1) * g.lanes), a(g.seg * g.lanes);
#pragma omp for schedule(dynamic, 1)
      for (std::size_t p = w0; p < w1; ++p) {
        const std::size_t sg = p % segs, b = (p / segs) % blocks, o = p / segs / blocks;
        const std::size_t s = sg * g.seg, len = std::min(g.seg, g.n - s);
        const std::size_t c0 = b * g.lanes, width = std::min(g.lanes, g.inner - c0);
        read_piece(g, in, o, c0, width, s, len, e.data());
        correlate_piece(e.data(), a.data(), len * g.lanes, g.lanes, w, sym, divisor);
        write_piece(g, a.data(), out, o, c0, width, s, len);
      }
    }
  }
}

}  // namespace

namespace {

// The checks both of the calls make.
void check_pass(dtype out_type, std::span<const double> weights, long origin, double divisor) {
  if (is_float(out_type))
    fail(errc::invalid_argument,
         "correlate1d_in_scipys_order: the output must be of an integer type, not " +
             std::string(name_of(out_type)));
  const std::size_t k = weights.size();
  if (k == 0) fail(errc::invalid_argument, "correlate1d_in_scipys_order: the weights are empty");
  const long lo = -long(k / 2), hi = long(k - 1) / 2;
  if (origin < lo || origin > hi)
    fail(errc::invalid_argument, "correlate1d_in_scipys_order: invalid origin " +
                                     std::to_string(origin) + " for " + std::to_string(k) +
                                     " taps (SciPy's range: " + std::to_string(lo) + " to " +
                                     std::to_string(hi) + ")");
  if (!(divisor > 0) || !std::isfinite(divisor))
    fail(errc::invalid_argument, "correlate1d_in_scipys_order: the divisor must be above 0");
}

// Whether count elements of in_type at `in` and of out_type at `out` share any byte.
bool overlap(const void* in, dtype in_type, const void* out, dtype out_type, std::size_t count) {
  const auto* a = static_cast<const unsigned char*>(in);
  const auto* b = static_cast<const unsigned char*>(out);
  return a < b + count * size_of(out_type) && b < a + count * size_of(in_type);
}

}  // namespace

void correlate1d_in_scipys_order(backend where, dtype in_type, const void* in, dtype out_type,
                                 void* out, std::size_t outer, std::size_t n, std::size_t inner,
                                 std::span<const double> weights, long origin, boundary mode,
                                 double cval, double divisor) {
  if (where != backend::seq && where != backend::cpu)
    fail(errc::invalid_argument,
         "correlate1d_in_scipys_order: host backends only (seq, cpu), not " +
             std::string(name_of(where)) + "; GPU arrays: correlate1d_in_scipys_order_device");
  check_pass(out_type, weights, origin, divisor);
  const std::size_t k = weights.size();
  if (outer == 0 || n == 0 || inner == 0) return;
  geometry g{outer, n, inner, k, long(k / 2) + origin, 1, 0, mode, cval};
  // Along the last axis a piece is a stretch of one line; along another, up to 64 neighbouring
  // columns together (a cache line of bytes), so that each row of the piece is read whole.
  g.lanes = std::min<std::size_t>(inner, 64);
  g.seg = std::max<std::size_t>(64, 8192 / g.lanes);
  const std::size_t count = outer * n * inner;
  std::vector<unsigned char> copy;
  if (in == out && in_type == out_type) {
    // In place (SciPy's passes after the first write into their output): a piece is whole
    // lines, read into its buffer before any of them is written, and no two pieces share a
    // line. Lines past a buffer of 2^20 values: the input copied first instead.
    constexpr std::size_t most = std::size_t(1) << 20;
    if (n <= most) {
      g.seg = n;
      g.lanes = std::max<std::size_t>(1, std::min(g.lanes, most / n));
    } else {
      const auto* bytes = static_cast<const unsigned char*>(in);
      copy.assign(bytes, bytes + count * size_of(in_type));
      in = copy.data();
    }
  } else if (overlap(in, in_type, out, out_type, count)) {
    fail(errc::invalid_argument, "correlate1d_in_scipys_order: the input and the output overlap "
                                 "(only the same array of one type may be both)");
  }
  const int sym = detail::scipy_symmetry(weights);
  visit_dtype(in_type, [&](auto t) {
    using T = decltype(t);
    visit_dtype(out_type, [&](auto u) {
      using U = decltype(u);
      if constexpr (std::is_integral_v<U>)
        run_pass(g, static_cast<const T*>(in), static_cast<U*>(out), weights, sym, divisor,
                 where == backend::cpu);
    });
  });
}

void correlate1d_in_scipys_order_device(dtype in_type, const void* in, dtype out_type, void* out,
                                        std::size_t outer, std::size_t n, std::size_t inner,
                                        std::span<const double> weights, long origin, boundary mode,
                                        double cval, double divisor) {
  check_pass(out_type, weights, origin, divisor);
  if (in_type != out_type && in_type != dtype::f64)
    fail(errc::invalid_argument, "correlate1d_in_scipys_order_device: the input must be of the "
                                 "output's type or float64, not " +
                                     std::string(name_of(in_type)) + " into " +
                                     std::string(name_of(out_type)));
  detail::require_backend(backend::cuda);
  detail::executor& ex = detail::executor_for(backend::cuda);
  const std::size_t count = outer * n * inner;
  if (count == 0) return;
  if (!ex.holds(in) || !ex.holds(out))
    fail(errc::invalid_argument, "correlate1d_in_scipys_order_device: the input and the output "
                                 "must be device memory");
  if (overlap(in, in_type, out, out_type, count))
    fail(errc::invalid_argument, "correlate1d_in_scipys_order_device: the input and the output "
                                 "overlap (a thread's taps would read answers)");
  const detail::buffer w = detail::buffer::in_stream_order(ex, weights.size() * sizeof(double));
  ex.copy_in(w.get(), weights.data(), weights.size() * sizeof(double));
  detail::scipy_order_pass_device(in_type, in, out_type, out, outer, n, inner, w.as<double>(),
                                  weights.size(), origin, detail::scipy_symmetry(weights), mode,
                                  cval, divisor, ex.stream());
  ex.finish_in_place();
}

}  // namespace pplab
