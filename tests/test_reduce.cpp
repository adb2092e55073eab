// One body for every registered reduction rung: every dtype and op, awkward sizes, fresh random
// data, compared with a reference computed here (not by another rung). Integers must match
// exactly; float sums within the bound of a double-precision sum of n terms.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/generate.hpp"
#include "core/pieces.hpp"
#include "core/run.hpp"
#include "core/verify.hpp"
#include "reduce/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

using detail::reduce_rung;

class Reduce : public ::testing::TestWithParam<const reduce_rung*> {};

// An exact rung answers exact totals, of exact problems alone (tested on their own, below).
bool exact_rung(const reduce_rung& r) { return r.can_run({dtype::f64, op::sum, 1, true}); }
#define SKIP_IF_EXACT(r)                                                                           \
  if (exact_rung(r)) GTEST_SKIP() << "an exact rung: ExactSumsAreTheRealSumRoundedOnce tests it"

// argmin's and argmax's reference: the first NaN, else the first extreme element; by plain
// comparisons, one element after another.
template <class T> scalar first_extreme(const T* x, std::size_t n, op o) {
  std::int64_t at = -1;
  for (std::size_t i = 0; i < n; ++i) {
    if (x[i] != x[i]) return scalar::of(std::int64_t(i));
    if (at < 0 || (o == op::argmax ? x[i] > x[at] : x[i] < x[at])) at = std::int64_t(i);
  }
  return scalar::of(at);
}

// var's and std's reference: two passes in long double (the mean, then the squared deviations
// from it), as NumPy computes var; its scale the mean of the squares (or their root for std).
template <class T> scalar variance(const T* x, std::size_t n, op o, double& scale) {
  if (n == 0) return scalar::of(std::numeric_limits<double>::quiet_NaN());
  long double s = 0, m2 = 0, squares = 0;
  for (std::size_t i = 0; i < n; ++i) s += (long double)x[i];
  const long double mean = s / (long double)n;
  for (std::size_t i = 0; i < n; ++i) {
    const long double d = (long double)x[i] - mean;
    m2 += d * d, squares += (long double)x[i] * (long double)x[i];
  }
  const double var = double(m2 / (long double)n);
  scale = double(squares / (long double)n);
  if (o == op::var) return scalar::of(var);
  scale = std::sqrt(scale);
  return scalar::of(std::sqrt(var));
}

template <class T> scalar reference(const T* x, std::size_t n, op o, double& scale);

// A nan op's reference: the plain op's over the elements that are not NaN (an index mapped back
// to the whole array's); nanmin's, nanmax's and nanmean's of no number NaN.
template <class T> scalar without_nan(const T* x, std::size_t n, op o, double& scale) {
  std::vector<T> numbers;
  std::vector<std::int64_t> at;
  for (std::size_t i = 0; i < n; ++i)
    if (x[i] == x[i]) numbers.push_back(x[i]), at.push_back(std::int64_t(i));
  const op p = plain_of(o);
  const scalar s = reference(numbers.data(), numbers.size(), p, scale);
  if (is_arg(o)) return scalar::of(s.i < 0 ? std::int64_t(-1) : at[std::size_t(s.i)]);
  if (numbers.empty() && (p == op::min || p == op::max || p == op::mean)) {
    scale = 0;
    return scalar::of(std::numeric_limits<double>::quiet_NaN());
  }
  return s;
}

