#pragma once
// Which slot an element is counted in. Every histogram rung counts into bins + 3 slots: the
// bins, then underflow (bins), overflow (bins + 1) and NaN (bins + 2), so outliers take the same
// path as everything else and nothing is dropped.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/visit.hpp"
#include "histogram/rung.hpp"

namespace pplab::detail {

// The binners are PPLAB_HD: the same code bins a value on the CPU and on the GPU.
// 8/16-bit integers over the type's whole range: the bin is the value's offset from the lowest.
struct natural_binner {
  std::int64_t lo;
  template <class T> PPLAB_HD std::size_t operator()(T x) const noexcept {
    return std::size_t(std::int64_t(x) - lo);
  }
};

// Even bins over [lo, hi), in double. The first guess (x - lo) * bins / (hi - lo) can be one off
// at an edge, so it is corrected against the edges themselves, edge(i) = lo + i * step as
// numpy.linspace computes them: a value equal to an edge always opens that edge's bin.
struct range_binner {
  double lo, hi, scale, step;
  std::size_t bins;
  bool closed_last;

  PPLAB_HD explicit range_binner(const histogram_problem& p)
      : lo(p.lo), hi(p.hi), scale(double(p.bins) / (p.hi - p.lo)),
        step((p.hi - p.lo) / double(p.bins)), bins(p.bins), closed_last(p.closed_last) {}

  PPLAB_HD double edge(std::size_t i) const noexcept {
    return mul_add_rounded(double(i), step, lo);
  }

  template <class T> PPLAB_HD std::size_t operator()(T x) const noexcept {
    const double v = double(x);
    if (v != v) return bins + 2;
    if (v < lo) return bins;
    if (v >= hi) return (v == hi && closed_last) ? bins - 1 : bins + 1;
    std::size_t i = std::size_t((v - lo) * scale);
    if (i >= bins) i = bins - 1;
    while (i > 0 && v < edge(i)) --i;
    while (i + 1 < bins && v >= edge(i + 1)) ++i;
    return i;
  }
};

// NumPy's edges for float32 data (histogram_problem::edges): float32 numbers, lo_f = lo and
// hi_f = hi rounded to float (the first and last edge, as numpy.linspace sets them), and edge i
// either the double edge lo + i * step rounded to float (f32_rounded) or float32 arithmetic,
// i * step_f + lo_f with step_f = (hi_f - lo_f) / bins, each operation rounded (f32_arithmetic).
struct f32_edges {
  double lo, step;
  float lo_f, hi_f, step_f;
  unsigned bins;
  bool in_float;

  f32_edges(double lo_, double hi_, std::size_t bins_, edge_rule rule)
      : lo(lo_), step((hi_ - lo_) / double(bins_)), lo_f(float(lo_)), hi_f(float(hi_)),
        step_f((hi_f - lo_f) / float(bins_)), bins(unsigned(bins_)),
        in_float(rule == edge_rule::f32_arithmetic) {}

  PPLAB_HD float operator()(unsigned i) const noexcept { return i >= bins ? hi_f : below_hi(i); }
  // Edge i < bins (no test for the last edge, hi_f: for callers that know i < bins).
  PPLAB_HD float below_hi(unsigned i) const noexcept {
    return in_float ? float_edge(i) : rounded_edge(i);
  }
  // Edge i < bins by each rule (a loop over many edges takes one, without the branches).
  PPLAB_HD float float_edge(unsigned i) const noexcept {
    return mul_add_rounded(float(i), step_f, lo_f);
  }
  PPLAB_HD float rounded_edge(unsigned i) const noexcept {
    return float(mul_add_rounded(double(i), step, lo));
  }
};

// numpy.histogram's bins for float32 data: values compared in float32 with float32 edges
// (f32_edges). Values below lo_f and above hi_f are outliers; the bin of any other value is the
// last one whose edge is at or below it, found from the float estimate u = (x - lo_f) * scale.
// Where u is within half a bin of x's place among the edges (near_edge: the bound below), the
// edge nearest u decides in one comparison; else, and near the ends, the estimate is corrected
// by steps against the edges. NumPy finds its index as an estimate
// corrected by one step against the same edges: the same bin wherever its estimate is within
// one bin, which the API checks before it runs (histogram/api.cpp).
struct f32_edge_binner {
  f32_edges edge;
  float scale_f;
  bool closed_last, near_edge, within_one;

