// One body for every registered histogram rung: every dtype, natural and ranged bins, half-open
// and closed last bins, values on the edges, outside the range, infinities and NaN, awkward
// sizes. The reference here finds each bin by binary search over the edges, independently of
// the rungs' multiply-and-correct binning. Counts must match exactly.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/generate.hpp"
#include "core/pieces.hpp"
#include "core/run.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

using detail::histogram_problem;
using detail::histogram_rung;

class Histogram : public ::testing::TestWithParam<const histogram_rung*> {};

// NumPy's float32 edges (edge_rule::f32_rounded or f32_arithmetic) and a binary search in float.
std::vector<std::uint64_t> float_edge_reference(const histogram_problem& p, const float* x) {
  std::vector<std::uint64_t> out(p.bins + 3, 0);
  std::vector<float> edges(p.bins + 1);
  const float lo = float(p.lo), hi = float(p.hi), step_f = (hi - lo) / float(p.bins);
  const double step = (p.hi - p.lo) / double(p.bins);
  for (std::size_t i = 0; i < p.bins; ++i)
    edges[i] = p.edges == edge_rule::f32_arithmetic ? float(i) * step_f + lo
                                                    : float(double(i) * step + p.lo);
  edges[p.bins] = hi;
  for (std::size_t i = 0; i < p.n; ++i) {
    const float v = x[i];
    if (std::isnan(v)) ++out[p.bins + 2];
    else if (v < lo) ++out[p.bins];
    else if (v > hi || (v == hi && !p.closed_last)) ++out[p.bins + 1];
    else if (v == hi) ++out[p.bins - 1];
    else ++out[std::size_t(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1];
  }
  return out;
}

std::vector<std::uint64_t> reference(const histogram_problem& p, const void* data) {
  if (p.edges != edge_rule::f64) return float_edge_reference(p, static_cast<const float*>(data));
  std::vector<std::uint64_t> out(p.bins + 3, 0);
  std::vector<double> edges(p.bins + 1);
  const double step = (p.hi - p.lo) / double(p.bins);
  for (std::size_t i = 0; i < p.bins; ++i) edges[i] = double(i) * step + p.lo;
  edges[p.bins] = p.hi;
  visit_dtype(p.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(data);
    for (std::size_t i = 0; i < p.n; ++i) {
      const double v = double(x[i]);
      if (std::isnan(v)) ++out[p.bins + 2];
      else if (v < p.lo) ++out[p.bins];
      else if (v > p.hi || (v == p.hi && !p.closed_last)) ++out[p.bins + 1];
      else if (v == p.hi) ++out[p.bins - 1];
      else ++out[std::size_t(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1];
    }
  });
  return out;
}

// Data for a ranged problem: mostly inside [lo, hi), some outside, some exactly on edges, and
// for floats infinities and NaN.
void fill(const histogram_problem& p, std::vector<std::byte>& buf, std::mt19937_64& rng) {
  detail::generate(p.type, buf.data(), p.n, detail::distribution::uniform, rng());
  if (p.natural) return;
  const double width = p.hi - p.lo, step = width / double(p.bins);
  visit_dtype(p.type, [&](auto tag) {
    using T = decltype(tag);
    T* x = reinterpret_cast<T*>(buf.data());
    std::uniform_real_distribution<double> u(p.lo - 0.2 * width, p.hi + 0.2 * width);
    for (std::size_t i = 0; i < p.n; ++i) {
      double v;
      switch (rng() % 8) {
      case 0:
        v = double(rng() % (p.bins + 1)) * step + p.lo;
        if (p.edges != edge_rule::f64) {  // NumPy's float32 edge, or a float beside it
          v = double(
              detail::f32_edges(p.lo, p.hi, p.bins, p.edges)(unsigned(rng() % (p.bins + 1))));
          if (rng() % 3 == 0) v = std::nextafter(float(v), rng() & 1 ? INFINITY : -INFINITY);
        }
        break;  // an edge
      case 1:
        v = p.hi;
        break;
      default:
        v = u(rng);
      }
      if constexpr (std::is_floating_point_v<T>) {
        if (rng() % 50 == 0) v = std::numeric_limits<double>::quiet_NaN();
        if (rng() % 97 == 0) v = (rng() & 1 ? 1 : -1) * std::numeric_limits<double>::infinity();
        x[i] = T(v);
      } else {
        v = std::clamp(std::floor(v), double(std::numeric_limits<T>::lowest()),
                       double(std::numeric_limits<T>::max()));
        x[i] = T(v);
      }
    }
  });
}

void check(const histogram_rung& r, const histogram_problem& p, std::mt19937_64& rng) {
  if (!r.can_run(p)) return;
  SCOPED_TRACE(std::string(name_of(p.type)) + " n=" + std::to_string(p.n) +
               " bins=" + std::to_string(p.bins) + (p.natural ? " natural" : "") +
               (p.closed_last ? " closed" : "") + " edges " + std::to_string(int(p.edges)));
  std::vector<std::byte> data(p.n * size_of(p.type) + 1);
  fill(p, data, rng);
  std::vector<std::uint64_t> got(p.bins + 3, 0xdeadbeefull);  // poisoned: every slot is written
  detail::run_rung(r, p, data.data(), got.data());
  const std::vector<std::uint64_t> want = reference(p, data.data());
  ASSERT_EQ(got.size(), want.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
  EXPECT_EQ(wrong, 0u) << "underflow " << got[p.bins] << "/" << want[p.bins] << ", overflow "
                       << got[p.bins + 1] << "/" << want[p.bins + 1] << ", nan " << got[p.bins + 2]
                       << "/" << want[p.bins + 2];
}

TEST_P(Histogram, EveryDtypeAndAwkwardSize) {
  const histogram_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  if (r.info.racy) GTEST_SKIP() << "racy on purpose: loses counts (see its header comment)";
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : awkward_sizes(rng))
    for (dtype t : all_dtypes) {
      const bool small_int = !is_float(t) && size_of(t) <= 2;
      if (small_int) {
        const std::size_t bins = std::size_t(1) << (8 * size_of(t));
        const double lo = is_signed_int(t) ? -double(bins / 2) : 0;
        check(r, {t, n, bins, lo, lo + double(bins), false, true}, rng);
      }
      const std::size_t bins = 1 + rng() % 1000;
      const double lo = is_float(t) ? -3.25 : 7, hi = is_float(t) ? 11.5 : 100;
      check(r, {t, n, bins, lo, hi, bool(rng() & 1), false}, rng);
      check(r, {t, n, 1, lo, hi, false, false}, rng);
      if (!is_float(t)) {  // bins one wide from 0 (numpy.bincount's)
        const std::size_t top = 1 + rng() % 300;
        check(r, {t, n, top, 0, double(top), bool(rng() & 1), false}, rng);
      }
      if (t == dtype::f32)  // NumPy's float32 edges, both ways of computing them
        for (edge_rule e : {edge_rule::f32_rounded, edge_rule::f32_arithmetic})
          check(r, {t, n, bins, -2.5, 0.1, bool(rng() & 1), false, e}, rng);
    }
}

// Bins given as an array of edges, and weights: the reference finds each bin with
// std::upper_bound over the edges and sums the weights in long double; counts must match exactly,
// sums to within double rounding of the slot's sum of |weights|, and a second run must give the
// same bits (the rungs promise reproducible sums).
struct edge_weight_case {
  std::vector<double> edges;
  std::vector<std::byte> data;
  std::vector<double> weights_f64;  // the weights as given (f64) or as f32 rounds them
  std::vector<float> weights_f32;
};

std::size_t edge_slot(const histogram_problem& p, const std::vector<double>& e, double v) {
  if (std::isnan(v)) return p.bins + 2;
  if (v < e.front()) return p.bins;
  if (v > e.back()) return p.bins + 1;
  if (v == e.back()) return p.bins - 1;
  return std::size_t(std::upper_bound(e.begin(), e.end(), v) - e.begin()) - 1;
}

// `given`: the edges of an edge-array problem (its bins), the data drawn around them; else
// random edges.
void check_edges_and_weights(const histogram_rung& r, histogram_problem p, std::mt19937_64& rng,
                             const std::vector<double>& given = {}) {
  if (!given.empty()) p.bins = given.size() - 1;
  if (!r.can_run(p)) return;
  SCOPED_TRACE(std::string(name_of(p.type)) + " n=" + std::to_string(p.n) +
               " bins=" + std::to_string(p.bins) + (p.edge_array ? " edge array" : "") +
               (p.weighted ? " weights " + std::string(name_of(p.weight_type)) : ""));
  edge_weight_case c;
  const double width = given.empty() ? 0 : given.back() - given.front();
  std::uniform_real_distribution<double> u(given.empty() ? -50 : given.front() - width / 8,
                                           given.empty() ? 150 : given.back() + width / 8);
  if (p.edge_array) {
    c.edges.resize(p.bins + 1);
    // Some repeat; some are not floats (float32 data meets them in double, as NumPy's).
    for (double& e : c.edges) e = rng() & 1 ? std::floor(u(rng) * 4) / 4 : u(rng);
    if (!given.empty()) c.edges = given;
    std::sort(c.edges.begin(), c.edges.end());
    p.lo = c.edges.front(), p.hi = c.edges.back(), p.closed_last = true;
  }
  c.data.resize(p.n * size_of(p.type) + 1);
  visit_dtype(p.type, [&](auto tag) {
    using T = decltype(tag);
    T* x = reinterpret_cast<T*>(c.data.data());
    for (std::size_t i = 0; i < p.n; ++i) {
      double v = rng() % 5 == 0 && p.edge_array ? c.edges[rng() % c.edges.size()] : u(rng);
      if constexpr (std::is_floating_point_v<T>) {
        if (p.edge_array && rng() % 5 == 0)  // the floats on either side of an edge
          v = double(std::nextafter(T(v), rng() & 1 ? T(INFINITY) : -T(INFINITY)));
        if (rng() % 61 == 0) v = std::numeric_limits<double>::quiet_NaN();
        if (rng() % 67 == 0) v = (rng() & 1 ? 1 : -1) * std::numeric_limits<double>::infinity();
        x[i] = T(v);
      } else {
        x[i] = T(std::clamp(std::floor(v), double(std::numeric_limits<T>::lowest()),
                            double(std::numeric_limits<T>::max())));
      }
    }
  });
  // Weights: of mixed sign and size, some zero, and (rarely) infinite or NaN.
  std::normal_distribution<double> g;
  c.weights_f64.resize(p.n);
  for (double& w : c.weights_f64) {
    w = rng() % 7 == 0 ? 0.0 : g(rng) * std::ldexp(1.0, int(rng() % 20) - 10);
    if (p.n > 1000 && rng() % 4001 == 0)
      w = rng() % 3 == 0 ? std::numeric_limits<double>::quiet_NaN()
                         : (rng() & 1 ? 1 : -1) * std::numeric_limits<double>::infinity();
    if (p.weight_type == dtype::f32) w = double(float(w));
  }
  c.weights_f32.assign(c.weights_f64.begin(), c.weights_f64.end());
  const void* weights = !p.weighted ? nullptr
                        : p.weight_type == dtype::f32
                            ? static_cast<const void*>(c.weights_f32.data())
                            : c.weights_f64.data();
  // The reference.
  std::vector<std::uint64_t> counts(p.bins + 3, 0);
  std::vector<long double> sums(p.bins + 3, 0), magnitude(p.bins + 3, 0);
  const detail::range_binner even(p);
  visit_dtype(p.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = reinterpret_cast<const T*>(c.data.data());
    for (std::size_t i = 0; i < p.n; ++i) {
      const std::size_t s = p.edge_array ? edge_slot(p, c.edges, double(x[i]))
                            : p.natural  ? std::size_t(std::int64_t(x[i]) - std::int64_t(p.lo))
                                         : even(x[i]);
      ++counts[s];
      sums[s] += c.weights_f64[i];
      magnitude[s] += std::fabs(c.weights_f64[i]);
    }
  });
  const detail::histogram_data in(c.data.data(), weights, c.edges.data());
  std::vector<std::uint64_t> got(p.bins + 3, 0xdeadbeefull), again(p.bins + 3, 1);
  detail::run_rung(r, p, in, got.data());
  if (!p.weighted) {
    EXPECT_EQ(got, counts);
    return;
  }
  detail::run_rung(r, p, in, again.data());
  EXPECT_EQ(got, again) << "the sums' bits changed from one run to the next";
  std::size_t wrong = 0;
  for (std::size_t s = 0; s < got.size(); ++s) {
    double v = 0;
    std::memcpy(&v, &got[s], 8);
    const long double want = sums[s];
    const bool ok = std::isnan(double(want)) ? std::isnan(v)
                    : std::isinf(double(want))
                        ? v == double(want)
                        : std::fabs(v - double(want)) <= 1e-12 * double(magnitude[s]) + 1e-300;
    if (!ok && wrong++ < 5) ADD_FAILURE() << "slot " << s << ": " << v << ", want " << double(want);
  }
  EXPECT_EQ(wrong, 0u);
}