// The reference: long double for floats, wrapping 64-bit arithmetic for integers.
template <class T> scalar reference(const T* x, std::size_t n, op o, double& scale) {
  scale = 0;
  if (skips_nan(o)) {
    if constexpr (std::is_floating_point_v<T>) return without_nan(x, n, o, scale);
    o = plain_of(o);  // integers: no NaN to leave out
  }
  if (is_arg(o)) return first_extreme(x, n, o);
  if (is_moments(o)) return variance(x, n, o, scale);
  if (o == op::count_nonzero) {  // NaN is not zero
    std::int64_t count = 0;
    for (std::size_t i = 0; i < n; ++i) count += x[i] != T(0);
    return scalar::of(count);
  }
  if constexpr (std::is_floating_point_v<T>) {
    long double acc = o == op::product ? 1.0L : 0.0L;
    T m = o == op::min ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    bool nan = false;
    for (std::size_t i = 0; i < n; ++i) {
      scale += std::abs(double(x[i]));
      if (o == op::product) acc *= x[i];
      else acc += x[i];
      nan |= std::isnan(x[i]);
      if (x[i] < m && o == op::min) m = x[i];
      if (x[i] > m && o == op::max) m = x[i];
    }
    if (o == op::min || o == op::max)
      return scalar::of(nan ? std::numeric_limits<T>::quiet_NaN() : m);
    if (o == op::mean) {
      scale /= double(n);
      return scalar::of(double(acc / (long double)n));
    }
    if (o == op::product) scale = std::abs(double(acc));
    return scalar::of(double(acc));
  } else {
    using W = wide_t<T>;
    std::uint64_t acc = o == op::product ? 1 : 0;
    T m = o == op::min ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    for (std::size_t i = 0; i < n; ++i) {
      if (o == op::product) acc *= std::uint64_t(W(x[i]));
      else acc += std::uint64_t(W(x[i]));
      if (o == op::min) m = std::min(m, x[i]);
      if (o == op::max) m = std::max(m, x[i]);
    }
    if (o == op::min || o == op::max) return scalar::of(m);
    if (o == op::mean) {  // exact: the sum in 128 bits
      __int128 exact = 0;
      for (std::size_t i = 0; i < n; ++i) exact += __int128(x[i]);
      scale = 1;
      return scalar::of(double((long double)exact / (long double)n));
    }
    return scalar::of(W(acc));
  }
}

void expect_match(const scalar& got, const scalar& want, double scale, std::size_t n,
                  bool float_accumulator) {
  ASSERT_EQ(int(got.k), int(want.k)) << "accumulator kind";
  if (got.k == scalar::kind::f64) {
    if (got.f == want.f) return;  // also the infinite identities of min and max
    if (std::isnan(want.f)) {
      EXPECT_TRUE(std::isnan(got.f)) << "expected NaN, got " << got.f;
      return;
    }
    // A sum of n terms: error at most about n * eps * sum|x| (core/verify.hpp).
    const double tol =
        detail::sum_tolerance(n, float_accumulator) * std::max(scale, std::abs(want.f));
    EXPECT_NEAR(got.f, want.f, tol + 1e-300);
  } else if (got.k == scalar::kind::i64) {
    EXPECT_EQ(got.i, want.i);
  } else {
    EXPECT_EQ(got.u, want.u);
  }
}

TEST_P(Reduce, EveryDtypeOpAndAwkwardSize) {
  const reduce_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  SKIP_IF_EXACT(r);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : awkward_sizes(rng))
    for (dtype t : test_dtypes())
      for (op o : test_ops()) {
        // The mean and the argmin/argmax of nothing: errors at the API, tested there (nanmean's
        // of nothing, NaN, by NanOpsLeaveEveryNaNOut).
        if ((plain_of(o) == op::mean || is_arg(o)) && n == 0) continue;
        const detail::reduce_problem p{t, o, n};
        if (!r.can_run(p)) continue;
        SCOPED_TRACE(std::string(name_of(t)) + " " + std::string(name_of(o)) +
                     " n=" + std::to_string(n));
        std::vector<std::byte> data(n * size_of(t) + 1);
        // Products of floats stay finite with values near 1; everything else is uniform.
        const bool product = plain_of(o) == op::product && is_float(t);
        const auto dist = product ? detail::distribution::normal : detail::distribution::uniform;
        detail::generate(t, data.data(), n, dist, rng());
        visit_dtype(t, [&](auto tag) {
          using T = decltype(tag);
          T* x = reinterpret_cast<T*>(data.data());
          if constexpr (std::is_floating_point_v<T>) {
            if (product)
              for (std::size_t i = 0; i < n; ++i) x[i] = T(1) + x[i] / T(64);
            if (skips_nan(o) || o == op::count_nonzero)  // about one element in eight NaN, for
              for (std::size_t i = 0; i < n; ++i)       // the nan ops to leave out and counts
                if (rng() % 8 == 0) x[i] = std::numeric_limits<T>::quiet_NaN();
          }
          if (o == op::count_nonzero)  // about one element in four zero, -0.0 among them
            for (std::size_t i = 0; i < n; ++i)
              if (rng() % 4 == 0) x[i] = rng() % 2 ? T(0) : T(-T(0));
        });
        double scale = 0;
        const scalar want = visit_dtype(t, [&](auto tag) {
          using T = decltype(tag);
          return reference(reinterpret_cast<const T*>(data.data()), n, o, scale);
        });
        const scalar got = detail::run_rung(r, p, data.data());
        expect_match(got, want, scale, n, r.info.float_accumulator);
      }
}

