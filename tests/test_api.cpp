// The public API as a user calls it: backend tags, typed results, user operators, and the
// errors bad calls get.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>

#include "core/generate.hpp"
#include "core/run.hpp"
#include "pplab/device.hpp"
#include "pplab/pplab.hpp"
#include "reduce/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

TEST(Api, TypedReductionsOnEachHostBackend) {
  std::vector<std::int8_t> small = {100, 100, 100, -7};
  std::vector<float> f = {1.5f, -2.0f, 8.25f};
  for (backend b : {backend::seq, backend::cpu}) {
    const auto s = reduce(b, dtype::i8, small.data(), small.size(), op::sum);
    EXPECT_EQ(s.i, 293);  // accumulated in 64 bits, not wrapped at 8
  }
  static_assert(std::is_same_v<decltype(reduce(cpu, small, sum)), std::int64_t>);
  static_assert(std::is_same_v<decltype(reduce(cpu, small, max)), std::int8_t>);
  static_assert(std::is_same_v<decltype(reduce(cpu, f, mean)), double>);
  EXPECT_EQ(reduce(cpu, small, sum), 293);
  EXPECT_EQ(reduce(seq, small, min), -7);
  EXPECT_EQ(reduce(cpu, f, max), 8.25f);
  EXPECT_DOUBLE_EQ(reduce(cpu, f, mean), 7.75 / 3);
  EXPECT_EQ(reduce(cpu, std::vector<std::uint64_t>{}, product), 1u);
  // numpy.count_nonzero: NaN is not zero, -0.0 is; an int64 count of any dtype
  const std::vector<double> mixed = {0.0, -0.0, std::nan(""), 1e-300, -2.0, 0.0};
  static_assert(std::is_same_v<decltype(reduce(cpu, mixed, count_nonzero)), std::int64_t>);
  EXPECT_EQ(reduce(cpu, mixed, count_nonzero), 3);
  EXPECT_EQ(reduce(seq, small, count_nonzero), 4);
  EXPECT_EQ(reduce(cpu, std::vector<float>{}, count_nonzero), 0);
}

TEST(Api, FarthestPointIsAUserOperatorOnBothHostBackends) {
  std::mt19937_64 rng(fresh_seed());
  std::normal_distribution<float> z;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
    std::vector<point3> pts(n);
    for (auto& p : pts) p = {z(rng), z(rng), z(rng)};
    point3 want{0, 0, 0};
    float best = 0;
    for (const auto& p : pts) {
      const float m = p.x * p.x + p.y * p.y + p.z * p.z;
      if (m > best) best = m, want = p;
    }
    EXPECT_EQ(reduce(seq, pts, farthest_point_op()), want) << n;
    EXPECT_EQ(reduce(cpu, pts, farthest_point_op()), want) << n;
  }
  // Equal magnitudes: the tie rule makes the answer independent of order.
  std::vector<point3> ties = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}};
  EXPECT_EQ(reduce(cpu, ties, farthest_point_op()), (point3{1, 0, 0}));
  std::reverse(ties.begin(), ties.end());
  EXPECT_EQ(reduce(seq, ties, farthest_point_op()), (point3{1, 0, 0}));
}

TEST(Api, AnyUserOperatorWithAnIdentity) {
  std::vector<int> x(5000);
  std::iota(x.begin(), x.end(), 1);
  const auto gcd_op = make_op(0, [](int a, int b) { return std::gcd(a, b); });
  EXPECT_EQ(reduce(cpu, x, gcd_op), 1);
  for (int& v : x) v *= 6;
  EXPECT_EQ(reduce(cpu, x, gcd_op), 6);
}

TEST(Api, HistogramDefaultsFollowTheDocumentedRules) {
  std::vector<std::uint8_t> bytes = {0, 255, 7, 7};
  const auto h = histogram(cpu, bytes);
  EXPECT_EQ(h.bins(), 256u);
  EXPECT_EQ(h.counts[7], 2u);
  EXPECT_EQ(h.counts[255], 1u);
  std::vector<std::int16_t> shorts = {-32768, 32767};
  const auto hs = histogram(cpu, shorts);
  EXPECT_EQ(hs.bins(), 65536u);
  EXPECT_EQ(hs.counts.front(), 1u);
  EXPECT_EQ(hs.counts.back(), 1u);
  // Floats: 10 bins over [min, max], last bin closed, as numpy.histogram.
  std::vector<double> d = {0.0, 1.0, 2.0, 10.0};
  const auto hd = histogram(cpu, d);
  EXPECT_EQ(hd.bins(), 10u);
  EXPECT_EQ(hd.lo, 0.0);
  EXPECT_EQ(hd.hi, 10.0);
  EXPECT_EQ(hd.counts[9], 1u);
  EXPECT_EQ(hd.overflow, 0u);
  // Half-open by default when a range is given: hi itself is overflow.
  histogram_options o;
  o.bins = 5, o.lo = 0.0, o.hi = 10.0;
  const std::vector<double> e = {-1, 0, 10, std::nan(""), 9.999};
  const auto he = histogram(cpu, e, o);
  EXPECT_EQ(he.underflow, 1u);
  EXPECT_EQ(he.overflow, 1u);
  EXPECT_EQ(he.nan, 1u);
  EXPECT_EQ(he.total(), e.size());
  o.closed_last = true;
  EXPECT_EQ(histogram(seq, e, o).counts[4], 2u);
  // numpy's edges: linspace(0, 1, 4)
  o.bins = 3, o.lo = 0.0, o.hi = 1.0;
  const auto h3 = histogram(cpu, std::vector<float>{}, o);
  EXPECT_EQ(h3.edge(1), 1.0 / 3);
  EXPECT_EQ(h3.edge(3), 1.0);
}