TEST_P(Histogram, ArraysOfEdgesAndWeights) {
  const histogram_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  if (r.info.racy) GTEST_SKIP() << "racy on purpose";
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : awkward_sizes(rng))
    for (dtype t : {dtype::f32, dtype::f64, dtype::i32, dtype::u8, dtype::i64}) {
      const std::size_t bins = 1 + rng() % 700;
      for (bool weighted : {false, true})
        for (dtype w : {dtype::f32, dtype::f64}) {
          if (!weighted && w == dtype::f32) continue;
          histogram_problem edges{t, n, bins, 0, 0, true, false};
          edges.edge_array = true, edges.weighted = weighted, edges.weight_type = w;
          check_edges_and_weights(r, edges, rng);
          if (!weighted) continue;
          histogram_problem even{t, n, bins, -20, 120.5, bool(rng() & 1), false};
          even.weighted = true, even.weight_type = w;
          check_edges_and_weights(r, even, rng);
          if (!is_float(t)) {  // numpy.bincount's bins: one wide from 0
            histogram_problem unit{t, n, 90, 0, 90, false, false};
            unit.weighted = true, unit.weight_type = w;
            check_edges_and_weights(r, unit, rng);
          }
          if (t == dtype::u8) {  // natural bins, as bincount of bytes
            histogram_problem natural{t, n, 256, 0, 256, false, true};
            natural.weighted = true, natural.weight_type = w;
            check_edges_and_weights(r, natural, rng);
          }
        }
    }
  // Weights into more slots than a block's shared memory holds (numpy.bincount into 65536 bins):
  // floats spread over all of them, integers crowded into the first 150.
  for (dtype w : {dtype::f32, dtype::f64}) {
    histogram_problem spread{dtype::f32, 300007, 65533, -20, 120.5, false, false};
    spread.weighted = true, spread.weight_type = w;
    check_edges_and_weights(r, spread, rng);
    histogram_problem crowded{dtype::i64, 100003, 65536, 0, 65536, false, false};
    crowded.weighted = true, crowded.weight_type = w;
    check_edges_and_weights(r, crowded, rng);
  }
  // One bin, and many edges.
  histogram_problem one{dtype::f64, 5000, 1, 0, 0, true, false};
  one.edge_array = true;
  check_edges_and_weights(r, one, rng);
  histogram_problem many{dtype::f32, 100003, 20000, 0, 0, true, false};
  many.edge_array = true, many.weighted = true, many.weight_type = dtype::f32;
  check_edges_and_weights(r, many, rng);
  many.weighted = false;
  check_edges_and_weights(r, many, rng);
  histogram_problem mid{dtype::f32, 100003, 3000, 0, 0, true, false};  // float tables that fit
  mid.edge_array = true;
  check_edges_and_weights(r, mid, rng);
  // Edges whose span overflows a float (no cell estimate), edges a float apart, edges a few
  // cells apart and edges crowded in one cell.
  std::vector<double> close, crowded;
  for (int i = 0; i < 64; ++i)
    close.push_back(double(std::nextafter(1.0f + float(i) * 1.2e-7f, 2.0f)));
  for (int i = 0; i < 200; ++i) crowded.push_back(i < 150 ? 1e-4 * i : 0.015 + i);
  for (const auto& e : {std::vector<double>{-3e38, -1, 0, 2.5, 3e38}, close, crowded,
                        std::vector<double>{-1e-40, 0, 1e-45, 1e-40}}) {
    histogram_problem given{dtype::f32, 30011, 0, 0, 0, true, false};
    given.edge_array = true;
    check_edges_and_weights(r, given, rng, e);
  }
}