TEST_P(Reduce, NaNPropagatesThroughMinMaxAndSum) {
  const reduce_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  SKIP_IF_EXACT(r);
  std::mt19937_64 rng(fresh_seed());
  for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(70001)}) {
    std::vector<double> x(n);
    for (double& v : x) v = double(rng() % 1000) - 500;
    x[rng() % n] = std::numeric_limits<double>::quiet_NaN();
    std::vector<float> xf(x.begin(), x.end());
    for (op o : {op::min, op::max, op::sum}) {
      if (!r.can_run({dtype::f64, o, n})) continue;
      EXPECT_TRUE(std::isnan(detail::run_rung(r, {dtype::f64, o, n}, x.data()).f))
          << name_of(o) << " n=" << n;
      EXPECT_TRUE(std::isnan(detail::run_rung(r, {dtype::f32, o, n}, xf.data()).f))
          << name_of(o) << " n=" << n;
    }
  }
}

// The nan ops on the layouts random data rarely gives: NaN alone, NaN first or last, one number
// among NaN, infinities beside NaN, and nothing at all.
TEST_P(Reduce, NanOpsLeaveEveryNaNOut) {
  const reduce_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  SKIP_IF_EXACT(r);
  const double nan = std::numeric_limits<double>::quiet_NaN(),
               inf = std::numeric_limits<double>::infinity();
  std::mt19937_64 rng(fresh_seed());
  std::vector<std::vector<double>> layouts;
  for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(4099), std::size_t(70001)}) {
    layouts.emplace_back(n, nan);  // NaN alone
    std::vector<double> x(n, nan);
    x[rng() % n] = 3.5;  // one number among NaN
    layouts.push_back(x);
    for (double& v : x) v = double(rng() % 1000) - 500;
    x[0] = nan, x[n - 1] = nan;  // NaN at both ends
    layouts.push_back(x);
    x[n / 2] = inf;  // an infinity beside them
    layouts.push_back(x);
    if (n > 2) x[n / 3] = -inf;  // both infinities: the sum and the mean NaN
    layouts.push_back(x);
  }
  layouts.emplace_back();  // nothing
  int ran = 0;
  for (const std::vector<double>& x : layouts)
    for (op o : all_ops) {
      const std::size_t n = x.size();
      if (!skips_nan(o) || (is_arg(o) && n == 0)) continue;
      // products of hundreds overflow, and then meet a zero, at other steps in long double
      if (o == op::nanprod && n > 7) continue;
      const std::vector<float> xf(x.begin(), x.end());
      for (dtype t : {dtype::f64, dtype::f32}) {
        const detail::reduce_problem p{t, o, n};
        if (!r.can_run(p)) continue;
        SCOPED_TRACE(std::string(name_of(t)) + " " + std::string(name_of(o)) +
                     " n=" + std::to_string(n));
        const void* data = t == dtype::f64 ? static_cast<const void*>(x.data()) : xf.data();
        double scale = 0;
        const scalar want =
            t == dtype::f64 ? reference(x.data(), n, o, scale) : reference(xf.data(), n, o, scale);
        expect_match(detail::run_rung(r, p, data), want, scale, n, r.info.float_accumulator);
        ++ran;
      }
    }
  if (ran == 0) GTEST_SKIP() << "takes no nan op";
}

