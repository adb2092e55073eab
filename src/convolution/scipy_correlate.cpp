// scipy.ndimage.correlate's arithmetic for arrays of any rank (pplab/convolution.hpp,
// correlate_in_scipys_order). SciPy's NI_Correlate keeps the weights of magnitude above
// DBL_EPSILON, in C order, and for each answer starts a double at 0 and adds weight times input
// for each in turn, then converts the double to the output's type. An integer output truncates,
// so an answer within a rounding of a whole number is decided by the order of the adds; a float
// output's last bit too. This pass adds in that order, each product and sum rounded on its own
// (this file is built without contracting a * b + c into one FMA), and gets SciPy's answers
// bit for bit, faster: many answers at once along the last axis (vectors, threads).
//
// A piece of work is a stretch of one output line (along the last axis). Each nonzero weight
// names an input line (its indices on the axes before the last, moved by the output line's)
// and a shift along it. The piece reads each input line it needs once, extended along the last
// axis as the mode says, into a row of doubles; then each weight in C order adds its row,
// shifted, times the weight, into the piece's answers.
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
#include "core/visit.hpp"
#include "pplab/convolution.hpp"
#include "pplab/device.hpp"
#include "pplab/error.hpp"
#include "pplab/interrupt.hpp"

namespace pplab {
namespace {

struct tap {
  std::size_t row;  // the piece's row of input this weight reads (its leading indices')
  std::size_t j;    // its index on the last axis: the shift along the row
  double w;
};

struct plan {
  std::vector<std::size_t> shape;          // the array's
  std::vector<std::int64_t> before;        // per axis: the weights' side / 2 + origin
  std::vector<std::int64_t> leads;         // per row: the weights' indices before the last axis
  std::vector<tap> taps;                   // in the weights' C order
  std::size_t rows = 0, n = 1, lines = 1;  // rows per piece; the last axis; the output's lines
  std::size_t k = 1, seg = 1;              // the weights' last side; a piece's answers at most
  boundary mode = boundary::reflect;
  double cval = 0;
};

plan make_plan(std::span<const std::size_t> shape, std::span<const double> weights,
               std::span<const std::size_t> wshape, std::span<const long> origins, boundary mode,
               double cval) {
  const std::string what = "correlate_in_scipys_order: ";
  const std::size_t d = shape.size();
  if (d == 0) fail(errc::invalid_argument, what + "the array has no axis");
  if (wshape.size() != d || origins.size() != d)
    fail(errc::invalid_argument, what +
                                     "the weights and the origins need one entry per axis of "
                                     "the array (" +
                                     std::to_string(d) + "), not " + std::to_string(wshape.size()) +
                                     " and " + std::to_string(origins.size()));
  std::size_t count = 1;
  for (std::size_t a = 0; a < d; ++a) {
    const std::size_t k = wshape[a];
    if (k == 0) fail(errc::invalid_argument, what + "the weights are empty");
    const long lo = -long(k / 2), hi = long(k - 1) / 2;
    if (origins[a] < lo || origins[a] > hi)
      fail(errc::invalid_argument,
           what + "invalid origin " + std::to_string(origins[a]) + " on axis " + std::to_string(a) +
               " for " + std::to_string(k) + " weights (SciPy's range: " + std::to_string(lo) +
               " to " + std::to_string(hi) + ")");
    count *= k;
  }
  if (count != weights.size())
    fail(errc::invalid_argument, what + "the weights' shape holds " + std::to_string(count) +
                                     " values, not " + std::to_string(weights.size()));
  plan p;
  p.shape.assign(shape.begin(), shape.end());
  for (std::size_t a = 0; a < d; ++a) p.before.push_back(std::int64_t(wshape[a] / 2) + origins[a]);
  p.n = shape[d - 1];
  p.k = wshape[d - 1];
  for (std::size_t a = 0; a + 1 < d; ++a) p.lines *= shape[a];
  p.mode = mode, p.cval = cval;
  // The weights SciPy keeps, in C order; a row for each run of them with the same leading
  // indices (a C-order walk meets each such run once, as one stretch).
  constexpr double eps = std::numeric_limits<double>::epsilon();
  std::size_t last_lead = count;  // none yet
  for (std::size_t i = 0; i < count; ++i) {
    if (!(std::fabs(weights[i]) > eps)) continue;  // NaN too, as SciPy's test drops it
    const std::size_t lead = i / p.k;
    if (lead != last_lead) {
      last_lead = lead;
      ++p.rows;
      const std::size_t at = p.leads.size();
      p.leads.resize(at + d - 1);
      std::size_t rest = lead;
      for (std::size_t a = d - 1; a-- > 0;) {
        p.leads[at + a] = std::int64_t(rest % wshape[a]);
        rest /= wshape[a];
      }
    }
    p.taps.push_back({p.rows - 1, i % p.k, weights[i]});
  }
  // A piece's rows of input stay within the second-level cache (about 128 KiB of them) and its
  // answers within the first.
  const std::size_t per_row =
      std::max<std::size_t>(1, (std::size_t(1) << 14) / std::max<std::size_t>(p.rows, 1));
  p.seg = std::min(p.n, std::clamp<std::size_t>(per_row, 64, 1024));
  return p;
}

// The piece's row r: input line `line` (its index among the lines before the last axis, or
// none: constant mode's cval) from last-axis position s - before, len + k - 1 values, as doubles.
template <class T>
void read_row(const plan& p, const void* array, bool inside, std::size_t line, std::size_t s,
              std::size_t len, double* e) {
  const std::size_t count = len + p.k - 1;
  if (!inside) {
    std::fill(e, e + count, p.cval);
    return;
  }
  detail::read_extended(static_cast<const T*>(array) + line * p.n, 1, 1, 1,
                        std::int64_t(s) - p.before.back(), std::int64_t(p.n), count, p.mode, p.cval,
                        e);
}

// Answers as C converts them to U (SciPy's output), at element `at` of the output.
template <class U>
void write_answers(const double* a, void* array, std::size_t at, std::size_t len) {
  U* dst = static_cast<U*>(array) + at;
  for (std::size_t i = 0; i < len; ++i) {
    if constexpr (std::is_integral_v<U>) dst[i] = detail::scipy_integer<U>(a[i]);
    else dst[i] = U(a[i]);
  }
}

// The input type's reader and the output type's writer are the only typed parts: one of each
// per type, not one run per pair.
using row_reader = void (*)(const plan&, const void*, bool, std::size_t, std::size_t, std::size_t,
                            double*);
using answer_writer = void (*)(const double*, void*, std::size_t, std::size_t);

void run(const plan& p, const void* in, row_reader read, void* out, answer_writer write,
         bool threads) {
  const std::size_t d = p.shape.size(), segs = (p.n + p.seg - 1) / p.seg;
  const std::size_t pieces = p.lines * segs, stride = p.seg + p.k - 1;
  // Waves of about 2^22 answers, the interrupt asked between them on this thread.
  const std::size_t per_wave = std::max<std::size_t>(
      1, (std::size_t(1) << 22) / (p.seg * std::max<std::size_t>(1, p.taps.size())));
  for (std::size_t w0 = 0; w0 < pieces; w0 += per_wave) {
    if (w0) stop_if_interrupted();
    const std::size_t w1 = std::min(pieces, w0 + per_wave);
#pragma omp parallel if (threads && w1 - w0 > 1)
    {
      std::vector<double> e(std::max<std::size_t>(p.rows, 1) * stride), a(p.seg);
      std::vector<std::int64_t> at(d);  // the output line's indices before the last axis
#pragma omp for schedule(dynamic, 1)
      for (std::size_t piece = w0; piece < w1; ++piece) {
        const std::size_t line = piece / segs, s = (piece % segs) * p.seg;
        const std::size_t len = std::min(p.seg, p.n - s);
        std::size_t rest = line;
        for (std::size_t a_ = d - 1; a_-- > 0;) {
          at[a_] = std::int64_t(rest % p.shape[a_]);
          rest /= p.shape[a_];
        }
        for (std::size_t r = 0; r < p.rows; ++r) {
          bool inside = true;
          std::size_t from = 0;
          for (std::size_t a_ = 0; a_ + 1 < d; ++a_) {
            const std::int64_t q =
                detail::boundary_index(at[a_] + p.leads[r * (d - 1) + a_] - p.before[a_],
                                       std::int64_t(p.shape[a_]), p.mode);
            inside = inside && q >= 0;
            from = from * p.shape[a_] + std::size_t(std::max<std::int64_t>(q, 0));
          }
          read(p, in, inside, from, s, len, e.data() + r * stride);
        }
        double* ans = a.data();
        std::fill(ans, ans + len, 0.0);
        for (const tap& t : p.taps) {
          const double* x = e.data() + t.row * stride + t.j;
          const double w = t.w;
          for (std::size_t i = 0; i < len; ++i) ans[i] += w * x[i];
        }
        write(ans, out, line * p.n + s, len);
      }
    }
  }
}

// Host arrays on the GPU: the input and the output in device memory whole, the device call
// between the copies (its answers are the host's, bit for bit). An input of neither the
// output's type nor float64 goes as float64 (the device call reads those two), widened here.
void on_the_gpu(dtype in_type, const void* in, dtype out_type, void* out, std::size_t count,
                std::span<const std::size_t> shape, std::span<const double> weights,
                std::span<const std::size_t> weights_shape, std::span<const long> origins,
                boundary mode, double cval) {
  detail::require_backend(backend::cuda);
  detail::executor& ex = detail::executor_for(backend::cuda);
  std::vector<double> widened;
  if (in_type != out_type && in_type != dtype::f64) {
    widened.resize(count);
    visit_dtype(in_type, [&](auto t) {
      const auto* x = static_cast<const decltype(t)*>(in);
      for (std::size_t i = 0; i < count; ++i) widened[i] = double(x[i]);
    });
    in_type = dtype::f64, in = widened.data();
  }
  const std::size_t in_bytes = count * size_of(in_type), out_bytes = count * size_of(out_type);
  const detail::buffer din(ex, in_bytes), dout(ex, out_bytes);
  ex.copy_in(din.get(), in, in_bytes);
  correlate_in_scipys_order_device(in_type, din.get(), out_type, dout.get(), shape, weights,
                                   weights_shape, origins, mode, cval);
  ex.copy_out(out, dout.get(), out_bytes);
  ex.synchronize();
}

}  // namespace

void correlate_in_scipys_order(backend where, dtype in_type, const void* in, dtype out_type,
                               void* out, std::span<const std::size_t> shape,
                               std::span<const double> weights,
                               std::span<const std::size_t> weights_shape,
                               std::span<const long> origins, boundary mode, double cval) {
  if (where != backend::seq && where != backend::cpu && where != backend::cuda)
    fail(errc::invalid_argument,
         "correlate_in_scipys_order: host arrays on seq, cpu or cuda, not " +
             std::string(name_of(where)) + " (GPU arrays: correlate_in_scipys_order_device)");
  const plan p = make_plan(shape, weights, weights_shape, origins, mode, cval);
  const std::size_t count = p.lines * p.n;
  if (count == 0) return;
  const auto* a = static_cast<const unsigned char*>(in);
  const auto* b = static_cast<const unsigned char*>(out);
  if (a < b + count * size_of(out_type) && b < a + count * size_of(in_type))
    fail(errc::invalid_argument, "correlate_in_scipys_order: the input and the output overlap "
                                 "(SciPy filters into a new array and copies)");
  if (where == backend::cuda)
    return on_the_gpu(in_type, in, out_type, out, count, shape, weights, weights_shape, origins,
                      mode, cval);
  row_reader read = nullptr;
  answer_writer write = nullptr;
  visit_dtype(in_type, [&](auto t) { read = &read_row<decltype(t)>; });
  visit_dtype(out_type, [&](auto u) { write = &write_answers<decltype(u)>; });
  run(p, in, read, out, write, where == backend::cpu);
}

void correlate_in_scipys_order_device(dtype in_type, const void* in, dtype out_type, void* out,
                                      std::span<const std::size_t> shape,
                                      std::span<const double> weights,
                                      std::span<const std::size_t> weights_shape,
                                      std::span<const long> origins, boundary mode, double cval) {
  const std::string what = "correlate_in_scipys_order_device: ";
  const plan p = make_plan(shape, weights, weights_shape, origins, mode, cval);
  const std::size_t d = shape.size();
  if (d > std::size_t(detail::scipy_correlate_max_rank))
    fail(errc::invalid_argument, what + "arrays of up to " +
                                     std::to_string(detail::scipy_correlate_max_rank) +
                                     " axes on the GPU, not " + std::to_string(d));
  if (in_type != out_type && in_type != dtype::f64)
    fail(errc::invalid_argument, what + "the input must be of the output's type or float64, not " +
                                     std::string(name_of(in_type)) + " into " +
                                     std::string(name_of(out_type)));
  detail::require_backend(backend::cuda);
  detail::executor& ex = detail::executor_for(backend::cuda);
  const std::size_t count = p.lines * p.n;
  if (count == 0) return;
  if (!ex.holds(in) || !ex.holds(out))
    fail(errc::invalid_argument, what + "the input and the output must be device memory");
  const auto* a = static_cast<const unsigned char*>(in);
  const auto* b = static_cast<const unsigned char*>(out);
  if (a < b + count * size_of(out_type) && b < a + count * size_of(in_type))
    fail(errc::invalid_argument, what + "the input and the output overlap");
  // The kept weights in C order (the host plan's taps), each with its index on every axis and
  // its offset from its answer's window's first element.
  detail::scipy_correlate_geometry g{};
  g.rank = int(d), g.count = count, g.taps = p.taps.size(), g.mode = mode, g.cval = cval;
  for (std::size_t a_ = 0; a_ < d; ++a_) {
    g.shape[a_] = shape[a_];
    g.before[a_] = p.before[a_];
    g.side[a_] = std::int64_t(weights_shape[a_]);
  }
  std::vector<double> w;
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> indices;
  for (const tap& t : p.taps) {
    w.push_back(t.w);
    std::int64_t offset = 0;
    for (std::size_t a_ = 0; a_ < d; ++a_) {
      const std::int64_t j = a_ + 1 < d ? p.leads[t.row * (d - 1) + a_] : std::int64_t(t.j);
      indices.push_back(std::int32_t(j));
      offset = offset * std::int64_t(shape[a_]) + j;
    }
    offsets.push_back(offset);
  }
  std::vector<std::int32_t> map;  // each axis's table of the mode
  for (std::size_t a_ = 0; a_ < d; ++a_) {
    if (shape[a_] + weights_shape[a_] >= (std::size_t(1) << 31))
      fail(errc::invalid_argument, what + "an axis of 2^31 elements or more on the GPU");
    g.map_at[a_] = std::int64_t(map.size());
    for (std::size_t at = 0; at + 1 < shape[a_] + weights_shape[a_]; ++at)
      map.push_back(std::int32_t(
          detail::boundary_index(std::int64_t(at) - p.before[a_], std::int64_t(shape[a_]), mode)));
  }
  const std::size_t bytes = w.size() * (sizeof(double) + sizeof(std::int64_t)) +
                            (indices.size() + map.size()) * sizeof(std::int32_t);
  const detail::buffer taps = detail::buffer::in_stream_order(ex, std::max<std::size_t>(bytes, 8));
  auto* dw = taps.as<double>();
  auto* doff = reinterpret_cast<std::int64_t*>(dw + w.size());
  auto* didx = reinterpret_cast<std::int32_t*>(doff + w.size());
  ex.copy_in(dw, w.data(), w.size() * sizeof(double));
  ex.copy_in(doff, offsets.data(), offsets.size() * sizeof(std::int64_t));
  ex.copy_in(didx, indices.data(), indices.size() * sizeof(std::int32_t));
  std::int32_t* dmap = didx + indices.size();
  ex.copy_in(dmap, map.data(), map.size() * sizeof(std::int32_t));
  detail::scipy_correlate_device(in_type, in, out_type, out, g, dw, doff, didx, dmap, ex.stream());
  ex.finish_in_place();
}

}  // namespace pplab