// h19 adds h15's terms in another order and grouping, exactly: the same bits, weights of every
// size from 2^-40 to 2^40 and both signs, some infinite or NaN, spread over 65536 bins or
// crowded into a few.
TEST(HistogramRungs, PartitionedWeightsGiveTheGlobalRungsBits) {
  const histogram_rung* global =
      detail::find<histogram_rung>("histogram/cuda/h15_weighted_global_fixed_point");
  const histogram_rung* partitioned =
      detail::find<histogram_rung>("histogram/cuda/h19_weighted_partitioned");
  if (global == nullptr || partitioned == nullptr) GTEST_SKIP() << "no cuda module";
  PPLAB_SKIP_IF_UNAVAILABLE(partitioned->info);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  for (std::int64_t spread : {std::int64_t(70000), std::int64_t(7)})
    for (dtype w : {dtype::f32, dtype::f64}) {
      SCOPED_TRACE("values below " + std::to_string(spread) + ", weights " +
                   std::string(name_of(w)));
      histogram_problem p{dtype::i64, 1000003, 65536, 0, 65536, false, false};
      p.weighted = true, p.weight_type = w;
      std::vector<std::int64_t> x(p.n);
      std::vector<double> wd(p.n);
      std::vector<float> wf(p.n);
      for (std::size_t i = 0; i < p.n; ++i) {
        x[i] = std::int64_t(rng() % std::uint64_t(spread)) - (rng() % 1000 == 0 ? 100 : 0);
        wd[i] = rng() % 9 == 0 ? 0.0 : g(rng) * std::ldexp(1.0, int(rng() % 81) - 40);
        if (rng() % 100003 == 0)
          wd[i] = rng() & 1 ? std::numeric_limits<double>::quiet_NaN()
                            : std::numeric_limits<double>::infinity();
        wf[i] = float(wd[i]);
      }
      const void* weights = w == dtype::f32 ? static_cast<const void*>(wf.data()) : wd.data();
      const detail::histogram_data in(x.data(), weights, nullptr);
      std::vector<std::uint64_t> want(detail::slots(p), 1), got(detail::slots(p), 2);
      detail::run_rung(*global, p, in, want.data());
      detail::run_rung(*partitioned, p, in, got.data());
      EXPECT_EQ(got, want);
    }
  // One slot, one weight: its term 2^49 + 2^32 - 1 (all ones in bits 0-31), so that each of
  // h19's three 32-bit counters wraps within a block (the high one every 2^14 adds), each wrap
  // handed to the global sum; negated, the other way.
  for (double sign : {1.0, -1.0}) {
    SCOPED_TRACE("every value in slot 0, weight " + std::to_string(sign) + " x (1 + 2^-17)");
    histogram_problem p{dtype::i64, 1000003, 65536, 0, 65536, false, false};
    p.weighted = true, p.weight_type = dtype::f64;
    const std::vector<std::int64_t> x(p.n, 0);
    const std::vector<double> w(p.n, sign * (1.0 + std::ldexp(std::ldexp(1.0, 32) - 1, -49)));
    const detail::histogram_data in(x.data(), w.data(), nullptr);
    std::vector<std::uint64_t> want(detail::slots(p), 1), got(detail::slots(p), 2);
    detail::run_rung(*global, p, in, want.data());
    detail::run_rung(*partitioned, p, in, got.data());
    EXPECT_EQ(got, want);
    double sum = 0;
    std::memcpy(&sum, &got[0], 8);
    EXPECT_NEAR(sum, double(p.n) * w[0], 1e-15 * double(p.n));
  }
}