// The mean of integers sums in 128 bits: no wrap for any size of 64-bit values (NumPy's float64
// mean gives the same figures here).
TEST(Api, MeansOf64BitIntegersDoNotWrap) {
  const std::vector<std::int64_t> big(4, std::int64_t(1) << 62);
  const std::vector<std::uint64_t> huge(3, ~std::uint64_t(0));
  const std::vector<std::int64_t> mixed = {std::numeric_limits<std::int64_t>::max(),
                                           std::numeric_limits<std::int64_t>::max(),
                                           std::numeric_limits<std::int64_t>::min(), 1};
  for (backend b : {backend::seq, backend::cpu}) {
    EXPECT_EQ(reduce(b, dtype::i64, big.data(), big.size(), op::mean).f, 4611686018427387904.0);
    EXPECT_EQ(reduce(b, dtype::u64, huge.data(), huge.size(), op::mean).f, 18446744073709551615.0);
    EXPECT_EQ(reduce(b, dtype::i64, mixed.data(), mixed.size(), op::mean).f,
              double((long double)(std::numeric_limits<std::int64_t>::max() - 1) / 4));
  }
  // Every cpu rung, not only the API's.
  for (const auto& r : detail::rungs_of<detail::reduce_rung>()) {
    if ((r.info.where != backend::seq && r.info.where != backend::cpu) ||
        !r.can_run({dtype::i64, op::mean, big.size()}))
      continue;
    EXPECT_EQ(detail::run_rung(r, {dtype::i64, op::mean, big.size()}, big.data()).f,
              4611686018427387904.0)
        << r.info.id;
  }
}

// Rows reduced on their own (numpy.sum(x, axis=-1)): each answer the whole-array call's on that
// row on seq, with row strides, every op, integers and floats; what it refuses, with reasons.
TEST(Api, RowsReducedOnTheirOwnAnswerAsTheirRowAlone) {
  std::mt19937_64 rng(fresh_seed());
  std::normal_distribution<double> z;
  const std::size_t rows = 301, cols = 77, ld = 80;
  std::vector<float> f(rows * ld, std::nanf(""));  // the padding is never read
  std::vector<std::int32_t> i(rows * ld, 1 << 30);
  for (std::size_t y = 0; y < rows; ++y)
    for (std::size_t x = 0; x < cols; ++x)
      f[y * ld + x] = float(z(rng)), i[y * ld + x] = std::int32_t(z(rng) * 1000);
  for (backend b : {backend::seq, backend::cpu})
    for (op o : all_ops) {
      std::vector<scalar> got(rows);
      reduce_rows(b, dtype::f32, f.data(), rows, cols, ld, o, got.data());
      for (std::size_t y = 0; y < rows; ++y) {
        const scalar want = reduce(b, dtype::f32, f.data() + y * ld, cols, o);
        ASSERT_EQ(got[y].k, want.k);
        ASSERT_EQ(got[y].f, want.f) << name_of(b) << " " << name_of(o) << " row " << y;
      }
      reduce_rows(b, dtype::i32, i.data(), rows, cols, ld, o, got.data());
      for (std::size_t y = 0; y < rows; ++y) {
        const scalar want = reduce(b, dtype::i32, i.data() + y * ld, cols, o);
        ASSERT_EQ(got[y].k, want.k);
        ASSERT_EQ(got[y].to_double(), want.to_double()) << name_of(b) << " row " << y;
      }
    }
  std::vector<scalar> out(2);
  reduce_rows(backend::cpu, dtype::f32, nullptr, 0, 5, 0, op::sum, nullptr);  // no rows
  reduce_rows(backend::cpu, dtype::f32, nullptr, 2, 0, 0, op::sum, out.data());
  EXPECT_EQ(out[0].f, 0.0);
  expect_error(
      errc::invalid_argument,
      [&] { reduce_rows(backend::cpu, dtype::f32, nullptr, 2, 0, 0, op::mean, out.data()); },
      "mean of an empty row");
  expect_error(
      errc::invalid_argument,
      [&] { reduce_rows(backend::seq, dtype::f32, nullptr, 2, 0, 0, op::argmin, out.data()); },
      "argmin of an empty row");
  expect_error(
      errc::invalid_argument, [&] { reduce(backend::cpu, dtype::f32, nullptr, 0, op::argmax); },
      "argmax of an empty sequence");
  // The typed call answers the index as a 64-bit integer.
  const std::vector<double> ties = {1, 5, -2, 5, NAN, 5};
  EXPECT_EQ(reduce(cpu, std::span(ties).first(4), argmax), 1);
  EXPECT_EQ(reduce(seq, std::span(ties).first(4), argmin), 2);
  EXPECT_EQ(reduce(cpu, ties, argmin), 4);
  expect_error(
      errc::invalid_argument,
      [&] { reduce_rows(backend::cpu, dtype::f32, f.data(), 2, 5, 4, op::sum, out.data()); },
      "row stride");
  expect_error(
      errc::unsupported,
      [&] { reduce_rows(backend::nccl, dtype::f32, f.data(), 2, 5, 0, op::sum, out.data()); },
      "seq, cpu and cuda");
}