  // A bound, in bins, on |u - x's place among the edges|: u's subtract, scale and multiply
  // (2^-24 n each), and the edges' distance from lo_f + i (hi_f - lo_f) / n (a step rounded
  // twice and its multiple, 2^-24 n each; lo, hi and each edge rounded to float, 2^-24 of the
  // widest end each), doubled for a margin.
  static double place_error(const histogram_problem& p) {
    const double n = double(p.bins), lo = double(float(p.lo)), hi = double(float(p.hi));
    const double widest = std::max(std::fabs(lo), std::fabs(hi));
    return std::ldexp(6 * n + 3 * n / (hi - lo) * widest, -23);
  }

  explicit f32_edge_binner(const histogram_problem& p) : f32_edge_binner(p, place_error(p)) {}
  // The same with p's place_error already found.
  f32_edge_binner(const histogram_problem& p, double error)
      : edge(p.lo, p.hi, p.bins, p.edges),
        scale_f(float(double(p.bins) / (double(edge.hi_f) - double(edge.lo_f)))),
        closed_last(p.closed_last), near_edge(error < 0.5), within_one(error < 1) {
    // Rounded double edges that float32 arithmetic gives exactly (as over [0, 1) with 1024
    // bins, or [-4, 4) with 2^20) are computed in float: known at once where every edge's
    // terms are exact floats, else checked edge by edge up to 4096 bins.
    if (!edge.in_float) {
      f32_edges in_float = edge;
      in_float.in_float = true;
      bool same = exact_in_float(in_float);
      if (!same && edge.bins <= 4096) {
        same = true;
        for (unsigned i = 0; same && i <= edge.bins; ++i) same = in_float(i) == edge(i);
      }
      if (same) edge = in_float;
    }
  }

  // The value of v's lowest set bit (v finite and not 0).
  static double lowest_bit(float v) {
    int e = 0;
    const double m = std::frexp(double(v), &e);
    const auto whole = std::uint64_t(std::ldexp(std::fabs(m), 24));  // v = whole x 2^(e - 24)
    return std::ldexp(double(whole & (~whole + 1)), e - 24);
  }
  // Whether every edge i x step_f + lo_f (i < bins) and its product are exact floats, with lo_f
  // and step_f the double lo and step themselves: then both roundings of the float arithmetic
  // and of the double one are exact, and the two give the same edges. Every term is a multiple
  // of the lower of the two lowest bits, and none exceeds |lo_f| + bins x step_f: within 2^24 of
  // those multiples, each is a float.
  static bool exact_in_float(const f32_edges& e) {
    if (double(e.lo_f) != e.lo || double(e.step_f) != e.step || !(e.step_f > 0)) return false;
    const double grain =
        e.lo_f == 0 ? lowest_bit(e.step_f) : std::min(lowest_bit(e.step_f), lowest_bit(e.lo_f));
    const double largest = std::fabs(double(e.lo_f)) + double(e.bins) * double(e.step_f);
    return largest / grain <= std::ldexp(1.0, 24);
  }

  // Whether p's float32 edges are the double edges themselves (range_binner's edge(i), and hi),
  // every one exactly, by either rule: lo, hi and the step are floats and every term of every
  // edge is exact (exact_in_float), so float32 arithmetic, the double edges rounded and the
  // double edges all give the same numbers. A float32 value then falls in the same bin against
  // either, and the problem is binned as the double one (float_range_binner's lighter loop:
  // 1024 or 65536 bins over [-4, 4), what torch.histc users pass).
  static bool same_as_double_edges(const histogram_problem& p) {
    const f32_edges e(p.lo, p.hi, p.bins, edge_rule::f32_arithmetic);
    return p.bins > 0 && p.bins < (std::size_t(1) << 24) && double(e.hi_f) == p.hi &&
           exact_in_float(e);
  }
  // Whether p is binned against float32 edges that differ from its double edges somewhere.
  static bool needed(const histogram_problem& p) {
    return p.edges != edge_rule::f64 && !same_as_double_edges(p);
  }

  // u, the float estimate of x's place among the edges (float_slot_estimate takes it from here).
  PPLAB_HD float position(float x) const noexcept { return mul_rounded(x - edge.lo_f, scale_f); }