TEST_P(Histogram, ManyBins) {
  const histogram_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  if (r.info.racy) GTEST_SKIP() << "racy on purpose";
  std::mt19937_64 rng(fresh_seed());
  check(r, {dtype::f32, 300007, (std::size_t(1) << 20) + 1, 0, 1, true, false}, rng);
  check(r, {dtype::f64, 100003, std::size_t(1) << 24, -1, 1, false, false}, rng);
  check(r, {dtype::u32, 100003, 65536, 0, 1 << 20, false, false}, rng);
  check(r, {dtype::f32, 200003, 300000, -1, 1, false, false}, rng);  // a cluster of 16 on the GPU
  // Far from zero: floats too coarse for the slot estimate (h10 partitions by the exact slot).
  check(r, {dtype::f32, 100003, std::size_t(1) << 18, 1000, 1001, false, false}, rng);
  // NumPy's float32 edges at a million bins (as numpy.histogram of normal float32 data).
  for (edge_rule e : {edge_rule::f32_rounded, edge_rule::f32_arithmetic}) {
    check(r, {dtype::f32, 200003, 1000000, -5.25, 5.125, true, false, e}, rng);
    // Edges whose terms are exact floats, taken in float (torch.histc's range for normal data),
    // and a range whose edges are not, both decided within one bin by two comparisons.
    check(r, {dtype::f32, 200003, std::size_t(1) << 20, -4, 4, true, false, e}, rng);
    check(r, {dtype::f32, 200003, 65536, -4, 4, false, false, e}, rng);
    check(r, {dtype::f32, 200003, std::size_t(1) << 20, -4.1, 3.7, false, false, e}, rng);
  }
}

TEST_P(Histogram, SkewedDataCountsEveryElement) {
  const histogram_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  if (r.info.racy) GTEST_SKIP() << "racy on purpose";
  const std::size_t n = (std::size_t(1) << 21) + 5;
  std::vector<std::uint8_t> x(n);
  detail::generate(dtype::u8, x.data(), n, detail::distribution::skewed, fresh_seed());
  const histogram_problem p{dtype::u8, n, 256, 0, 256, false, true};
  if (!r.can_run(p)) GTEST_SKIP() << "counts no plain byte histogram";
  std::vector<std::uint64_t> got(259);
  detail::run_rung(r, p, x.data(), got.data());
  EXPECT_EQ(got, reference(p, x.data()));
}