// One axis of a 3-D array reduced (numpy.sum(x, axis=k)): each answer the whole-array call's on
// that axis's elements, gathered, on seq, with the same bits on cpu; shapes whose column count is
// not a multiple of the block, one column, one row, none; what it refuses.
// A strided view (axes permuted, one reversed, one stepped by 3) reduced where it lies: whole and
// along each axis, each answer that of the view's elements gathered into a C-ordered copy (the
// integers and argmin/argmax exactly, float sums within their rounding).
TEST(Api, AStridedViewReducesAsItsCopy) {
  std::mt19937_64 rng(fresh_seed());
  const std::size_t d0 = 13, d1 = 29, d2 = 17;  // the base array, C order
  std::vector<std::int32_t> base(d0 * d1 * d2);
  for (auto& v : base) v = std::int32_t(rng() % 41) - 20;  // ties
  // view[a][b][c] = base[d0 - 1 - c][3 * b][a]: shape (d2, ceil(d1 / 3), d0)
  const std::vector<std::size_t> shape = {d2, (d1 + 2) / 3, d0};
  const std::vector<std::ptrdiff_t> strides = {1, std::ptrdiff_t(3 * d2), -std::ptrdiff_t(d1 * d2)};
  const std::int32_t* first = base.data() + (d0 - 1) * d1 * d2;
  std::vector<std::int32_t> copy;
  for (std::size_t a = 0; a < shape[0]; ++a)
    for (std::size_t b = 0; b < shape[1]; ++b)
      for (std::size_t c = 0; c < shape[2]; ++c)
        copy.push_back(first[std::ptrdiff_t(a) * strides[0] + std::ptrdiff_t(b) * strides[1] +
                             std::ptrdiff_t(c) * strides[2]]);
  for (op o : all_ops)
    for (backend b : {backend::seq, backend::cpu}) {
      scalar whole;
      reduce_view(b, dtype::i32, first, shape, strides, -1, o, &whole);
      const scalar want = reduce(backend::seq, dtype::i32, copy.data(), copy.size(), o);
      ASSERT_EQ(whole.k, want.k);
      // var and std fold a view's lines in another grouping than seq's loop: the last bits differ
      const double tol = is_moments(o) ? 1e-13 * std::abs(want.to_double()) : 0;
      EXPECT_NEAR(whole.to_double(), want.to_double(), tol) << name_of(o);
      for (int axis = 0; axis < 3; ++axis) {
        std::size_t outer = 1, cols = 1;
        for (int d = 0; d < 3; ++d)
          (d < axis ? outer : cols) *= d == axis ? 1 : shape[std::size_t(d)];
        std::vector<scalar> got(outer * cols), ref(outer * cols);
        reduce_view(b, dtype::i32, first, shape, strides, axis, o, got.data());
        reduce_axis(backend::seq, dtype::i32, copy.data(), outer, shape[std::size_t(axis)], cols, o,
                    ref.data());
        for (std::size_t i = 0; i < got.size(); ++i)
          ASSERT_NEAR(got[i].to_double(), ref[i].to_double(),
                      is_moments(o) ? 1e-13 * std::abs(ref[i].to_double()) : 0)
              << name_of(o) << " axis " << axis << " answer " << i;
      }
    }
  scalar out;
  expect_error(
      errc::invalid_argument,
      [&] { reduce_view(backend::cpu, dtype::i32, first, shape, strides, 3, op::sum, &out); },
      "out of bounds");
  expect_error(
      errc::unsupported,
      [&] { reduce_view(backend::cuda, dtype::i32, first, shape, strides, -1, op::sum, &out); },
      "host backends");
}