// argmin and argmax: ties keep the first; the first NaN wins over everything; infinities and the
// type's extreme values are elements like any other (all of them -inf: index 0).
TEST_P(Reduce, ArgminArgmaxKeepTheFirstAndTheFirstNaN) {
  const reduce_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  if (!r.can_run({dtype::f32, op::argmax, 1})) GTEST_SKIP() << "takes no argmin or argmax";
  std::mt19937_64 rng(fresh_seed());
  const float inf = std::numeric_limits<float>::infinity(), nan = NAN;
  for (std::size_t n :
       {std::size_t(1), std::size_t(33), std::size_t(70001), std::size_t(1) << 20}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::vector<float> x(n);
    for (float& v : x) v = float(rng() % 64);  // many ties
    const auto run = [&](dtype t, op o, const void* d) {
      return detail::run_rung(r, {t, o, n}, d).i;
    };
    const auto want = [&](op o) { return first_extreme(x.data(), n, o).i; };
    EXPECT_EQ(run(dtype::f32, op::argmax, x.data()), want(op::argmax));
    EXPECT_EQ(run(dtype::f32, op::argmin, x.data()), want(op::argmin));
    std::fill(x.begin(), x.end(), -inf);
    EXPECT_EQ(run(dtype::f32, op::argmax, x.data()), 0);
    EXPECT_EQ(run(dtype::f32, op::argmin, x.data()), 0);
    x[n - 1] = inf;
    EXPECT_EQ(run(dtype::f32, op::argmax, x.data()), std::int64_t(n - 1));
    const std::size_t first_nan = rng() % n;
    x[first_nan] = nan;
    if (first_nan + 1 < n) x[first_nan + 1 + rng() % (n - first_nan - 1)] = nan;
    EXPECT_EQ(run(dtype::f32, op::argmax, x.data()), std::int64_t(first_nan));
    EXPECT_EQ(run(dtype::f32, op::argmin, x.data()), std::int64_t(first_nan));
    std::vector<double> xd(x.begin(), x.end());
    EXPECT_EQ(run(dtype::f64, op::argmin, xd.data()), std::int64_t(first_nan));
    if (!r.can_run({dtype::i64, op::argmin, n})) continue;
    std::vector<std::int64_t> xi(n, std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(run(dtype::i64, op::argmin, xi.data()), 0);
    xi[n / 2] = std::numeric_limits<std::int64_t>::lowest();
    xi[n - 1] = std::numeric_limits<std::int64_t>::lowest();
    EXPECT_EQ(run(dtype::i64, op::argmin, xi.data()), std::int64_t(n / 2));
  }
}

TEST_P(Reduce, EmptyInputGivesTheIdentity) {
  const reduce_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  SKIP_IF_EXACT(r);
  const float* none = nullptr;
  const auto empty = [&](dtype t, op o) {
    const detail::reduce_problem p{t, o, 0};
    return r.can_run(p) ? std::optional<scalar>(detail::run_rung(r, p, none)) : std::nullopt;
  };
  // Every rung runs at least one of these; each it can run must give the identity.
  int ran = 0;
  if (const auto s = empty(dtype::f32, op::sum)) {
    EXPECT_EQ(s->f, 0.0);
    ++ran;
  }
  if (const auto s = empty(dtype::f32, op::product)) {
    EXPECT_EQ(s->f, 1.0);
    ++ran;
  }
  if (const auto s = empty(dtype::f32, op::min)) {
    EXPECT_EQ(s->f, std::numeric_limits<double>::infinity());
    ++ran;
  }
  if (const auto s = empty(dtype::u32, op::min)) {
    EXPECT_EQ(s->u, std::numeric_limits<std::uint32_t>::max());
    ++ran;
  }
  if (const auto s = empty(dtype::f32, op::var)) {  // NumPy's var of nothing: NaN
    EXPECT_TRUE(std::isnan(s->f));
    ++ran;
  }
  EXPECT_GT(ran, 0) << "the rung runs none of the empty problems";
  if (const auto s = empty(dtype::i16, op::max)) {
    EXPECT_EQ(s->i, std::numeric_limits<std::int16_t>::lowest());
  }
  if (const auto s = empty(dtype::i64, op::max)) {
    EXPECT_EQ(s->i, std::numeric_limits<std::int64_t>::lowest());
  }
}

TEST_P(Reduce, FloatSumIsTheSameOnEveryRun) {
  const reduce_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  SKIP_IF_EXACT(r);
  if (!r.info.reproducible)
    GTEST_SKIP() << "combines in an order set by timing (documented in its header comment)";
  const std::size_t n = sanitizer_run() ? 70001 : (std::size_t(1) << 20) + 7;
  std::vector<float> x(n);
  detail::generate(dtype::f32, x.data(), n, detail::distribution::normal, fresh_seed());
  const double first = detail::run_rung(r, {dtype::f32, op::sum, n}, x.data()).f;
  for (int rep = 0; rep < 5; ++rep)
    EXPECT_EQ(detail::run_rung(r, {dtype::f32, op::sum, n}, x.data()).f, first);
}

// The exact sum's oracle, independent of pplab's: Shewchuk's non-overlapping partials, rounded
// once as CPython's math.fsum rounds them (finite data whose partial sums stay finite).
double fsum(const std::vector<double>& xs) {
  std::vector<double> partials;
  for (double x : xs) {
    std::size_t i = 0;
    for (double y : partials) {
      if (std::abs(x) < std::abs(y)) std::swap(x, y);
      const double hi = x + y, lo = y - (hi - x);
      if (lo != 0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  if (partials.empty()) return 0.0;
  std::size_t n = partials.size();
  double hi = partials[--n], lo = 0;
  while (n > 0) {
    const double x = hi, y = partials[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0) break;
  }
  // A half-way case rounded the wrong way by the last add: the partials below say which way.
  if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
    const double y = lo * 2, x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

// Data hostile to an exact sum, as doubles (each exactly a float when `as_float`): runs of
// plain uniform values (tiles a window takes), values of every exponent and sign, subnormals,
// zeros, pairs that cancel, ties, a few scales far apart, values spread from the subnormals up
// (past the host's bands, and within them, with the sum in the subnormals).
std::vector<double> hostile(std::size_t n, bool as_float, std::mt19937_64& rng) {
  std::vector<double> x(n);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int lowest = as_float ? -149 : -1074, highest = as_float ? 127 : 1000;
  std::uniform_int_distribution<int> exponent(lowest, highest);
  std::size_t i = 0;
  while (i < n) {
    const std::size_t run = std::min<std::size_t>(n - i, 1 + rng() % 3000);
    const int kind = int(rng() % 9);
    for (std::size_t k = 0; k < run; ++k, ++i) {
      double v;
      switch (kind) {
      case 0:  // uniform: the fast path
      case 1:
        v = unit(rng) - (kind == 1 ? 0.5 : 0.0);
        break;
      case 2:  // any exponent
        v = std::ldexp(unit(rng) + 0.5, exponent(rng)) * (rng() & 1 ? 1 : -1);
        break;
      case 3:  // subnormals and zeros
        v = rng() % 3 == 0 ? 0.0 : std::ldexp(double(rng() % 4096), lowest) * (rng() & 1 ? 1 : -1);
        break;
      case 4:  // a value and its negation
        v = k % 2 ? -x[i - 1] : std::ldexp(unit(rng), exponent(rng) / 4);
        break;
      case 5:  // a few scales 2^37 apart: too wide for a window, a few bands or classes
        v = std::ldexp(unit(rng) - 0.5, 37 * int(rng() % 4) - (as_float ? 60 : 0));
        break;
      case 6:  // from the subnormals up over 270 binades: past the host's bands, value by value
        v = std::ldexp(unit(rng) - 0.5, lowest + 1 + int(rng() % 270));
        break;
      case 7:  // subnormals among pairs that cancel over 90 binades above them: three bands,
               // the lowest with the subnormals, which make the whole sum
        v = k % 3 == 2   ? std::ldexp(double(rng() % 4096), lowest)
            : k % 3 == 1 ? -x[i - 1]
                         : std::ldexp(unit(rng) - 0.5, lowest + 60 + int(rng() % 90));
        break;
      default:  // uniform with a rare huge or tiny value
        v = unit(rng);
        if (rng() % 997 == 0) v = std::ldexp(v, rng() & 1 ? highest - 2 : lowest + 60);
      }
      x[i] = as_float ? double(float(v)) : v;
    }
  }
  return x;
}

// Every exact rung (seq, cpu, cuda): answers known exactly (ties to even and broken, sums past
// the largest double, cancellation, subnormals, infinities and NaN); hostile data of awkward
// sizes and alignments against math.fsum's algorithm, f32 and f64, sums and means; the same bits
// as seq's long accumulator.
TEST_P(Reduce, ExactSumsAreTheRealSumRoundedOnce) {
  const reduce_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  if (!exact_rung(r)) GTEST_SKIP() << "not an exact rung";
  const auto run = [&](dtype t, op o, const void* x, std::size_t n) {
    return detail::run_rung(r, {t, o, n, true}, x).f;
  };
  const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  const double e53 = std::ldexp(1.0, -53), big = std::numeric_limits<double>::max();
  const double tiny = std::numeric_limits<double>::denorm_min(), inf = INFINITY;
  const struct {
    std::vector<double> x;
    double sum;
  } known[] = {{{1.0, e53}, 1.0},                       // a tie: to even
               {{1.0, e53, e53 * e53}, 1.0 + 2 * e53},  // broken upward by a bit far below
               {{1.0 + 2 * e53, e53}, 1.0 + 4 * e53},   // a tie: to even, upward
               {{big, big, -big}, big},                 // past the range, and back
               {{big, big}, inf},
               {{-big, -big}, -inf},
               {{tiny, tiny, tiny, -tiny}, 2 * tiny},  // subnormals, exactly
               {{1e300, 1.0, -1e300}, 1.0},            // what a float sum loses whole
               {{1.0, inf, 2.0}, inf},
               {{-inf, 1.0}, -inf},
               {{inf, -inf}, NAN},
               {{1.0, NAN, inf}, NAN},
               {{}, 0.0}};
  for (const auto& k : known)
    EXPECT_TRUE(same(run(dtype::f64, op::sum, k.x.data(), k.x.size()), k.sum))
        << k.x.size() << " values: " << run(dtype::f64, op::sum, k.x.data(), k.x.size());
  const float f24 = std::ldexp(1.0f, -24), fbig = std::numeric_limits<float>::max();
  const std::vector<float> fx = {1.0f, f24, f24 * f24}, fpast = {fbig, fbig, fbig};
  EXPECT_EQ(run(dtype::f32, op::sum, fx.data(), 3), 1.0 + double(f24) + double(f24 * f24));
  EXPECT_EQ(run(dtype::f32, op::sum, fpast.data(), 3), 3.0 * double(fbig));  // no f32 overflow

  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto& reference = *detail::find<reduce_rung>("reduce/seq/r02_exact_long_accumulator");
  for (std::size_t n : awkward_sizes(rng))
    for (bool as_float : {true, false}) {
      if (n == 0) continue;
      SCOPED_TRACE(std::string(as_float ? "f32" : "f64") + " n=" + std::to_string(n));
      const std::vector<double> x = hostile(n + 1, as_float, rng);
      const double want = fsum({x.begin() + 1, x.end()});
      const std::vector<float> xf(x.begin(), x.end());
      const dtype t = as_float ? dtype::f32 : dtype::f64;
      // From the second element: a start off the 16-byte boundary.
      const void* d = as_float ? static_cast<const void*>(xf.data() + 1) : x.data() + 1;
      EXPECT_EQ(run(t, op::sum, d, n), want);
      const double mean = run(t, op::mean, d, n);
      EXPECT_EQ(mean, detail::run_rung(reference, {t, op::mean, n, true}, d).f);
      if ((n & (n - 1)) == 0 && std::abs(want) > 1e-290) {  // a power of two: the sum's over n
        EXPECT_EQ(mean, want / double(n));
      }
      // The same data from an aligned start: other tiles, the same bits.
      std::vector<double> aligned(x.begin() + 1, x.end());
      std::vector<float> alignedf(xf.begin() + 1, xf.end());
      EXPECT_EQ(
          run(t, op::sum, as_float ? static_cast<const void*>(alignedf.data()) : aligned.data(), n),
          want);
    }
  // Only subnormals among pairs that cancel, 90 binades above them (blocks spread over bands,
  // the lowest holding the subnormals): the sum is the subnormals' alone, so none may be lost.
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (bool as_float : {true, false}) {
    const int lowest = as_float ? -149 : -1074;
    std::vector<double> x(4098);  // (whole triples)
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] = i % 3 == 2   ? std::ldexp(double(1 + rng() % 4096), lowest)
             : i % 3 == 1 ? -x[i - 1]
                          : std::ldexp(unit(rng) - 0.5, lowest + 60 + int(rng() % 90));
    if (as_float)
      for (double& v : x) v = double(float(v));  // (each is a float already)
    const double want = fsum(x);
    ASSERT_GT(want, 0.0);
    const std::vector<float> xf(x.begin(), x.end());
    EXPECT_EQ(run(as_float ? dtype::f32 : dtype::f64, op::sum,
                  as_float ? static_cast<const void*>(xf.data()) : x.data(), x.size()),
              want)
        << (as_float ? "f32" : "f64");
  }
}

// The tolerance rule of the lab and the mpi/nccl tests near zero: two products of 1009 normal
// values one subnormal step apart (an mpi run's answer against the sequential one) agree; a
// subnormal answer twice the reference's does not; and above the smallest normal number the
// rule stays relative.
TEST(Tolerance, BelowTheSmallestNormalNumberTheErrorIsAbsolute) {
  double rel = 0;
  const scalar want = scalar::of(3.7256474356294294e-315);
  EXPECT_TRUE(
      detail::close_enough(scalar::of(3.7256474405700859e-315), want, 3.7e-315, 1009, false, rel));
  EXPECT_FALSE(detail::close_enough(scalar::of(2 * 3.7256474356294294e-315), want, 3.7e-315, 1009,
                                    false, rel));
  EXPECT_TRUE(
      detail::close_enough(scalar::of(1.0 + 1e-14), scalar::of(1.0), 1.0, 1009, false, rel));
  EXPECT_FALSE(
      detail::close_enough(scalar::of(1.0 + 1e-9), scalar::of(1.0), 1.0, 1009, false, rel));
}

std::vector<const reduce_rung*> all_rungs() {
  std::vector<const reduce_rung*> out;
  for (const auto& r : detail::rungs_of<detail::reduce_rung>()) out.push_back(&r);
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllRungs, Reduce, ::testing::ValuesIn(all_rungs()),
                         [](const auto& info) { return test_name(info.param->info.id); });

// Many values on the host are reduced in parts (core/pieces.hpp), combined in order: with parts
// made small, every seq and cpu rung gives the one piece's answer (integers, min and max
// exactly; float sums within a sum's rounding), with NaN and at sizes that are and are not
// whole parts. A mean is never cut (its integer sum is exact in one piece).
TEST(ReduceParts, HostRungsGiveTheAnswerInParts) {
  std::size_t& piece = detail::piece_elements();
  const std::size_t whole = piece;
  for (const reduce_rung& r : detail::rungs_of<reduce_rung>()) {
    if (r.info.where != backend::seq && r.info.where != backend::cpu) continue;
    for (const dtype t : {dtype::f32, dtype::i32})
      for (const op o : {op::sum, op::min, op::max, op::mean, op::argmax})
        for (const std::size_t n : {std::size_t(30000), std::size_t(25000)}) {
          const detail::reduce_problem p{t, o, n};
          if (!r.can_run(p)) continue;
          SCOPED_TRACE(std::string(r.info.id) + " " + std::string(name_of(t)) + " " +
                       std::string(name_of(o)) + " n=" + std::to_string(n));
          std::vector<std::byte> in(n * size_of(t));
          detail::generate(t, in.data(), n, detail::distribution::normal, n + int(o));
          if (t == dtype::f32 && n == 25000) reinterpret_cast<float*>(in.data())[n - 3] = NAN;
          piece = whole;
          const scalar one = detail::run_rung(r, p, in.data());
          piece = 4096;  // 6 to 8 parts, the last one short
          const scalar parts = detail::run_rung(r, p, in.data());
          piece = whole;
          double rel = 0;
          EXPECT_TRUE(detail::close_enough(parts, one, std::abs(one.f) + 1, n, false, rel))
              << "error " << rel;
          // min, max and integer answers: the same bits (a float sum or mean may differ in its
          // last bits between two runs of one piece: r01's OpenMP reduction combines in any order)
          if (!is_float(t) || o == op::min || o == op::max) {
            ASSERT_EQ(parts.k, one.k);
            if (one.k == scalar::kind::f64)
              EXPECT_TRUE(parts.f == one.f || (std::isnan(parts.f) && std::isnan(one.f)))
                  << parts.f << " against " << one.f;
            else if (one.k == scalar::kind::i64) EXPECT_EQ(parts.i, one.i);
            else EXPECT_EQ(parts.u, one.u);
          }
        }
  }
}

// Exact rows (pplab::reduce_rows_exact): each row sum_exact's (mean_exact's) of that row alone,
// short rows and long ones, with a row stride, on seq and cpu; what it refuses.
TEST(ExactSum, RowsAreEachTheirOwnExactSum) {
  std::mt19937_64 rng(fresh_seed());
  for (bool as_float : {true, false})
    for (std::size_t cols : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(2047),
                             std::size_t(2048), std::size_t(5000)}) {
      const std::size_t rows = 5, ld = cols + 3;
      const std::vector<double> x = hostile(rows * ld + 1, as_float, rng);
      const std::vector<float> xf(x.begin(), x.end());
      const dtype t = as_float ? dtype::f32 : dtype::f64;
      const auto at = [&](std::size_t i) {
        return as_float ? static_cast<const void*>(xf.data() + i) : x.data() + i;
      };
      for (backend b : {backend::seq, backend::cpu})
        for (op o : {op::sum, op::mean}) {
          if (o == op::mean && cols == 0) continue;
          SCOPED_TRACE(std::string(name_of(b)) + " " + std::string(name_of(t)) + " " +
                       std::string(name_of(o)) + " cols=" + std::to_string(cols));
          std::vector<double> got(rows, -1.0);
          reduce_rows_exact(b, t, at(0), rows, cols, ld, o, got.data());
          for (std::size_t y = 0; y < rows; ++y) {
            const double want = o == op::sum ? sum_exact(backend::seq, t, at(y * ld), cols)
                                             : mean_exact(backend::seq, t, at(y * ld), cols);
            EXPECT_TRUE(got[y] == want || (std::isnan(got[y]) && std::isnan(want))) << y;
          }
        }
    }
  double out[2];
  const float x[4] = {1, 2, 3, 4};
  expect_error(
      errc::invalid_argument,
      [&] { reduce_rows_exact(backend::cpu, dtype::f32, x, 2, 0, 0, op::mean, out); }, "empty");
  expect_error(
      errc::invalid_argument,
      [&] { reduce_rows_exact(backend::cpu, dtype::f32, x, 2, 2, 1, op::sum, out); }, "stride");
  expect_error(
      errc::invalid_argument,
      [&] { reduce_rows_exact(backend::cpu, dtype::f32, x, 2, 2, 0, op::max, out); },
      "sums and means");
  expect_error(
      errc::unsupported,
      [&] { reduce_rows_exact(backend::cuda, dtype::f32, x, 2, 2, 0, op::sum, out); }, "host");
}

// The exact API (pplab::sum_exact, mean_exact) on the host backends: the same bits for any
// order of the data and any thread count, the same on seq and cpu, in parts as whole; the errors.
TEST(ExactSum, TheSameBitsWhateverTheOrderThreadsOrParts) {
  std::mt19937_64 rng(fresh_seed());
  std::normal_distribution<double> z;
  std::uniform_int_distribution<int> exponent(-80, 80);
  std::vector<double> x(200003);
  for (double& v : x) v = std::ldexp(z(rng), exponent(rng));
  std::vector<double> both = x;  // x and -x: exactly zero
  for (double v : x) both.push_back(-v);
  std::shuffle(both.begin(), both.end(), rng);
  EXPECT_EQ(sum_exact(backend::cpu, dtype::f64, both.data(), both.size()), 0.0);
  std::vector<float> xf(x.begin(), x.end());
  for (dtype t : {dtype::f64, dtype::f32}) {
    const void* d = t == dtype::f64 ? static_cast<const void*>(x.data()) : xf.data();
    const double s = sum_exact(backend::seq, t, d, x.size()),
                 m = mean_exact(backend::seq, t, d, x.size());
    const int threads = omp_get_max_threads();
    for (int n : {1, 2, 3}) {
      omp_set_num_threads(n);
      EXPECT_EQ(sum_exact(backend::cpu, t, d, x.size()), s) << n << " threads";
      EXPECT_EQ(mean_exact(backend::cpu, t, d, x.size()), m) << n << " threads";
    }
    omp_set_num_threads(threads);
    // In parts (core/pieces.hpp): the parts' exact totals added, rounded once.
    std::size_t& piece = detail::piece_elements();
    const std::size_t whole = piece;
    piece = 7001;
    EXPECT_EQ(sum_exact(backend::cpu, t, d, x.size()), s);
    EXPECT_EQ(mean_exact(backend::seq, t, d, x.size()), m);
    piece = whole;
  }
  std::vector<double> shuffled = x;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  EXPECT_EQ(sum_exact(backend::cpu, dtype::f64, shuffled.data(), x.size()),
            sum_exact(backend::cpu, dtype::f64, x.data(), x.size()));
  std::string ran;
  sum_exact(backend::cpu, dtype::f64, x.data(), x.size(), {.rung = {}, .ran = &ran});
  EXPECT_EQ(ran, "reduce/cpu/r04_exact_bins_per_thread");
  EXPECT_EQ(sum_exact(backend::seq, dtype::f64, x.data(), x.size(),
                      {.rung = "r02_exact_long_accumulator"}),
            sum_exact(backend::seq, dtype::f64, x.data(), x.size()));

  const std::vector<int> ints = {1, 2};
  expect_error(
      errc::invalid_argument, [&] { sum_exact(backend::cpu, dtype::i32, ints.data(), 2); },
      "exact already");
  expect_error(
      errc::invalid_argument, [&] { mean_exact(backend::cpu, dtype::f64, x.data(), 0); }, "empty");
  expect_error(
      errc::invalid_argument, [&] { sum_exact(backend::cpu, dtype::f64, nullptr, 3); }, "null");
  // A plain rung is not an exact one.
  expect_error(
      errc::unsupported,
      [&] { sum_exact(backend::cpu, dtype::f64, x.data(), 2, {.rung = "r03_simd_accumulators"}); },
      "cannot run this problem");
}

}  // namespace
}  // namespace pplab::test