// How often `fast` and the double binner disagree (by more than `by` slots) over 20000 floats of
// problem p: random values over the range and a tenth beyond, values on and a few float steps
// either side of random edges, lo and hi and their neighbours, infinities, NaN and both zeros.
template <class Fast>
std::size_t disagreements(const histogram_problem& p, std::mt19937_64& rng, double by = 0) {
  const detail::range_binner exact(p);
  const Fast fast(p);
  const double width = p.hi - p.lo;
  std::uniform_real_distribution<double> inside(p.lo - 0.1 * width, p.hi + 0.1 * width);
  std::size_t wrong = 0;
  const auto check = [&](float x) { wrong += std::fabs(double(fast(x)) - double(exact(x))) > by; };
  for (int k = 0; k < 20000; ++k) {
    float x = float(inside(rng));
    if (k % 3 == 0) {  // an edge, rounded to float, then nudged a few float steps
      x = float(exact.edge(rng() % (p.bins + 1)));
      for (int step = int(rng() % 7) - 3; step != 0; step += step > 0 ? -1 : 1)
        x = std::nextafter(x, step > 0 ? INFINITY : -INFINITY);
    }
    check(x);
  }
  for (float x : {float(p.lo), float(p.hi), std::nextafter(float(p.lo), -INFINITY),
                  std::nextafter(float(p.hi), INFINITY), std::nextafter(float(p.hi), -INFINITY),
                  INFINITY, -INFINITY, NAN, 0.0f, -0.0f, std::numeric_limits<float>::denorm_min(),
                  -std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::min()})
    check(x);
  return wrong;
}

// A random range: lo anywhere in [-1000, 1000] (or 0, or a whole number times a power of two),
// a width from 2^-10 to 2^20.
std::pair<double, double> random_range(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> where(-1000, 1000);
  double lo = rng() % 4 == 0 ? 0 : where(rng);
  const double width = std::ldexp(1.0 + where(rng) / 1000, int(rng() % 30) - 10);
  if (rng() % 4 == 0) lo = std::ldexp(std::round(lo), int(rng() % 8));
  return {lo, lo + width};
}

// A random f32 problem: 1 to 2^24 bins (a power of two or any count up to twice one) over
// random_range, the last bin open or closed.
histogram_problem random_float_problem(std::mt19937_64& rng) {
  const std::size_t bins = std::size_t(1) << (rng() % 25);
  const auto [lo, hi] = random_range(rng);
  const std::size_t nbins = rng() % 3 == 0 ? bins : 1 + rng() % (2 * bins);
  return {dtype::f32, 0, std::min(nbins, std::size_t(1) << 24), lo, hi, bool(rng() & 1), false};
}

// The float binner (float arithmetic away from edges, the double binner near them) gives every
// float the double binner's slot: random problems whose slack qualifies, every kind of value.
// Many values on the host are counted in parts (core/pieces.hpp): with parts made small, every
// seq and cpu rung gives the counts of one piece, outliers and NaN included, at sizes that are
// and are not whole parts.
TEST(HistogramParts, HostRungsCountTheSameInParts) {
  std::size_t& piece = detail::piece_elements();
  const std::size_t whole = piece;
  for (const histogram_rung& r : detail::rungs_of<detail::histogram_rung>()) {
    if ((r.info.where != backend::seq && r.info.where != backend::cpu) || r.info.racy) continue;
    for (const dtype t : {dtype::u8, dtype::f32, dtype::i32})
      for (const std::size_t n : {std::size_t(140000), std::size_t(65536 * 3 + 17)}) {
        const bool natural = t == dtype::u8;
        const detail::histogram_problem p{
            t,     n,      natural ? 256u : 37u, natural ? 0.0 : -2.0, natural ? 256.0 : 3.5,
            false, natural};
        if (!r.can_run(p)) continue;
        SCOPED_TRACE(std::string(r.info.id) + " " + std::string(name_of(t)) +
                     " n=" + std::to_string(n));
        std::vector<std::byte> in(n * size_of(t));
        detail::generate(t, in.data(), n, detail::distribution::normal, n);
        if (t == dtype::f32) reinterpret_cast<float*>(in.data())[n / 2] = std::nanf("");
        std::vector<std::uint64_t> one(detail::slots(p), 7), parts = one;
        piece = whole;
        detail::run_rung(r, p, in.data(), one.data());
        piece = 70000;  // over 256 x the 259 slots of bytes: each size here in 2 or 3 parts
        detail::run_rung(r, p, in.data(), parts.data());
        piece = whole;
        EXPECT_EQ(one, parts);
        std::uint64_t total = 0;
        for (std::uint64_t c : parts) total += c;
        EXPECT_EQ(total, n);
      }
  }
}