TEST(Api, AnAxisReducedAnswersAsItsElementsAlone) {
  std::mt19937_64 rng(fresh_seed());
  std::normal_distribution<double> z;
  for (const auto [outer, rows, cols] :
       {std::array<std::size_t, 3>{3, 37, 131},
        {1, 1000, 1},
        {2, 1, 65},
        {5, 0, 7},
        {1, 7, 64},
        // blocks of columns: wide ones with a ragged last (4096 + 4096 + 37), a whole wide one,
        // and narrow ones (512 + 512 + 276: one wide block would leave a thread idle)
        {1, 9, 8229},
        {2, 6, 4096},
        {1, 5, 1300}}) {
    const std::size_t n = outer * rows * cols;
    std::vector<float> f(n);
    std::vector<std::int16_t> s(n);
    for (std::size_t i = 0; i < n; ++i) f[i] = float(z(rng)), s[i] = std::int16_t(z(rng) * 1000);
    if (n > 10) f[n / 3] = std::nanf("");  // one column's min, max and sums see a NaN
    for (op o : all_ops) {
      if (rows == 0 && (plain_of(o) == op::mean || is_arg(o))) continue;
      for (backend b : {backend::seq, backend::cpu}) {
        std::vector<scalar> got_f(outer * cols), got_s(outer * cols);
        reduce_axis(b, dtype::f32, f.data(), outer, rows, cols, o, got_f.data());
        reduce_axis(b, dtype::i16, s.data(), outer, rows, cols, o, got_s.data());
        for (std::size_t k = 0; k < outer; ++k)
          for (std::size_t c = 0; c < cols; ++c) {
            std::vector<float> fc;
            std::vector<std::int16_t> sc;
            for (std::size_t y = 0; y < rows; ++y)
              fc.push_back(f[(k * rows + y) * cols + c]),
                  sc.push_back(s[(k * rows + y) * cols + c]);
            const scalar& gf = got_f[k * cols + c];
            const scalar& gs = got_s[k * cols + c];
            if (is_arg(o) && skips_nan(o) && std::isnan(fc[0]) && rows == 1) {
              ASSERT_EQ(gf.i, -1) << "a column of NaN alone";  // reduce: an error, tested apart
              continue;
            }
            // The walk's bits are seq r01's; var's and std's near them (the walk merges element
            // by element as r01, but the values less the column's first: reduce_common.hpp's
            // shift_for; the API's seq pick for them, r04, merges blocks)
            const rung_choice walk{"reduce/seq/r01_sequential_loop"};
            const scalar wf = reduce(backend::seq, dtype::f32, fc.data(), rows, o, walk);
            const scalar ws = reduce(backend::seq, dtype::i16, sc.data(), rows, o, walk);
            ASSERT_EQ(gf.k, wf.k);
            if (is_arg(o)) ASSERT_EQ(gf.i, wf.i) << name_of(b) << " " << name_of(o);
            else if (std::isnan(wf.f)) ASSERT_TRUE(std::isnan(gf.f));
            else if (is_moments(o))
              ASSERT_NEAR(gf.f, wf.f, 1e-12 * std::max(1.0, std::abs(wf.f))) << name_of(o);
            else ASSERT_EQ(gf.f, wf.f) << name_of(b) << " " << name_of(o) << " " << k << "," << c;
            ASSERT_EQ(gs.k, ws.k);
            const double gsd = gs.to_double(), wsd = ws.to_double();
            if (std::isnan(wsd)) ASSERT_TRUE(std::isnan(gsd));  // var of none
            else if (is_moments(o)) ASSERT_NEAR(gsd, wsd, 1e-12 * std::max(1.0, std::abs(wsd)));
            else ASSERT_EQ(gsd, wsd) << name_of(b) << " " << name_of(o);
          }
      }
    }
  }
  std::vector<scalar> out(4);
  reduce_axis(backend::cpu, dtype::f32, nullptr, 0, 5, 3, op::sum, nullptr);  // no answers
  expect_error(
      errc::invalid_argument,
      [&] { reduce_axis(backend::cpu, dtype::f32, nullptr, 2, 0, 2, op::mean, out.data()); },
      "empty axis");
  expect_error(
      errc::invalid_argument,
      [&] { reduce_axis(backend::seq, dtype::f32, nullptr, 2, 0, 2, op::argmax, out.data()); },
      "argmax of an empty axis");
  expect_error(
      errc::invalid_argument,
      [&] {
        reduce_axis(backend::cpu, dtype::f32, out.data(), std::size_t(1) << 40, 1 << 20, 1 << 20,
                    op::sum, out.data());
      },
      "overflows");
  expect_error(
      errc::unsupported,
      [&] { reduce_axis(backend::nccl, dtype::f32, out.data(), 1, 1, 1, op::sum, out.data()); },
      "seq, cpu and cuda");
}