  PPLAB_HD std::size_t operator()(float x) const noexcept {
    const unsigned bins = edge.bins;
    const float u = position(x);  // inf where x - lo_f overflows
    // Half a bin or more inside both ends (false for NaN, infinities and outliers): x's place is
    // within half a bin of u, and the edge nearest u, e (0 to bins - 1), is the one edge that can
    // lie between them. One branch for the common case: a GPU warp seldom splits on it.
    if (near_edge && u >= 0.5f && u <= float(bins) - 0.5f) {
      const unsigned i = unsigned(u), e = i + (u - float(i) > 0.5f);
      return e - 1 + (x >= edge.below_hi(e));  // e = 0: x > lo_f = edge(0); e < bins
    }
    // Within one bin (many bins over a range far from zero for their count: 2^20 over [-4, 4)):
    // x's bin is floor(u) or a neighbour, inside the range when u is a bin or more inside both
    // ends; edges i and i + 1 (i + 1 < bins) decide, without a loop.
    if (within_one && u >= 1.0f && u < float(bins) - 1.0f) {
      const unsigned i = unsigned(u);
      return i - (x < edge.below_hi(i)) + (x >= edge.below_hi(i + 1));  // i + 1 < bins
    }
    if (x != x) return bins + 2;
    if (x < edge.lo_f) return bins;
    if (x >= edge.hi_f) return (x == edge.hi_f && closed_last) ? bins - 1 : bins + 1;
    unsigned i = u < float(bins) ? unsigned(u) : bins - 1;  // u >= 0 here
    while (i > 0 && x < edge(i)) --i;
    while (i + 1 < bins && x >= edge(i + 1)) ++i;
    return i;
  }
};

// What the float binners' error bounds are made of: bins per unit of x, |lo| and |hi|.
struct range_terms {
  double scale, alo, ahi, bins;
  explicit range_terms(const histogram_problem& p)
      : scale(double(p.bins) / (p.hi - p.lo)), alo(std::fabs(p.lo)), ahi(std::fabs(p.hi)),
        bins(double(p.bins)) {}
  // A bound on the error of u = (x - lo) * scale (x in the range), in bins: the terms lo rounded
  // (|lo|), the subtraction rounded (|x| + |lo|), scale and the product rounded (u <= bins),
  // times 2^-k (k: the arithmetic's precision less a margin; see each binner).
  double u_error(int k) const { return std::ldexp(scale * (3 * alo + ahi + 1) + 2 * bins, -k); }
  // How far numpy's edges (in double) lie from whole positions, at most.
  double edge_error() const { return std::ldexp(scale * (alo + ahi) + bins, -48); }
  // lo, hi and scale well inside a float's range.
  bool moderate() const {
    const double big = std::ldexp(1.0, 60);
    return alo < big && ahi < big && scale < big && scale > 1 / big;
  }
};

// range_binner's answer for float data, mostly in float arithmetic: u = (x - lo) * scale in
// float is within `slack` bins of the exact position (x - lo) / step, and numpy's edges
// (range_binner::edge, in double) are within far less of whole positions; so when u is more
// than slack from every whole number, floor(u) is the bin range_binner would find. When u is
// within slack of a whole number w, only edge w can lie between, and one comparison with it
// decides: in float when every edge of the problem is exactly a float computed as
// float(i) * step + lo (checked once, up to 2^16 bins: 1024 bins over [0, 1) qualify), else in
// double. With float edges every value makes that one comparison with its nearer edge, so a
// warp takes no branch whether its values are near edges or not. Values near lo or hi, outside the
// range, infinities and NaN go to range_binner. On a GPU this replaces four 64-bit conversions and
// six double operations per element by a subtract, a multiply and a floor in float; data piled on
// an edge (90% of the values at 0.5) costs one more float multiply-add and compare. slack bounds
// the float error: lo rounded to float (2^-24 |lo|), the subtraction rounded (2^-24 (|x| + |lo|),
// |x| <= max(|lo|, |hi|) in the range), scale rounded and the product rounded (2^-23 u, u <= bins);
// each term is taken four times over, plus the double edges' own error. Usable while slack stays
// under a quarter of a bin (it grows with bins x range / width: 1024 bins over [0, 1) give 2.4e-4,
// 2^20 bins do not qualify).
struct float_range_binner {
  range_binner exact;
  float lo_f, scale_f, step_f, slack, top;
  bool float_edges;  // every edge(i) == float(i) * step_f + lo_f, both rounded, exactly