// The lookup table only narrows the search: every value gets the binary search's bin, over
// edges evenly, quadratically and randomly spaced, with repeats, infinite ends and a single
// bin, for values on edges, beside them, on the table's cell borders and outside.
TEST(EdgeLookupBinner, AgreesWithTheBinarySearch) {
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  for (int problem = 0; problem < 80; ++problem) {
    const std::size_t bins = 1 + rng() % (problem % 4 == 0 ? 5 : 3000);
    std::vector<double> e(bins + 1);
    for (std::size_t i = 0; i <= bins; ++i) {
      const double t = double(i) / double(bins);
      e[i] = problem % 3 == 0 ? t * t * 7 - 3 : problem % 3 == 1 ? std::floor(u(rng) * 50) : t;
    }
    std::sort(e.begin(), e.end());
    if (problem % 11 == 0) e.front() = -INFINITY;
    if (problem % 13 == 0) e.back() = INFINITY;
    const unsigned cells = detail::edge_lookup_binner::cells_for(bins);
    std::vector<unsigned> table(cells + 1);
    for (unsigned k = 0; k <= cells; ++k)
      table[k] = detail::edge_lookup_binner::entry(e.data(), bins, cells, k);
    const detail::edge_lookup_binner lookup(e.data(), bins, table.data());
    const detail::edge_array_binner search{e.data(), bins};
    std::size_t wrong = 0;
    const auto check = [&](double v) {
      wrong += lookup(v) != search(v);
      wrong += lookup(float(v)) != search(float(v));
    };
    const double lo = std::isfinite(e.front()) ? e.front() : -5,
                 hi = std::isfinite(e.back()) ? e.back() : 5;
    for (int k = 0; k < 3000; ++k) {
      double v = lo + (hi - lo) * (u(rng) * 0.6 + 0.5);
      if (k % 3 == 0) v = e[rng() % e.size()];
      if (k % 5 == 0) v = lo + double(rng() % (cells + 1)) * ((hi - lo) / double(cells));
      for (int step = int(rng() % 5) - 2; step != 0; step += step > 0 ? -1 : 1)
        v = std::nextafter(v, step > 0 ? INFINITY : -INFINITY);
      check(v);
    }
    for (double v : {lo, hi, -double(INFINITY), double(INFINITY), double(NAN), 0.0, -0.0}) check(v);
    EXPECT_EQ(wrong, 0u) << bins << " bins, problem " << problem;
  }
}

TEST(FloatBinner, AgreesWithTheDoubleBinnerOnEveryKindOfValue) {
  std::mt19937_64 rng(fresh_seed());
  int problems = 0, float_edges = 0;
  while (problems < 60) {
    const std::size_t bins = std::size_t(1) << (rng() % 21);
    auto [lo, hi] = random_range(rng);
    std::size_t nbins = rng() % 3 == 0 ? bins : 1 + rng() % (2 * bins);
    if (problems % 3 == 0) {  // every edge a float: compared in float
      lo = std::ldexp(std::round(lo), -2), hi = lo + std::ldexp(1.0, int(rng() % 12) - 4);
      nbins = std::size_t(1) << (rng() % 17);
    }
    const histogram_problem p{dtype::f32, 0, nbins, lo, hi, bool(rng() & 1), false};
    if (!detail::float_range_binner::usable(p)) continue;
    ++problems;
    float_edges += detail::float_range_binner(p).float_edges;
    EXPECT_EQ(disagreements<detail::float_range_binner>(p, rng), 0u)
        << "bins " << p.bins << " over [" << p.lo << ", " << p.hi << ")";
  }
  EXPECT_GE(float_edges, 15) << "too few problems with float edges to test that path";
}

// Bins of a power-of-two width on whole multiples of it are binned by a multiply and a floor:
// every kind of value gets the double binner's slot, over random such problems (1 to 2^23 bins,
// widths 2^-20 to 1, lo anywhere on the grid) and the ranges users pass; other problems are
// left to the other binners, bins wider than 1 among them.
TEST(PowerOfTwoWidthBinner, AgreesWithTheDoubleBinnerOnEveryKindOfValue) {
  using binner = detail::power_of_two_width_binner;
  std::mt19937_64 rng(fresh_seed());
  for (int problem = 0; problem < 60; ++problem) {
    const std::size_t bins = 1 + rng() % (std::size_t(1) << (rng() % 24));
    const int k = int(rng() % 21);
    const std::int64_t whole = std::int64_t(rng() % (std::size_t(1) << 24)) - (1 << 23);
    const std::int64_t lo =
        std::clamp<std::int64_t>(whole, -(1 << 24), (1 << 24) - std::int64_t(bins));
    const histogram_problem p{dtype::f32,
                              0,
                              bins,
                              std::ldexp(double(lo), -k),
                              std::ldexp(double(lo + std::int64_t(bins)), -k),
                              bool(rng() & 1),
                              false};
    ASSERT_TRUE(binner::usable(p)) << bins << " bins of 2^-" << k << " from " << lo;
    EXPECT_EQ(disagreements<binner>(p, rng), 0u)
        << "bins " << p.bins << " over [" << p.lo << ", " << p.hi << ")";
  }
  const std::size_t mega = std::size_t(1) << 20;
  struct range {
    double lo, hi;
    std::size_t bins;
    bool usable;
  };
  for (const range& g :
       {range{-4, 4, 1024, true}, range{-4, 4, 65536, true}, range{-4, 4, mega, true},
        range{0, 1, mega, true}, range{0, 256, 256, true}, range{-0.5, 0.75, 5, true},
        range{0, 1024, 256, false}, range{-4, 4, 3, false}, range{0, 1, 1000, false},
        range{0.1, 1.1, 1024, false}, range{0, 1, std::size_t(1) << 24, false},
        range{-4, INFINITY, 8, false}}) {
    const histogram_problem p{dtype::f32, 0, g.bins, g.lo, g.hi, true, false};
    ASSERT_EQ(binner::usable(p), g.usable) << g.bins << " bins over [" << g.lo << ", " << g.hi;
    if (g.usable) {
      EXPECT_EQ(disagreements<binner>(p, rng), 0u) << g.bins << " bins";
    }
  }
}