// Ranges that a double cannot hold or split are refused with a reason, never NaN edges.
TEST(Api, RangesTooWideOrTooFineForDoublesAreRefused) {
  const auto refused = [](const std::vector<double>& x, histogram_options o, errc code,
                          const std::string& words) {
    try {
      histogram(cpu, x, o);
      ADD_FAILURE() << words;
    } catch (const error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused({-1.5e308, 1.5e308}, {}, errc::bad_data, "wider than a double can hold");
  refused({1e300, 1e300}, {}, errc::bad_data, "too large to widen by 0.5");
  histogram_options fine;
  fine.bins = std::size_t(1) << 24, fine.lo = 1e10, fine.hi = 1e10 + 1;
  refused({1e10}, fine, errc::invalid_argument, "narrower than a double can tell apart");
  fine.bins = 1000;  // 1e-3 apart at 1e10: doubles there are 2e-6 apart
  EXPECT_EQ(histogram(cpu, std::vector<double>{1e10 + 0.5}, fine).counts[500], 1u);
  const auto wide = histogram(cpu, std::vector<double>{-1e307, 1e307});  // wide, but it fits
  EXPECT_EQ(wide.counts.front() + wide.counts.back(), 2u);
  EXPECT_TRUE(std::isfinite(wide.edge(5)));
}

TEST(Api, BadCallsGetClearErrors) {
  std::vector<float> empty, one = {1};
  expect_error(
      errc::invalid_argument, [&] { reduce(cpu, empty, mean); }, "mean of an empty");
  expect_error(
      errc::invalid_argument, [&] { reduce(cpu, dtype::f32, nullptr, 5, op::sum); }, "null");
  histogram_options o;
  o.bins = max_bins + 1;
  expect_error(
      errc::invalid_argument, [&] { histogram(cpu, one, o); }, "2^24");
  o = {};
  o.lo = 1.0, o.hi = 1.0;
  expect_error(
      errc::invalid_argument, [&] { histogram(cpu, one, o); }, "lo must be below hi");
  o.hi = std::nullopt;
  expect_error(
      errc::invalid_argument, [&] { histogram(cpu, one, o); }, "both ends");
  o = {};
  o.lo = 0.0, o.hi = INFINITY;
  expect_error(
      errc::invalid_argument, [&] { histogram(cpu, one, o); }, "finite");
  std::vector<double> with_nan = {1, std::nan("")};
  expect_error(
      errc::bad_data, [&] { histogram(cpu, with_nan); }, "NaN");
  std::vector<float> a(6), b(6), c(4);
  expect_error(
      errc::invalid_argument,
      [&] {
        matmul(cpu, 1.0f, matrix_ref<const float>{a.data(), 2, 3},
               matrix_ref<const float>{b.data(), 2, 3}, 0.0f, matrix_ref<float>{c.data(), 2, 2});
      },
      "shapes do not match");
  expect_error(
      errc::invalid_argument,
      [&] {
        matmul(cpu, 1.0f, matrix_ref<const float>{a.data(), 2, 3},
               matrix_ref<const float>{b.data(), 3, 2}, 0.0f, matrix_ref<float>{a.data(), 2, 2});
      },
      "overlaps");
  expect_error(
      errc::invalid_argument,
      [&] {
        matmul(backend::cpu, dtype::i32, 1, 1, 1, 1, a.data(), 1, b.data(), 1, 0, c.data(), 1);
      },
      "f32 or f64");
  // "split_tf32" names a precision: f32 alone, and on the GPU alone.
  std::vector<double> a64(6), b64(6), c64(4);
  expect_error(
      errc::invalid_argument,
      [&] {
        matmul(backend::cpu, dtype::f64, 2, 2, 3, 1, a64.data(), 3, b64.data(), 2, 0, c64.data(), 2,
               {"split_tf32"});
      },
      "split_tf32 multiplies f32 matrices, not f64");
  expect_error(
      errc::unsupported,
      [&] {
        matmul(backend::cpu, dtype::f32, 2, 2, 3, 1, a.data(), 3, b.data(), 2, 0, c.data(), 2,
               {"split_tf32"});
      },
      "split_tf32 runs on the cuda backend");
  if (!available(backend::cuda))
    expect_error(
        errc::unsupported, [&] { reduce(cuda, one, sum); }, "cuda");
  expect_error(errc::unsupported,
               [&] { reduce(backend::mpi, dtype::f32, one.data(), 1, op::sum); });
  expect_error(
      errc::invalid_argument, [&] { parse_dtype("complex64"); }, "choose one of");
}

// A call runs the rung it is told to (by its whole id or the end of one) and says which ran; a
// rung of another backend, or none by that name, is an error that says so.
TEST(Api, ACallRunsTheRungItIsToldAndSaysWhichRan) {
  const std::vector<float> x = {1.5f, -2.0f, 4.0f};
  std::string ran;
  EXPECT_EQ(reduce(backend::cpu, dtype::f32, x.data(), 3, op::sum).to_double(), 3.5);
  reduce(backend::cpu, dtype::f32, x.data(), 3, op::sum, {{}, &ran});
  EXPECT_EQ(
      ran,
      detail::default_rung<detail::reduce_rung>(backend::cpu, {dtype::f32, op::sum, 3}).info.id);
  EXPECT_EQ(
      reduce(backend::cpu, dtype::f32, x.data(), 3, op::max, {"r02_partition_tree_combine", &ran})
          .to_double(),
      4.0);
  EXPECT_EQ(ran, "reduce/cpu/r02_partition_tree_combine");
  expect_error(
      errc::invalid_argument,
      [&] {
        reduce(backend::cpu, dtype::f32, x.data(), 3, op::sum, {"reduce/seq/r01_sequential_loop"});
      },
      "a rung of backend 'seq'");
  expect_error(
      errc::invalid_argument,
      [&] { reduce(backend::cpu, dtype::f32, x.data(), 3, op::sum, {"r99_nothing"}); },
      "no reduce rung");
  histogram_options o;
  o.bins = 4;
  const histogram_result h =
      histogram(backend::seq, dtype::f32, x.data(), 3, o, {"histogram/seq/h01_sequential"});
  EXPECT_EQ(h.rung, "histogram/seq/h01_sequential");
  EXPECT_EQ(h.total(), 3u);
  std::vector<float> a = {1, 2, 3, 4}, c(4, 0.0f);
  matmul(backend::cpu, dtype::f32, 2, 2, 2, 1.0, a.data(), 2, a.data(), 2, 0.0, c.data(), 2,
         {"m01_loop_order_ikj", &ran});
  EXPECT_EQ(ran, "matmul/cpu/m01_loop_order_ikj");
  EXPECT_EQ(c, (std::vector<float>{7, 10, 15, 22}));
}

TEST(Api, MatmulThroughTheTypedViewWithStrides) {
  // A 2x2 window of a 3x4 buffer times a 2x1.
  std::vector<double> big = {1, 2, 99, 99, 3, 4, 99, 99, 99, 99, 99, 99};
  std::vector<double> b = {1, 1}, c = {7, 7};
  matmul(cpu, 1.0, matrix_ref<const double>{big.data(), 2, 2, 4},
         matrix_ref<const double>{b.data(), 2, 1}, 0.0, matrix_ref<double>{c.data(), 2, 1});
  EXPECT_EQ(c, (std::vector<double>{3, 7}));
}

// histogram2d: every point's bin against a search of each axis's edges (std::upper_bound), on
// every backend usable here (cuda: the points on the GPU and from the host), counts exact and
// weighted sums within rounding; points outside or NaN counted apart; bad edges refused.
TEST(Histogram2d, EveryPointInItsBinOnEveryBackend) {
  std::mt19937_64 rng(fresh_seed());
  const std::size_t n = 100003;
  std::normal_distribution<float> g(0, 2);
  std::vector<float> x(n), y(n);
  std::vector<double> w(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = g(rng), y[i] = g(rng), w[i] = g(rng);
  x[5] = std::nanf(""), y[6] = 4.0f, x[7] = -3.0f;  // NaN, on the last y edge, on the first x
  const std::vector<double> xe = even_edges(-3, 3, 12);
  const std::vector<double> ye{-4, -1, -0.5, 0, 0, 0.25, 2, 4};
  const auto slot = [](const std::vector<double>& e, float v) -> std::ptrdiff_t {
    if (!(v >= e.front() && v <= e.back())) return -1;
    if (v == e.back()) return std::ptrdiff_t(e.size()) - 2;
    return std::ptrdiff_t(std::upper_bound(e.begin(), e.end(), double(v)) - e.begin()) - 1;
  };
  std::vector<std::uint64_t> want((xe.size() - 1) * (ye.size() - 1));
  std::vector<double> want_sums(want.size());
  std::uint64_t outside = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::ptrdiff_t a = slot(xe, x[i]), b = slot(ye, y[i]);
    if (a < 0 || b < 0) {
      ++outside;
      continue;
    }
    const std::size_t k = std::size_t(a) * (ye.size() - 1) + std::size_t(b);
    ++want[k];
    want_sums[k] += w[i];
  }
  histogram2d_options o;
  o.x_edges = xe, o.y_edges = ye;
  std::vector<backend> where{backend::seq, backend::cpu};
  if (available(backend::cuda)) where.push_back(backend::cuda);
  for (backend b : where) {
    SCOPED_TRACE(std::string(name_of(b)));
    o.weights = nullptr;
    const histogram2d_result r = histogram2d(b, dtype::f32, x.data(), y.data(), n, o);
    EXPECT_EQ(r.counts, want);
    EXPECT_EQ(r.outside, outside);
    o.weights = w.data();
    const histogram2d_result s = histogram2d(b, dtype::f32, x.data(), y.data(), n, o);
    ASSERT_EQ(s.sums.size(), want_sums.size());
    for (std::size_t k = 0; k < want_sums.size(); ++k)
      EXPECT_NEAR(s.sums[k], want_sums[k], 1e-9 * (1 + std::abs(want_sums[k])));
    if (b == backend::cuda) continue;
    // The host counts where it bins; a rung named takes the slots through the 1-D histogram:
    // the same counts, and the same sums bit for bit (h02's sections and order)
    EXPECT_EQ(r.rung, "histogram2d/" + std::string(name_of(b)) + "/counted_where_found");
    const std::string rung = b == backend::seq ? "h01_sequential" : "h02_private_per_thread";
    const histogram2d_result t = histogram2d(b, dtype::f32, x.data(), y.data(), n, o, {rung});
    EXPECT_EQ(t.sums, s.sums);
    o.weights = nullptr;
    const histogram2d_result u = histogram2d(b, dtype::f32, x.data(), y.data(), n, o, {rung});
    EXPECT_EQ(u.counts, want);
    EXPECT_EQ(u.outside, outside);
    EXPECT_NE(u.rung, r.rung);
  }
  if (available(backend::cuda)) {  // points already on the GPU
    detail::executor& ex = detail::executor_for(backend::cuda);
    detail::buffer dx(ex, n * 4), dy(ex, n * 4);
    ex.copy_in(dx.get(), x.data(), n * 4);
    ex.copy_in(dy.get(), y.data(), n * 4);
    o.weights = nullptr;
    // Counted where the bins are found (the default), and the slots counted by a 1-D rung.
    for (std::string_view rung : {std::string_view(), std::string_view("histogram/cuda/h03_"
                                                                       "interleaved_atomics")}) {
      const histogram2d_result r = histogram2d_device(dtype::f32, dx.get(), dy.get(), n, o, {rung});
      EXPECT_EQ(r.counts, want) << r.rung;
      EXPECT_EQ(r.outside, outside) << r.rung;
    }
    // Into device memory: the bins, then the points outside; with weights their sums.
    detail::buffer dc(ex, (want.size() + 1) * 8), dw(ex, n * 8);
    std::vector<std::uint64_t> got(want.size() + 1);
    histogram2d_device_into(dtype::f32, dx.get(), dy.get(), n, dc.as<std::uint64_t>(), got.size(),
                            o);
    ex.copy_out(got.data(), dc.get(), got.size() * 8);
    EXPECT_EQ(std::vector<std::uint64_t>(got.begin(), got.end() - 1), want);
    EXPECT_EQ(got.back(), outside);
    EXPECT_THROW(histogram2d_device_into(dtype::f32, dx.get(), dy.get(), n, dc.as<std::uint64_t>(),
                                         want.size(), o),
                 pplab::error);
    ex.copy_in(dw.get(), w.data(), n * 8);
    o.weights = dw.get();
    const histogram2d_result s = histogram2d_device(dtype::f32, dx.get(), dy.get(), n, o);
    for (std::size_t k = 0; k < want_sums.size(); ++k)
      EXPECT_NEAR(s.sums[k], want_sums[k], 1e-9 * (1 + std::abs(want_sums[k])));
    o.weights = nullptr;
    // 2^24 points in one bin: every 16-bit counter passes 2^15 many times.
    const std::size_t many = std::size_t(1) << 24;
    detail::buffer same_x(ex, many * 4), same_y(ex, many * 4);
    ex.fill(same_x.get(), 0x3f, many * 4);  // 0x3f3f3f3f: 0.7470...
    ex.fill(same_y.get(), 0x3f, many * 4);
    const histogram2d_result one =
        histogram2d_device(dtype::f32, same_x.get(), same_y.get(), many, o);
    std::vector<std::uint64_t> all_in_one(want.size());
    all_in_one[7 * (ye.size() - 1) + 5] = many;  // x in [0.5, 1), y in [0.25, 2)
    EXPECT_EQ(one.counts, all_in_one) << one.rung;
    // 3000 x bins: float points' cell records fit a block beside the slots' counters no more
    // (their double edges do), and alone they do; both paths against seq.
    histogram2d_options wide = o;
    const std::vector<double> many_x = even_edges(-3, 3, 3000);
    wide.x_edges = many_x;
    const histogram2d_result on_host =
        histogram2d(backend::seq, dtype::f32, x.data(), y.data(), n, wide);
    for (std::string_view rung : {std::string_view(), std::string_view("histogram/cuda/h03_"
                                                                       "interleaved_atomics")}) {
      const histogram2d_result r =
          histogram2d_device(dtype::f32, dx.get(), dy.get(), n, wide, {rung});
      EXPECT_EQ(r.counts, on_host.counts) << r.rung;
      EXPECT_EQ(r.outside, on_host.outside) << r.rung;
    }
  }
  const std::vector<double> down{0, 2, 1};
  o.x_edges = down;
  EXPECT_THROW(histogram2d(backend::cpu, dtype::f32, x.data(), y.data(), n, o), pplab::error);
}

// histogramdd: the points as an (n, 3) array's columns (stride 3) and as three arrays (stride
// 1), every point's bin against a search of each axis's edges, on every backend usable here
// (cuda: the points on the GPU); counts exact, weighted sums within rounding, points outside or
// NaN counted apart; bad axes, strides and bin counts refused.
TEST(Histogramdd, EveryPointInItsBinOnEveryBackend) {
  std::mt19937_64 rng(fresh_seed());
  const std::size_t n = 70001, D = 3;
  std::normal_distribution<double> g(0, 2);
  std::vector<double> rows(n * D), w(n);
  for (std::size_t i = 0; i < n * D; ++i) rows[i] = g(rng);
  for (std::size_t i = 0; i < n; ++i) w[i] = g(rng);
  rows[5 * D + 1] = std::nan(""), rows[6 * D + 2] = 4.0, rows[7 * D] = -3.0;  // NaN, edges
  const std::vector<std::vector<double>> edges{
      even_edges(-3, 3, 12), {-4, -1, -0.5, 0, 0, 0.25, 2, 4}, even_edges(-4, 4, 5)};
  const auto slot = [](const std::vector<double>& e, double v) -> std::ptrdiff_t {
    if (!(v >= e.front() && v <= e.back())) return -1;
    if (v == e.back()) return std::ptrdiff_t(e.size()) - 2;
    return std::ptrdiff_t(std::upper_bound(e.begin(), e.end(), v) - e.begin()) - 1;
  };
  std::vector<std::uint64_t> want(12 * 7 * 5);  // C order: axis 0 the slowest
  std::vector<double> want_sums(want.size());
  std::uint64_t outside = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t k = 0;
    bool in = true;
    for (std::size_t d = 0; d < D; ++d) {
      const std::ptrdiff_t b = slot(edges[d], rows[i * D + d]);
      in = in && b >= 0;
      k = k * (edges[d].size() - 1) + std::size_t(std::max<std::ptrdiff_t>(b, 0));
    }
    if (!in) {
      ++outside;
      continue;
    }
    ++want[k];
    want_sums[k] += w[i];
  }
  std::vector<double> columns(n * D);  // the same points as three arrays
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t d = 0; d < D; ++d) columns[d * n + i] = rows[i * D + d];
  histogramdd_options o;
  for (const auto& e : edges) o.edges.emplace_back(e);
  const std::vector<const void*> as_rows{rows.data(), rows.data() + 1, rows.data() + 2},
      as_columns{columns.data(), columns.data() + n, columns.data() + 2 * n};
  std::vector<backend> where{backend::seq, backend::cpu};
  if (available(backend::cuda)) where.push_back(backend::cuda);
  for (backend b : where) {
    SCOPED_TRACE(std::string(name_of(b)));
    for (const auto& [data, stride] :
         {std::pair{as_rows, D}, std::pair{as_columns, std::size_t(1)}}) {
      o.weights = nullptr;
      const histogramdd_result r = histogramdd(b, dtype::f64, data, stride, n, o);
      EXPECT_EQ(r.bins, (std::vector<std::size_t>{12, 7, 5}));
      EXPECT_EQ(r.counts, want);
      EXPECT_EQ(r.outside, outside);
      o.weights = w.data();
      const histogramdd_result s = histogramdd(b, dtype::f64, data, stride, n, o);
      ASSERT_EQ(s.sums.size(), want_sums.size());
      for (std::size_t k = 0; k < want_sums.size(); ++k)
        EXPECT_NEAR(s.sums[k], want_sums[k], 1e-9 * (1 + std::abs(want_sums[k])));
      if (b == backend::cuda) continue;
      // Counted where found on the host; through the slots and a 1-D rung named, the same
      // counts, and the same sums bit for bit (h02's sections and order)
      EXPECT_EQ(r.rung, "histogramdd/" + std::string(name_of(b)) + "/counted_where_found");
      const std::string rung = b == backend::seq ? "h01_sequential" : "h02_private_per_thread";
      EXPECT_EQ(histogramdd(b, dtype::f64, data, stride, n, o, {rung}).sums, s.sums);
      o.weights = nullptr;
      const histogramdd_result u = histogramdd(b, dtype::f64, data, stride, n, o, {rung});
      EXPECT_EQ(u.counts, want);
      EXPECT_EQ(u.outside, outside);
    }
  }
  o.weights = nullptr;
  if (available(backend::cuda)) {  // points already on the GPU
    detail::executor& ex = detail::executor_for(backend::cuda);
    detail::buffer dr(ex, n * D * 8), dc(ex, (want.size() + 1) * 8);
    ex.copy_in(dr.get(), rows.data(), n * D * 8);
    const auto* base = dr.as<double>();
    const std::vector<const void*> on_gpu{base, base + 1, base + 2};
    for (std::string_view rung : {std::string_view(), std::string_view("histogram/cuda/h03_"
                                                                       "interleaved_atomics")}) {
      const histogramdd_result r = histogramdd_device(dtype::f64, on_gpu, D, n, o, {rung});
      EXPECT_EQ(r.counts, want) << r.rung;
      EXPECT_EQ(r.outside, outside) << r.rung;
    }
    std::vector<std::uint64_t> got(want.size() + 1);
    histogramdd_device_into(dtype::f64, on_gpu, D, n, dc.as<std::uint64_t>(), got.size(), o);
    ex.copy_out(got.data(), dc.get(), got.size() * 8);
    EXPECT_EQ(std::vector<std::uint64_t>(got.begin(), got.end() - 1), want);
    EXPECT_EQ(got.back(), outside);
    EXPECT_THROW(
        histogramdd_device_into(dtype::f64, on_gpu, D, n, dc.as<std::uint64_t>(), want.size(), o),
        pplab::error);
    // 2^24 points in one bin (counted where found: every 16-bit counter passes 2^15 many times).
    const std::size_t many = std::size_t(1) << 24;
    detail::buffer same(ex, many * 4 * D);
    ex.fill(same.get(), 0x3f, many * 4 * D);
    const std::uint32_t bits = 0x3f3f3f3f;  // 0.7470...
    float value = 0;
    std::memcpy(&value, &bits, 4);
    const auto* f = same.as<float>();
    const std::vector<const void*> planes{f, f + many, f + 2 * many};
    const histogramdd_result one = histogramdd_device(dtype::f32, planes, 1, many, o);
    EXPECT_EQ(one.rung, "histogramdd/cuda/counted_where_found");
    std::vector<std::uint64_t> all_in_one(want.size());
    std::size_t k = 0;
    for (std::size_t d = 0; d < D; ++d)
      k = k * (edges[d].size() - 1) + std::size_t(slot(edges[d], double(value)));
    all_in_one[k] = many;
    EXPECT_EQ(one.counts, all_in_one);
    EXPECT_EQ(one.outside, 0u);
  }
  // Wrong: edges for two axes of three, no axes, stride 0, bins whose product passes 2^24.
  histogramdd_options two;
  two.edges = {o.edges[0], o.edges[1]};
  EXPECT_THROW(histogramdd(backend::cpu, dtype::f64, as_rows, D, n, two), pplab::error);
  EXPECT_THROW(histogramdd(backend::cpu, dtype::f64, {}, 1, n, histogramdd_options{}),
               pplab::error);
  EXPECT_THROW(histogramdd(backend::cpu, dtype::f64, as_rows, 0, n, o), pplab::error);
  const std::vector<double> wide = even_edges(0, 1, 4096);
  histogramdd_options big;
  big.edges = {wide, wide, wide};
  EXPECT_THROW(histogramdd(backend::cpu, dtype::f64, as_rows, D, n, big), pplab::error);
  const std::vector<double> down{0, 2, 1};
  o.edges[2] = down;
  EXPECT_THROW(histogramdd(backend::cpu, dtype::f64, as_rows, D, n, o), pplab::error);
}

}  // namespace
}  // namespace pplab::test