  static double slack_of(const histogram_problem& p) {
    const range_terms t(p);
    return t.u_error(22) + t.edge_error();
  }
  static bool usable(const histogram_problem& p) {
    return p.bins < (std::size_t(1) << 24) && std::isfinite(p.lo) && std::isfinite(p.hi) &&
           slack_of(p) < 0.25;
  }
  explicit float_range_binner(const histogram_problem& p)
      : exact(p), lo_f(float(p.lo)), scale_f(float(double(p.bins) / (p.hi - p.lo))),
        step_f(float(exact.step)), slack(float(slack_of(p))),
        top(float(double(p.bins) - slack_of(p))), float_edges(p.bins <= (std::size_t(1) << 16)) {
    for (std::size_t i = 0; float_edges && i <= p.bins; ++i)
      float_edges = double(float_edge(unsigned(i))) == exact.edge(i);
  }

  PPLAB_HD float float_edge(unsigned i) const noexcept {
    return mul_add_rounded(float(i), step_f, lo_f);
  }
  // Whether x lies at or above edge w.
  PPLAB_HD bool at_or_above(float x, unsigned w) const noexcept {
    return float_edges ? x >= float_edge(w) : double(x) >= exact.edge(w);
  }

  // u, the float position of x in bins from lo (float_slot_estimate takes it from here).
  PPLAB_HD float position(float x) const noexcept { return mul_rounded(x - lo_f, scale_f); }

  PPLAB_HD std::size_t operator()(float x) const noexcept {
    const float u = position(x);
    if (u >= slack && u <= top) {  // false for NaN and for anything near or outside the range
      const float whole = floorf(u), frac = u - whole;  // exact: u < 2^24
      const unsigned w = unsigned(whole);
      if (float_edges) {
        // Without a branch: the nearer edge e decides. Far from both edges x is clearly above
        // edge w (e = w) or clearly below edge w + 1 (e = w + 1), and the answer is w either way.
        const unsigned e = w + (frac > 0.5f);
        return e - 1 + (x >= float_edge(e));
      }
      if (frac < slack) return at_or_above(x, w) ? w : w - 1;             // w >= 1: u >= slack
      if (frac > 1.0f - slack) return at_or_above(x, w + 1) ? w + 1 : w;  // w + 1 < bins
      return w;
    }
    return exact(x);
  }
};

// Even bins of a power-of-two width 2^-k (k >= 0) whose edges are whole multiples of it: lo =
// L x 2^-k, L a whole number, and hi = (L + bins) x 2^-k. numpy's edges (range_binner::edge) are
// then (L + i) x 2^-k exactly, and so is x x 2^k for every float x (a power-of-two scaling up:
// exact, or infinite past float's range), so the bin is floor(x x 2^k) - L, with no edge to
// compare and no branch for values inside the range: a multiply, a floor-convert and a subtract.
// torch.histc's ranges for normal data ([-4, 4) at 1024, 65536 or 2^20 bins), [0, 1) at any
// power of two and [0, 256) at 256 bins are such problems. Bins wider than 1 (k < 0) are left to
// the other binners: scaling down can round a tiny negative value to -0, which floor puts in the
// bin that starts at 0.
struct power_of_two_width_binner {
  float scale, lo_t, hi_t;  // 2^k, L and L + bins
  int lo_whole;             // L
  unsigned bins;
  bool closed_last;

  // k with step = 2^-k, step as range_binner computes it; -1 (unusable) for any other step.
  static int width_exponent(const histogram_problem& p) {
    const double step = (p.hi - p.lo) / double(p.bins);
    int e = 0;
    if (!(step > 0) || std::frexp(step, &e) != 0.5) return -1;  // step = 2^(e - 1)
    return 1 - e;
  }
  static bool usable(const histogram_problem& p) {
    if (!(p.bins > 0 && p.bins < (std::size_t(1) << 24) && std::isfinite(p.lo) &&
          std::isfinite(p.hi)))
      return false;
    const int k = width_exponent(p);
    if (k < 0 || k > 126) return false;
    const double whole = std::ldexp(p.lo, k), top = whole + double(p.bins);
    const double limit = std::ldexp(1.0, 24);  // L and L + bins exact in float and in int
    return whole == std::floor(whole) && std::fabs(whole) <= limit && std::fabs(top) <= limit &&
           std::ldexp(p.hi, k) == top;
  }
  explicit power_of_two_width_binner(const histogram_problem& p)
      : power_of_two_width_binner(p, width_exponent(p)) {}
  power_of_two_width_binner(const histogram_problem& p, int k)
      : scale(float(std::ldexp(1.0, k))), lo_t(float(std::ldexp(p.lo, k))),
        hi_t(lo_t + float(p.bins)), lo_whole(int(lo_t)), bins(unsigned(p.bins)),
        closed_last(p.closed_last) {}