// The float-pair binner (for the many bins the float binner cannot take) gives every float the
// double binner's slot: random problems up to 2^24 bins, every kind of value, and the lab's
// 2^20 bins over [0, 1), where it must also take the fast path nearly always.
TEST(PairBinner, AgreesWithTheDoubleBinnerOnEveryKindOfValue) {
  std::mt19937_64 rng(fresh_seed());
  int problems = 0;
  for (int tries = 0; problems < 60; ++tries) {
    ASSERT_LT(tries, 100000) << "too few random problems for this binner";
    const histogram_problem p = random_float_problem(rng);
    // Only problems the float binner cannot take: those the cuda rungs give this one.
    if (!detail::pair_range_binner::usable(p) || detail::float_range_binner::usable(p)) continue;
    ++problems;
    EXPECT_EQ(disagreements<detail::pair_range_binner>(p, rng), 0u)
        << "bins " << p.bins << " over [" << p.lo << ", " << p.hi << ")";
  }

  // A narrow range far from zero, where a float is coarser than a bin: not for this binner.
  const histogram_problem coarse{dtype::f32,          0,     697,  -842.60222288261298,
                                 -842.60037652349365, false, false};
  EXPECT_FALSE(detail::pair_range_binner::usable(coarse));

  const histogram_problem lab{dtype::f32, 0, std::size_t(1) << 20, 0, 1, false, false};
  ASSERT_TRUE(detail::pair_range_binner::usable(lab));
  EXPECT_FALSE(detail::float_range_binner::usable(lab));
  EXPECT_EQ(disagreements<detail::pair_range_binner>(lab, rng), 0u);
  const detail::pair_range_binner pair(lab);
  EXPECT_LT(pair.slack, 1e-5f) << "the exact path would be taken too often";
}

// The estimate from a float binner's position() is the estimate from x alone, on values from a
// quarter of the range below lo to a quarter above hi.
template <class Binner>
void same_estimate_from_position(const histogram_problem& p, std::mt19937_64& rng) {
  const detail::float_slot_estimate estimate(p);
  const Binner binner(p);
  const double quarter = (p.hi - p.lo) / 4;
  std::uniform_real_distribution<float> around(float(p.lo - quarter), float(p.hi + quarter));
  for (int k = 0; k < 100000; ++k) {
    const float x = around(rng);
    ASSERT_EQ(estimate.at(x, binner.position(x)), estimate(x)) << x;
  }
}

// The slot estimate h10 partitions by stays within its bound of the double binner's slot
// (outliers and NaN exact): random problems up to 2^24 bins, every kind of value; the lab's 2^20
// bins over [0, 1) within h10's pad.
TEST(FloatSlotEstimate, StaysWithinItsBoundOfTheDoubleBinner) {
  std::mt19937_64 rng(fresh_seed());
  int problems = 0;
  for (int tries = 0; problems < 60; ++tries) {
    ASSERT_LT(tries, 100000) << "too few random problems for the estimate";
    const histogram_problem p = random_float_problem(rng);
    if (!detail::float_slot_estimate::usable(p, 16)) continue;
    ++problems;
    const double bound = detail::float_range_binner::slack_of(p) + 2;
    EXPECT_EQ(disagreements<detail::float_slot_estimate>(p, rng, bound), 0u)
        << "bins " << p.bins << " over [" << p.lo << ", " << p.hi << ")";
  }
  const histogram_problem far{dtype::f32, 0, std::size_t(1) << 18, 1000, 1001, false, false};
  EXPECT_FALSE(detail::float_slot_estimate::usable(far, 16)) << "ManyBins counts on this";
  const histogram_problem lab{dtype::f32, 0, std::size_t(1) << 20, 0, 1, false, false};
  ASSERT_TRUE(detail::float_slot_estimate::usable(lab, 16));
  EXPECT_EQ(disagreements<detail::float_slot_estimate>(lab, rng, 3), 0u);
  // h10's scatter takes u from the float binner that bins x: the same floats, the same estimate.
  same_estimate_from_position<detail::pair_range_binner>(lab, rng);
  const histogram_problem few{dtype::f32, 0, 1024, -3, 5, false, false};
  ASSERT_TRUE(detail::float_range_binner::usable(few) &&
              detail::float_slot_estimate::usable(few, 16));
  same_estimate_from_position<detail::float_range_binner>(few, rng);
  // Outliers exactly: just below lo, at hi (open and closed), NaN.
  const detail::float_slot_estimate estimate(lab);
  EXPECT_EQ(estimate(std::nextafter(0.0f, -1.0f)), lab.bins);
  EXPECT_EQ(estimate(1.0f), lab.bins + 1);
  EXPECT_EQ(estimate(NAN), lab.bins + 2);
  EXPECT_EQ(estimate(std::nextafter(1.0f, 0.0f)), lab.bins - 1);
}