namespace pplab::test {
namespace {

// `pplab tune`'s choice file: the rung it names for a class of problem is the one the API runs
// (on this machine, for that class only); a file for another machine, or one that cannot be
// read, is not used, and the status says why.
TEST(Tuning, TheChoiceFileNamesTheRungTheApiRuns) {
  const std::string dir = ::testing::TempDir() + "pplab-tuning-" + std::to_string(::getpid());
  const std::string path = dir + "/choices.json";
  ::setenv("PPLAB_CHOICES", path.c_str(), 1);
  reload_choices();
  const std::vector<float> x(3000, 1.0f), more(100000, 1.0f);
  const auto ran_on = [](const std::vector<float>& v) {
    std::string ran;
    reduce(backend::cpu, dtype::f32, v.data(), v.size(), op::sum, {"", &ran});
    return ran;
  };
  const std::string policy_pick = ran_on(x);
  EXPECT_NE(choice_file_status().find("none at"), std::string::npos) << choice_file_status();
  const std::string other = policy_pick == "reduce/cpu/r02_partition_tree_combine"
                                ? "reduce/cpu/r03_simd_accumulators"
                                : "reduce/cpu/r02_partition_tree_combine";
  write_choice_file(path, {{"reduce", "cpu", "f32 sum n~2^11", other, 1.0, policy_pick, 2.0},
                           {"reduce", "cpu", "f32 max n~2^11", "reduce/cpu/r99_gone", 1, "", 0}});
  EXPECT_EQ(ran_on(x), other);           // its class: n in [2^11, 2^12)
  EXPECT_EQ(ran_on(more), policy_pick);  // another class: the built-in policy
  EXPECT_EQ(reduce(backend::cpu, dtype::f32, x.data(), x.size(), op::max).f, 1.0);  // no such rung
  EXPECT_EQ(tuned_choices().size(), 2u);
  use_tuned_choices(false);  // as `pplab tune` measures the policy
  EXPECT_EQ(ran_on(x), policy_pick);
  use_tuned_choices(true);
  {
    std::ofstream f(path);
    f << R"({"format": "pplab choices 1", "machine": "another", "choices": []})";
  }
  reload_choices();
  EXPECT_EQ(ran_on(x), policy_pick);
  EXPECT_NE(choice_file_status().find("another machine"), std::string::npos);
  {
    std::ofstream f(path);
    f << "{ not json";
  }
  reload_choices();
  EXPECT_EQ(ran_on(x), policy_pick);
  EXPECT_NE(choice_file_status().find("unreadable"), std::string::npos);
  ::unsetenv("PPLAB_CHOICES");
  reload_choices();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pplab::test