  PPLAB_HD std::size_t operator()(float x) const noexcept {
    const float t = mul_rounded(x, scale);  // exact
    if (t >= lo_t && t < hi_t) return std::size_t(floor_to_int(t) - lo_whole);
    if (t != t) return bins + 2;
    if (t < lo_t) return bins;
    return (t == hi_t && closed_last) ? bins - 1 : bins + 1;
  }
  // floor(t) for |t| <= 2^24: one convert that rounds down on the GPU.
  PPLAB_HD static int floor_to_int(float t) noexcept {
#ifdef __CUDA_ARCH__
    return __float2int_rd(t);
#else
    return int(std::floor(t));
#endif
  }
};

// range_binner's answer for float data with many bins, in float arithmetic carried to about 48
// bits: float_range_binner's single float u is a few bins off at 2^20 bins (a float holds 24 bits
// and u needs 20 before the point), so the double binner ran instead, whose 64-bit conversions
// (float to double, double to integer, two integers to double for the edges) a GPU runs at a
// quarter of its float rate (h10 at 2^20 bins went from 9.8x to 10.9x CUB with this binner,
// bench/results/h200-2026-11-23-histogram-e980f36.json). Here lo and scale
// are split into a float and the float of the rest, x - lo is computed exactly as a float pair
// (TwoSum) and the product with scale by fmaf (each product's rounding error recovered exactly),
// so u = p + pe with an error of about 2^-45 of (|x| + |lo|) x scale. When u's fraction is more
// than slack from 0 and 1, no edge lies between u and the exact position (numpy's double edges
// are within edge_error of whole positions), and floor(u) is the exact binner's bin; otherwise
// the one edge that close is compared in double, and near lo and hi, outside the range, for
// infinities and NaN, range_binner decides. slack is about 3e-6 of a bin at 2^20 bins over [0, 1).
struct pair_range_binner {
  range_binner exact;
  float lo_h, lo_l, scale_h, scale_l, slack, last;

  // 2^-40 where the sum of the error terms is about 2^-45 (see above); 2^-21 for the rounding of
  // the fraction itself (|frac| < 2); the double edges' own error as float_range_binner has it.
  static double slack_of(const histogram_problem& p) {
    const range_terms t(p);
    return t.u_error(40) + t.edge_error() + std::ldexp(1.0, -21);
  }
  // A bound on |pe| in the range, in bins: p's own rounding (2^-24 bins), s x scale_l and
  // d_low x scale_h (2^-24 of scale x (|x| + 2 |lo|) each, at most). Below 1/2, floor(p) is at
  // most one from the bin, which one step mends; far from 0 (a narrow range far from zero, where
  // a float is coarser than a bin), the double binner is taken instead.
  static double correction_of(const histogram_problem& p) {
    const range_terms t(p);
    return std::ldexp(t.bins + 3 * t.scale * (2 * t.alo + t.ahi), -24);
  }
  // Every float of the computation stays normal (the split parts and the products), whole
  // positions up to bins are exact floats, and the correction pe stays under half a bin.
  static bool usable(const histogram_problem& p) {
    return p.bins <= (std::size_t(1) << 24) && std::isfinite(p.lo) && std::isfinite(p.hi) &&
           range_terms(p).moderate() && slack_of(p) < 0.25 && correction_of(p) < 0.5;
  }
  explicit pair_range_binner(const histogram_problem& p)
      : exact(p), lo_h(float(p.lo)), lo_l(float(p.lo - double(float(p.lo)))),
        scale_h(float(exact.scale)), scale_l(float(exact.scale - double(float(exact.scale)))),
        slack(float(slack_of(p))), last(float(p.bins - 1)) {}

  // p below: the float position of x in bins from lo, (x - lo_h) x scale_h, the same floats as
  // float_range_binner's u (float_slot_estimate takes it from here).
  PPLAB_HD float position(float x) const noexcept { return mul_rounded(x - lo_h, scale_h); }