// NumPy's float32 edges (f32_edge_binner): its edges are f32_edges' own (taken in float only
// where that gives the same floats), every kind of value gets the bin a binary search over those
// edges finds, and h10's slot estimate from its position stays within its bound of that bin;
// over ranges whose edges are exact floats (torch.histc's [-4, 4) for normal data) and others.
TEST(F32EdgeBinner, MatchesABinarySearchOverItsEdges) {
  std::mt19937_64 rng(fresh_seed());
  struct range {
    double lo, hi;
    std::size_t bins;
  };
  const std::size_t mega = std::size_t(1) << 20;
  for (const range& g :
       {range{-4, 4, mega}, range{-4, 4, 65536}, range{0, 1, mega + 1}, range{-4.1, 3.7, mega},
        range{0.1, 7.3, 5000}, range{-1000, 1000, 2 * mega}, range{-2.5, 0.1, 3000},
        range{1e-3, 2, 65536}})
    for (edge_rule rule : {edge_rule::f32_rounded, edge_rule::f32_arithmetic}) {
      const histogram_problem p{dtype::f32, 0, g.bins, g.lo, g.hi, bool(rng() & 1), false, rule};
      SCOPED_TRACE(std::to_string(p.bins) + " bins over [" + std::to_string(p.lo) + ", " +
                   std::to_string(p.hi) + ") edges " + std::to_string(int(rule)));
      const detail::f32_edge_binner bin(p);
      const detail::f32_edges defined(p.lo, p.hi, p.bins, rule);
      std::vector<float> edges(p.bins + 1);
      for (std::size_t i = 0; i <= p.bins; ++i) {
        edges[i] = defined(unsigned(i));
        ASSERT_EQ(bin.edge(unsigned(i)), edges[i]) << "edge " << i;
      }
      const auto want = [&](float x) -> std::size_t {
        if (std::isnan(x)) return p.bins + 2;
        if (x < edges[0]) return p.bins;
        if (x > edges[p.bins] || (x == edges[p.bins] && !p.closed_last)) return p.bins + 1;
        if (x == edges[p.bins]) return p.bins - 1;
        return std::size_t(std::upper_bound(edges.begin(), edges.end(), x) - edges.begin()) - 1;
      };
      const bool estimated = detail::float_slot_estimate::usable_for_f32_edges(p, 16);
      const detail::float_slot_estimate estimate(bin);
      const double bound = detail::f32_edge_binner::place_error(p) + 2;
      const double quarter = (p.hi - p.lo) / 4;
      std::uniform_real_distribution<float> around(float(p.lo - quarter), float(p.hi + quarter));
      for (int k = 0; k < 200000; ++k) {
        float x = around(rng);
        if (k % 3 == 0) x = edges[rng() % (p.bins + 1)];  // an edge, or a float beside it
        if (k % 3 == 0 && rng() % 2) x = std::nextafter(x, rng() & 1 ? INFINITY : -INFINITY);
        if (k == 0) x = NAN;
        const std::size_t w = want(x);
        ASSERT_EQ(bin(x), w) << "x = " << x;
        if (!estimated) continue;
        const double e = double(estimate.at(x, bin.position(x)));
        if (w >= p.bins) {
          ASSERT_EQ(e, double(w)) << "an outlier's slot is exact; x = " << x;
        } else if (!(x == edges[p.bins])) {
          ASSERT_LE(std::fabs(e - double(w)), bound) << "x = " << x;
        }
      }
    }
  // torch.histc's range for normal data: edges taken in float, bins found within one bin.
  const histogram_problem torch_like{dtype::f32, 0,     mega,  -4,
                                     4,          false, false, edge_rule::f32_rounded};
  const detail::f32_edge_binner bin(torch_like);
  EXPECT_TRUE(bin.edge.in_float);
  EXPECT_TRUE(bin.within_one);
  EXPECT_TRUE(detail::float_slot_estimate::usable_for_f32_edges(torch_like, 16));
}

// The rungs bin NumPy's float32 edges as the double problem where the two sets of edges are the
// same numbers (f32_edge_binner::same_as_double_edges): every edge of both rules, and hi, equal
// to range_binner's double edge wherever it says so; and ranges whose edges differ are kept.
TEST(F32EdgeBinner, SameAsDoubleEdgesOnlyWhereEveryEdgeIs) {
  struct range {
    double lo, hi;
    std::size_t bins;
    bool same;
  };
  const std::size_t mega = std::size_t(1) << 20;
  for (const range& g :
       {range{-4, 4, 1024, true}, range{-4, 4, 65536, true}, range{-4, 4, mega, true},
        range{0, 1, mega, true}, range{-4, 4, 3, false}, range{0, 1, 1000, false},
        range{-4.1, 3.7, mega, false}, range{0.1, 7.3, 5000, false}, range{-1000, 1000, 2000, true},
        range{-1000, 1000, 2 * mega, false}, range{1e-3, 2, 65536, false},
        range{-2.5, 0.1, 3000, false}, range{3, 3.5, 1 << 23, false},
        range{1024, 2048, 1 << 23, true}}) {
    SCOPED_TRACE(std::to_string(g.bins) + " bins over [" + std::to_string(g.lo) + ", " +
                 std::to_string(g.hi) + ")");
    for (edge_rule rule : {edge_rule::f32_rounded, edge_rule::f32_arithmetic}) {
      const histogram_problem p{dtype::f32, 0, g.bins, g.lo, g.hi, true, false, rule};
      const bool same = detail::f32_edge_binner::same_as_double_edges(p);
      EXPECT_EQ(same, g.same);
      EXPECT_EQ(detail::f32_edge_binner::needed(p), !same);
      if (!same) continue;
      const detail::f32_edges e(p.lo, p.hi, p.bins, rule);
      const detail::range_binner exact(p);
      for (std::size_t i = 0; i < p.bins; ++i)
        ASSERT_EQ(double(e(unsigned(i))), exact.edge(i)) << "edge " << i;
      ASSERT_EQ(double(e(unsigned(p.bins))), p.hi);
    }
  }
  const histogram_problem doubles{dtype::f32, 0, 1024, -4, 4, true, false, edge_rule::f64};
  EXPECT_FALSE(detail::f32_edge_binner::needed(doubles));
}

std::vector<const histogram_rung*> all_rungs() {
  std::vector<const histogram_rung*> out;
  for (const auto& r : detail::rungs_of<detail::histogram_rung>()) out.push_back(&r);
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllRungs, Histogram, ::testing::ValuesIn(all_rungs()),
                         [](const auto& info) { return test_name(info.param->info.id); });

}  // namespace
}  // namespace pplab::test