  PPLAB_HD std::size_t operator()(float x) const noexcept {
    // x - lo_h = s + e exactly (TwoSum), then the rest of lo.
    const float s = x - lo_h, back = s - x;
    const float e = (x - (s - back)) + (-lo_h - back);
    const float d_low = e - lo_l;
    // (s + d_low) x (scale_h + scale_l) = p + pe; p's rounding error recovered by fmaf.
    const float p = mul_rounded(s, scale_h);
    float pe = fmaf(s, scale_h, -p);
    pe = fmaf(s, scale_l, pe);
    pe = fmaf(d_low, scale_h, pe);
    if (!(p >= 1.0f && p <= last)) return exact(x);  // near or past lo and hi; NaN
    const float whole = floorf(p);
    float frac = (p - whole) + pe;  // p - whole exact; |pe| < 1/2 (correction_of)
    int step = 0;
    if (frac < 0.0f) frac += 1.0f, step = -1;
    else if (frac >= 1.0f) frac -= 1.0f, step = 1;
    const unsigned w = unsigned(int(whole) + step);  // whole in [1, bins - 1]: w in [0, bins - 1]
    if (frac >= slack && frac <= 1.0f - slack) return w;
    // Edge `near` (w, or w + 1 when frac is near 1; in [1, bins - 1]) lies this close: one
    // comparison with numpy's edge, in double, decides. Inline, not the double binner: data
    // quantized to whole bins (every float of [0, 1) is a multiple of 2^-24, so 1 in 16 lands on
    // one of 2^20 edges) would send a lane of nearly every warp down the slow path.
    const unsigned near = w + (frac > 0.5f);
    return near - 1 + (double(x) >= exact.edge(near));
  }
};

// A stand-in for a float's slot, within `pad` slots of range_binner's, in one float subtract and
// multiply: for a partition by slot ranges that learns the exact slot later (h10 counts its
// buckets by it, then ranks and stores each element by the same estimate, with the exact slot's
// offset from it). Outliers and NaN get their own slot exactly (x < lo and x >= hi are exact
// comparisons with the floats just at or above lo and hi); a value in the range gets floor(u),
// u = (x - lo) * scale in float, clamped to the bins: float_range_binner's slack bounds |u - the
// exact position|, and numpy's edges are within that of whole positions, so the estimate is
// within slack + 2 of the slot (the last bin's closed edge: 2 from its slot).
struct float_slot_estimate {
  float lo_f, scale_f, lo_up, hi_up, last;
  unsigned bins;

  // The float at or just above v (v finite and within float range).
  static float float_at_or_above(double v) {
    const float f = float(v);
    return double(f) >= v ? f : std::nextafter(f, INFINITY);
  }
  static bool usable(const histogram_problem& p, double pad) {
    return p.bins < (std::size_t(1) << 24) && std::isfinite(p.lo) && std::isfinite(p.hi) &&
           range_terms(p).moderate() && float_range_binner::slack_of(p) + 2 <= pad;
  }
  explicit float_slot_estimate(const histogram_problem& p)
      : lo_f(float(p.lo)), scale_f(float(double(p.bins) / (p.hi - p.lo))),
        lo_up(float_at_or_above(p.lo)), hi_up(float_at_or_above(p.hi)), last(float(p.bins - 1)),
        bins(unsigned(p.bins)) {}
  // For NumPy's float32 edges: u is the binner's own position(x), within place_error bins of
  // x's place among the edges, and the range's ends are the float edges lo_f and hi_f, compared
  // exactly. Usable where place_error + 2 <= pad (usable_for_f32_edges).
  explicit float_slot_estimate(const f32_edge_binner& b)
      : lo_f(b.edge.lo_f), scale_f(b.scale_f), lo_up(b.edge.lo_f), hi_up(b.edge.hi_f),
        last(float(b.edge.bins - 1)), bins(b.edge.bins) {}
  static bool usable_for_f32_edges(const histogram_problem& p, double pad) {
    return f32_edge_binner::place_error(p) + 2 <= pad;
  }

  PPLAB_HD unsigned operator()(float x) const noexcept {
    return at(x, mul_rounded(x - lo_f, scale_f));
  }
  // The same from u = (x - lo_f) x scale_f as a float binner's position(x) gives it (the same
  // floats): a kernel that bins x anyway computes u once for both.
  // Selects, not branches: a GPU kernel runs this for every element, branch-free.
  PPLAB_HD unsigned at(float x, float u) const noexcept {
    const unsigned inside = unsigned(fminf(fmaxf(u, 0.0f), last));
    const unsigned outside = x >= hi_up ? bins + 1 : x != x ? bins + 2 : bins;
    return x >= lo_up && x < hi_up ? inside : outside;  // false for NaN
  }
};

// Bins given as an array of edges e[0] <= ... <= e[bins] (numpy.histogram's bins=array): bin i
// is [e[i], e[i+1]), the last bin closed, values compared in double. The bin is the last edge at
// or below the value, found by a binary search without branches (each step halves the range by
// a select, so every value takes log2(bins) steps and no mispredicted branch): with repeated
// edges, the last of them, as NumPy's searchsorted gives it.
struct edge_array_binner {
  const double* e;  // bins + 1 edges, in the memory of the rung's backend
  std::size_t bins;

  template <class T> PPLAB_HD std::size_t operator()(T x) const noexcept {
    const double v = double(x);
    if (v != v) return bins + 2;
    if (v < e[0]) return bins;
    if (v >= e[bins]) return v == e[bins] ? bins - 1 : bins + 1;
    return last_at_or_below(e, bins + 1, v);
  }
  // The last index of e[0, len) whose edge is at or below v (e[0] <= v); edges and value in
  // double, or in float (the GPU's float32 tables, histogram/cuda/f32_edges.cuh).
  template <class E>
  PPLAB_HD static std::size_t last_at_or_below(const E* e, std::size_t len, E v) noexcept {
    const E* base = e;
    while (len > 1) {
      const std::size_t half = len / 2;
      base = base[half] <= v ? base + half : base;
      len -= half;
    }
    return std::size_t(base - e);
  }
};

// edge_array_binner's bins found from a table first: the range [e[0], e[bins]] cut into `cells`
// even cells, and first[k] the bin of cell k's start (k = 0..cells: first[cells] the last bin).
// A value's cell c, computed in double, gives the range of bins [first[c], first[c + 1]] that
// cell c meets: usually one bin or two (cells = 4 x bins), whatever the edges' spacing, so the
// search takes a step or none. The range is checked (e[first[c]] <= v < e[first[c + 1] + 1]):
// a value a rounding away from its cell's border, where the cell computed can be its neighbour,
// takes the whole search instead.
struct edge_lookup_binner {
  edge_array_binner all;
  const unsigned* first;  // cells + 1 entries, in the memory of the rung's backend
  double lo, scale;
  unsigned cells;

  PPLAB_HD static unsigned cells_for(std::size_t bins) {
    return 4 * bins < (std::size_t(1) << 16) ? unsigned(4 * bins) : 1u << 16;
  }
  // first[k], from the edges: the bin of the point lo + k (hi - lo) / cells.
  PPLAB_HD static unsigned entry(const double* e, std::size_t bins, unsigned cells, unsigned k) {
    if (k >= cells) return unsigned(bins - 1);
    const double p = e[0] + double(k) * ((e[bins] - e[0]) / double(cells));
    if (!(p >= e[0])) return 0;
    if (p >= e[bins]) return unsigned(bins - 1);
    return unsigned(edge_array_binner::last_at_or_below(e, bins + 1, p));
  }
  PPLAB_HD edge_lookup_binner(const double* e, std::size_t bins, const unsigned* table)
      : all{e, bins}, first(table), lo(e[0]), scale(double(cells_for(bins)) / (e[bins] - e[0])),
        cells(cells_for(bins)) {}

  template <class T> PPLAB_HD std::size_t operator()(T x) const noexcept {
    const double v = double(x);
    const std::size_t bins = all.bins;
    if (v != v) return bins + 2;
    if (v < all.e[0]) return bins;
    if (v >= all.e[bins]) return v == all.e[bins] ? bins - 1 : bins + 1;
    const double u = (v - lo) * scale;  // in [0, cells] but for rounding; not NaN: e[0] < e[bins]
    const unsigned c = u < double(cells) ? unsigned(u) : cells - 1;
    const unsigned a = first[c], b = first[c + 1];
    // A cell that meets one bin or two (most): bin a or a + 1, one comparison and no loop, for
    // any v in [e[a], e[a + 2]) (v < e[bins] here); a loop of one or two steps a value, its
    // branch taken at random, had cost a host core 9.4 ns a value (2^24 normal f32 values into
    // 1024 edges at normal samples), 4.3x even bins.
    if (b - a <= 1) {
      const std::size_t above = a + 2 < bins ? a + 2 : bins;
      if (all.e[a] <= v && v < all.e[above]) return a + (v >= all.e[a + 1]);
    }
    if (!(all.e[a] <= v && v < all.e[b + 1])) return all(x);
    return a + edge_array_binner::last_at_or_below(all.e + a, b - a + 1, v);
  }
};

// Integers into bins one wide on whole numbers from lo >= 0 (numpy.bincount's bins, lo = 0):
// the bin is x - lo, with no conversion to double and no edge to compare. Every integer type:
// a negative value is below lo, and x - lo is taken in 64 bits once x >= lo.
struct unit_width_binner {
  std::uint64_t lo, bins;
  bool closed_last;

  static bool usable(const histogram_problem& p) {
    return !is_float(p.type) && !p.edge_array && p.lo >= 0 && p.lo == std::floor(p.lo) &&
           p.hi - p.lo == double(p.bins) && p.hi <= 9007199254740992.0;  // 2^53
  }
  explicit unit_width_binner(const histogram_problem& p)
      : lo(std::uint64_t(p.lo)), bins(p.bins), closed_last(p.closed_last) {}

  template <class T> PPLAB_HD std::size_t operator()(T x) const noexcept {
    if constexpr (std::is_signed_v<T>)
      if (x < 0) return bins;
    const std::uint64_t v = std::uint64_t(x);
    if (v < lo) return bins;
    const std::uint64_t d = v - lo;
    if (d < bins) return d;
    return d == bins && closed_last ? bins - 1 : bins + 1;
  }
};

// Calls f(binner) with the binner the call's problem asks for (host rungs: the exact binners).
template <class T, class F> void with_host_binner(const histogram_call& c, F&& f) {
  if (c.p.edge_array) {  // the lookup table, then a step of search at most, mostly
    const unsigned cells = edge_lookup_binner::cells_for(c.p.bins);
    std::vector<unsigned> table(cells + 1);
    for (unsigned k = 0; k <= cells; ++k)
      table[k] = edge_lookup_binner::entry(c.edges, c.p.bins, cells, k);
    return f(edge_lookup_binner(c.edges, c.p.bins, table.data()));
  }
  if constexpr (sizeof(T) <= 2 && std::is_integral_v<T>)
    if (c.p.natural) return f(natural_binner{std::int64_t(c.p.lo)});
  if constexpr (std::is_integral_v<T>)
    if (unit_width_binner::usable(c.p)) return f(unit_width_binner(c.p));
  if constexpr (std::is_same_v<T, float>)
    if (f32_edge_binner::needed(c.p)) return f(f32_edge_binner(c.p));
  f(range_binner(c.p));
}

// Calls Impl::template run<T>(x, n, binner, counts, call) with the call's dtype and binner.
template <class Impl> void dispatch_histogram(const histogram_call& c) {
  visit_dtype(c.p.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(c.in);
    with_host_binner<T>(
        c, [&](const auto& bin) { Impl::template run<T>(x, c.p.n, bin, c.counts, c); });
  });
}

// Calls Impl::template run_weighted<T, W>(x, w, n, binner, sums, call) for a weighted call: the
// data's dtype, the weights' (float or double) and the binner.
template <class Impl> void dispatch_weighted(const histogram_call& c) {
  visit_dtype(c.p.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(c.in);
    with_host_binner<T>(c, [&](const auto& bin) {
      if (c.p.weight_type == dtype::f32)
        Impl::template run_weighted<T, float>(x, static_cast<const float*>(c.weights), c.p.n, bin,
                                              sums_of(c), c);
      else
        Impl::template run_weighted<T, double>(x, static_cast<const double*>(c.weights), c.p.n, bin,
                                               sums_of(c), c);
    });
  });
}

// Even bins, counted: any dtype, any count of bins.
inline bool any_histogram(const histogram_problem& p) { return counts_even_bins(p); }
// Counts over even bins or an array of edges (host rungs: the exact binners take both).
inline bool counts_any_bins(const histogram_problem& p) { return !p.weighted; }

}  // namespace pplab::detail
