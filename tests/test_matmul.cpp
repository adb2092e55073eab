// One body for every registered matmul rung: float and double, shapes that are not multiples of
// any tile (zero-sized ones too), leading dimensions wider than the rows with poisoned padding
// that must stay untouched, alpha and beta, and beta = 0 over a NaN-poisoned C.
#include <cmath>
#include <limits>
#include <tuple>

#include "core/generate.hpp"
#include "core/pieces.hpp"
#include "core/run.hpp"
#include "core/verify.hpp"
#include "matmul/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

using detail::matmul_rung;

class Matmul : public ::testing::TestWithParam<const matmul_rung*> {};

struct shape {
  std::size_t m, n, k;
};

// `whole_vectors`: every leading dimension a multiple of 16 bytes (the GPU rungs' 16-byte load
// path); else each is the row length plus 0, 1 or 2 (mostly the element-by-element path).
template <class T>
void check(const matmul_rung& r, shape s, double alpha, double beta, std::mt19937_64& rng,
           bool whole_vectors = false) {
  const detail::matmul_problem p{dtype_of<T>(), s.m, s.n, s.k};
  if (!r.can_run(p)) return;
  SCOPED_TRACE(std::string(name_of(p.type)) + " m=" + std::to_string(s.m) +
               " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
               " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta));
  constexpr std::size_t v = 16 / sizeof(T);
  const auto ld = [&](std::size_t row) {
    return whole_vectors ? (row + v - 1) / v * v + v * (rng() % 2) : row + rng() % 3;
  };
  const std::size_t lda = ld(s.k), ldb = ld(s.n), ldc = ld(s.n);
  const T poison = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> a(s.m * lda + 1, poison), b(s.k * ldb + 1, poison), c(s.m * ldc + 1, poison);
  std::normal_distribution<double> z;
  for (std::size_t i = 0; i < s.m; ++i)
    for (std::size_t l = 0; l < s.k; ++l) a[i * lda + l] = T(z(rng));
  for (std::size_t l = 0; l < s.k; ++l)
    for (std::size_t j = 0; j < s.n; ++j) b[l * ldb + j] = T(z(rng));
  if (beta != 0)
    for (std::size_t i = 0; i < s.m; ++i)
      for (std::size_t j = 0; j < s.n; ++j) c[i * ldc + j] = T(z(rng));
  const std::vector<T> c0 = c;
  detail::run_rung(r,
                   {p, alpha, beta, a.data(), lda, b.data(), ldb, c.data(), ldc, nullptr, nullptr});
  std::size_t wrong = 0, touched = 0;
  for (std::size_t i = 0; i < s.m; ++i)
    for (std::size_t j = 0; j < ldc; ++j) {
      const T got = c[i * ldc + j];
      if (j >= s.n) {  // padding between rows: must be left alone
        touched += !std::isnan(got);
        continue;
      }
      double want = 0, scale = 0;
      for (std::size_t l = 0; l < s.k; ++l) {
        want += double(a[i * lda + l]) * double(b[l * ldb + j]);
        scale += std::abs(double(a[i * lda + l]) * double(b[l * ldb + j]));
      }
      want *= alpha, scale *= std::abs(alpha);
      if (beta != 0) {
        want += beta * double(c0[i * ldc + j]);
        scale += std::abs(beta * double(c0[i * ldc + j]));
      }
      const double tol = (r.info.tf32_split ? detail::split_tf32_tolerance(s.k)
                                            : detail::dot_tolerance(s.k, p.type)) *
                             scale +
                         1e-30;
      if (!(std::abs(double(got) - want) <= tol)) {
        if (wrong++ < 3)
          ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", want " << want;
      }
    }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(touched, 0u) << "elements outside C's columns were written";
}

TEST_P(Matmul, AnyShapeStrideAlphaBeta) {
  const matmul_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<shape> shapes = {{0, 0, 0},
                               {0, 5, 3},
                               {3, 0, 4},
                               {4, 5, 0},
                               {1, 1, 1},
                               {2, 3, 4},
                               {31, 32, 33},
                               {33, 31, 32},
                               {32, 32, 32},
                               {67, 129, 45},
                               {130, 97, 300},
                               {7, 300, 5},
                               {300, 7, 9},
                               {1, 513, 257},
                               {129, 1, 1000},
                               {20, 30, 771},
                               // vectors: many short rows, a few rows longer than a piece of
                               // the row reductions, y wider than a block, many chunks of rows
                               {1000, 1, 37},
                               {3, 1, 40000},
                               {1, 2100, 300},
                               {1, 5, 40000},
                               {1, 1, 50000},
                               // tall A times a tiny B (points @ R): one band of rows a
                               // thread, cut where no multiple of 16 falls
                               {100003, 3, 3},
                               {4099, 4, 2},
                               {1001, 2, 4},
                               {777, 1, 3}};
  for (int extra = 0; extra < 3; ++extra)
    shapes.push_back({1 + rng() % 200, 1 + rng() % 200, 1 + rng() % 400});
  // Under compute-sanitizer (racecheck runs ~30x slower) each shape gets one alpha/beta pair,
  // in turn, and the largest shapes are left to the plain runs.
  const std::vector<std::pair<double, double>> scales = {{1.0, 0.0}, {2.5, -0.5}, {-1.0, 1.0}};
  std::size_t turn = 0;
  for (const shape& s : shapes) {
    if (sanitizer_run() && s.m * s.n * s.k > 2000000) continue;
    for (std::size_t i = 0; i < scales.size(); ++i) {
      if (sanitizer_run() && i != turn % scales.size()) continue;
      check<float>(r, s, scales[i].first, scales[i].second, rng);
      check<double>(r, s, scales[i].first, scales[i].second, rng);
    }
    ++turn;
  }
}

TEST_P(Matmul, LargerThanEveryBlock) {
  const matmul_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  if (sanitizer_run()) GTEST_SKIP() << "the plain runs cover it; too slow under racecheck";
  std::mt19937_64 rng(fresh_seed());
  // Past the packed kernel's nc = 3072 columns and kc = 256 depth, with ragged edges.
  check<float>(r, {13, 3100, 261}, 1.0, 0.5, rng);
  check<double>(r, {250, 129, 520}, 1.0, 0.0, rng);
}

TEST_P(Matmul, WholeVectorRowsAndManyTiles) {
  const matmul_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Several 128 x 128 tiles each way and several steps of K, exact multiples and ragged edges.
  // 263 x 260 x 68: whole-vector rows with ragged edges on every side. 256 x 384 x 64 and
  // 128 x 256 x 1024 have no edge at all (the interior kernels of m08; the second in slices of K).
  std::vector<shape> shapes = {{256, 384, 64}, {128, 256, 1024}, {263, 260, 68},
                               {263, 261, 70}, {384, 130, 19},   {5, 7, 3}};
  if (sanitizer_run()) shapes = {{128, 256, 1024}, {263, 260, 68}, {5, 7, 3}};
  for (const shape& s : shapes)
    for (auto [alpha, beta] : {std::pair{1.0, 0.0}, {0.5, 2.0}}) {
      check<float>(r, s, alpha, beta, rng, true);
      check<double>(r, s, alpha, beta, rng, true);
    }
}

// A stack of `batch` products (a stack rung, p.batch > 1): each product's C as that product
// alone gives it, within a dot product's tolerance, and the elements between C's rows and
// matrices untouched. `spread` picks the strides: 0 packed, 1 a few elements between matrices
// (odd: the element-by-element loads), 2 A broadcast (stride 0), 3 B broadcast.
template <class T>
void check_stack(const matmul_rung& r, shape s, std::size_t batch, int spread, double alpha,
                 double beta, std::mt19937_64& rng, bool whole_vectors) {
  const detail::matmul_problem p{dtype_of<T>(), s.m, s.n, s.k, batch};
  SCOPED_TRACE(std::string(name_of(p.type)) + " stack of " + std::to_string(batch) +
               " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
               " k=" + std::to_string(s.k) + " spread " + std::to_string(spread));
  ASSERT_TRUE(r.can_run(p));
  constexpr std::size_t v = 16 / sizeof(T);
  const auto up = [&](std::size_t x) { return whole_vectors ? (x + v - 1) / v * v : x; };
  const std::size_t lda = up(s.k), ldb = up(s.n), ldc = up(s.n) + (whole_vectors ? v : 1);
  const std::size_t gap = whole_vectors ? v : 3;
  const std::size_t sa = spread == 2 ? 0 : s.m * lda + (spread == 1 ? gap : 0);
  const std::size_t sb = spread == 3 ? 0 : s.k * ldb + (spread == 1 ? gap : 0);
  const std::size_t sc = s.m * ldc + (spread == 1 ? gap : 0);
  const T poison = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> a((batch - 1) * sa + s.m * lda + 1, poison),
      b((batch - 1) * sb + s.k * ldb + 1, poison), c((batch - 1) * sc + s.m * ldc + 1, poison);
  std::normal_distribution<double> z;
  for (std::size_t q = 0; q < batch; ++q) {
    for (std::size_t i = 0; i < s.m; ++i)
      for (std::size_t l = 0; l < s.k; ++l) a[q * sa + i * lda + l] = T(z(rng));
    for (std::size_t l = 0; l < s.k; ++l)
      for (std::size_t j = 0; j < s.n; ++j) b[q * sb + l * ldb + j] = T(z(rng));
    if (beta != 0)
      for (std::size_t i = 0; i < s.m; ++i)
        for (std::size_t j = 0; j < s.n; ++j) c[q * sc + i * ldc + j] = T(z(rng));
  }
  const std::vector<T> c0 = c;
  detail::matmul_call call{p,        alpha, beta,    a.data(), lda, b.data(), ldb,
                           c.data(), ldc,   nullptr, nullptr,  sa,  sb,       sc};
  detail::run_rung(r, call);
  std::size_t wrong = 0, touched = 0;
  for (std::size_t e = 0; e + 1 < c.size(); ++e) {
    const std::size_t q = e / sc, i = e % sc / ldc, j = e % sc % ldc;
    if (q >= batch || i >= s.m || j >= s.n) {  // between rows or matrices: left alone
      touched += !std::isnan(c[e]);
      continue;
    }
    double want = 0, scale = 0;
    for (std::size_t l = 0; l < s.k; ++l) {
      const double x = double(a[q * sa + i * lda + l]) * double(b[q * sb + l * ldb + j]);
      want += x, scale += std::abs(x);
    }
    want *= alpha, scale *= std::abs(alpha);
    if (beta != 0) want += beta * double(c0[e]), scale += std::abs(beta * double(c0[e]));
    const double tol = (r.info.tf32_split ? detail::split_tf32_tolerance(s.k)
                                          : detail::dot_tolerance(s.k, p.type)) *
                           scale +
                       1e-30;
    if (!(std::abs(double(c[e]) - want) <= tol) && wrong++ < 3)
      ADD_FAILURE() << "product " << q << " C[" << i << "][" << j << "] = " << c[e] << ", want "
                    << want;
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(touched, 0u) << "elements outside the stack's matrices of C were written";
}

TEST_P(Matmul, StacksGiveEachProduct) {
  const matmul_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  if (!r.can_run({dtype::f32, 2, 2, 2, 3}))
    GTEST_SKIP() << "runs one product at a time (no stacks)";
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Ragged shapes, a vector's shape, and whole tiles (128 and 64: the interior kernels; 128 x 256
  // x 64: the split's whole tiles, in one launch).
  std::vector<shape> shapes = {{67, 45, 33},    {5, 300, 7},   {1, 1, 1},    {130, 1, 17},
                               {128, 128, 128}, {64, 192, 48}, {0, 4, 5},    {128, 256, 64}};
  if (sanitizer_run()) shapes = {{67, 45, 33}, {128, 128, 128}};
  int turn = 0;
  for (const shape& s : shapes)
    for (std::size_t batch : {2, 5}) {
      const int spread = turn++ % 4;
      const bool whole = s.m % 64 == 0 && s.n % 64 == 0;
      check_stack<float>(r, s, batch, spread, 1.0, 0.0, rng, whole);
      if (r.can_run({dtype::f64, 2, 2, 2, 3}))  // the split's rung multiplies f32 alone
        check_stack<double>(r, s, batch, spread, -0.5, 2.0, rng, whole);
    }
  // Ragged products whose rows and matrices lie whole vectors apart (the copy engine reads them:
  // m20), NaN between them: a box at a product's edge must read zeros, not the next product.
  for (int spread = 0; spread < 4; ++spread)
    for (shape s : {shape{67, 45, 33}, shape{130, 70, 515}})
      if (!sanitizer_run() || s.k < 100) check_stack<float>(r, s, 3, spread, 1.0, 0.0, rng, true);
  // Many small products, far more than the GPU has SMs; and more than the grid's third dimension
  // holds (65535), in products of one element.
  if (!sanitizer_run()) {
    check_stack<float>(r, {16, 16, 16}, 300, 0, 1.0, 0.0, rng, true);
    check_stack<float>(r, {1, 1, 1}, 65537 + 3, 0, 1.0, 0.0, rng, false);
  }
}

// A NaN and an infinity put into A (rows) or B (columns) of f32 products of positive values:
// `ok(i, j, got)` says what C[i][j] must be. Shapes that r cannot run are passed by.
template <class Poison, class Ok>
void nan_and_infinity(const matmul_rung& r, std::initializer_list<shape> shapes, Poison poison,
                      Ok ok) {
  std::mt19937_64 rng(fresh_seed());
  std::uniform_real_distribution<float> positive(0.5f, 1.5f);
  for (const shape& s : shapes) {
    const detail::matmul_problem p{dtype::f32, s.m, s.n, s.k};
    if (!r.can_run(p)) continue;
    SCOPED_TRACE("m=" + std::to_string(s.m) + " n=" + std::to_string(s.n));
    std::vector<float> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n, 0.0f);
    for (float& x : a) x = positive(rng);
    for (float& x : b) x = positive(rng);
    poison(s, a, b);
    detail::run_rung(r,
                     {p, 1.0, 0.0, a.data(), s.k, b.data(), s.n, c.data(), s.n, nullptr, nullptr});
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < s.m; ++i)
      for (std::size_t j = 0; j < s.n; ++j)
        if (!ok(s, i, j, c[i * s.n + j]) && wrong++ < 3)
          ADD_FAILURE() << "C[" << i << "][" << j << "] = " << c[i * s.n + j];
    EXPECT_EQ(wrong, 0u);
  }
}

// A NaN in A makes its row of C NaN; an infinity makes its row +-inf (every B element here is
// finite and nonzero), except on the split-TF32 rungs (m14, m16), whose split of each operand
// into two TF32 values turns an infinity into NaN (documented in m14). The other rows stay finite.
// Shapes of whole tiles and odd, and A x.
TEST_P(Matmul, NanAndInfinityReachTheirRows) {
  const matmul_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const bool inf_becomes_nan = r.info.tf32_split;
  constexpr float inf = std::numeric_limits<float>::infinity();
  nan_and_infinity(
      r, {shape{128, 128, 64}, shape{67, 45, 33}, shape{67, 1, 33}},
      [](const shape& s, std::vector<float>& a, std::vector<float>&) {
        a[0 * s.k + s.k / 2] = std::numeric_limits<float>::quiet_NaN();
        a[1 * s.k + s.k - 1] = -inf;
      },
      [&](const shape&, std::size_t i, std::size_t, float got) {
        return i == 0                      ? std::isnan(got)
               : i == 1 && inf_becomes_nan ? std::isnan(got)
               : i == 1                    ? got == -inf
                                           : std::isfinite(got);
      });
}

// The same down B's columns: a NaN in B makes its column of C NaN, an infinity its column +-inf
// (every A element finite and positive); x B (one row) included.
TEST_P(Matmul, NanAndInfinityReachTheirColumns) {
  const matmul_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const bool inf_becomes_nan = r.info.tf32_split;
  constexpr float inf = std::numeric_limits<float>::infinity();
  nan_and_infinity(
      r, {shape{128, 128, 64}, shape{1, 45, 33}, shape{1, 2100, 70}},
      [](const shape& s, std::vector<float>&, std::vector<float>& b) {
        b[s.k / 2 * s.n + 0] = std::numeric_limits<float>::quiet_NaN();
        b[(s.k - 1) * s.n + s.n - 1] = -inf;
      },
      [&](const shape& s, std::size_t, std::size_t j, float got) {
        const bool last = j == s.n - 1;
        return j == 0                    ? std::isnan(got)
               : last && inf_becomes_nan ? std::isnan(got)
               : last                    ? got == -inf
                                         : std::isfinite(got);
      });
}

std::vector<const matmul_rung*> all_rungs() {
  std::vector<const matmul_rung*> out;
  for (const auto& r : detail::rungs_of<detail::matmul_rung>()) out.push_back(&r);
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllRungs, Matmul, ::testing::ValuesIn(all_rungs()),
                         [](const auto& info) { return test_name(info.param->info.id); });

// A long host product runs in bands of K (core/pieces.hpp), C += alpha A_k B_k after the first:
// with pieces made small, every seq and cpu rung gives the product (beta and strides too), and
// the packed rung (whole 256-column blocks) the same bits as in one piece.
TEST(MatmulBands, HostRungsGiveTheProductInBandsOfK) {
  double& piece = detail::piece_work();
  const double whole = piece;
  // A product, and the two vector shapes (A x, x B) of the vector rungs.
  for (auto [m, n] : {std::pair<std::size_t, std::size_t>{37, 29}, {37, 1}, {1, 29}}) {
    const std::size_t k = 1000, lda = k + 3, ldb = n + 1, ldc = n + 2;
    std::vector<double> a(m * lda), b(k * ldb), c0(m * ldc);
    detail::generate(dtype::f64, a.data(), a.size(), detail::distribution::normal, 1);
    detail::generate(dtype::f64, b.data(), b.size(), detail::distribution::normal, 2);
    detail::generate(dtype::f64, c0.data(), c0.size(), detail::distribution::normal, 3);
    for (const matmul_rung& r : detail::rungs_of<matmul_rung>()) {
      const detail::matmul_problem p{dtype::f64, m, n, k};
      if ((r.info.where != backend::seq && r.info.where != backend::cpu) || !r.can_run(p)) continue;
      SCOPED_TRACE(r.info.id);
      std::vector<double> one = c0, banded = c0;
      piece = whole;
      detail::run_rung(
          r, {p, 1.5, -0.5, a.data(), lda, b.data(), ldb, one.data(), ldc, nullptr, nullptr});
      piece = 2.0 * m * n * 300;  // bands of 512 columns of A: two bands
      detail::run_rung(
          r, {p, 1.5, -0.5, a.data(), lda, b.data(), ldb, banded.data(), ldc, nullptr, nullptr});
      piece = whole;
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < ldc; ++j) {
          const double w = one[i * ldc + j], g = banded[i * ldc + j];
          if (j >= n) {
            EXPECT_EQ(g, c0[i * ldc + j]) << "written past C's columns";
            continue;
          }
          EXPECT_NEAR(g, w, 1e-12 * std::sqrt(double(k)) * 8) << i << "," << j;
          if (r.info.id.find("m03_packed") != std::string_view::npos) {
            EXPECT_EQ(g, w) << i << "," << j;
          }
        }
    }
  }
}

// A product taller than a GPU's grid holds in one launch of the rungs (65535 blocks of 8 rows:
// 524280 rows) runs as several launches of rows, on every backend the same answer as numpy's:
// points @ R of 600003 points on cuda from host memory.
TEST(MatmulApi, TallerThanOneGridOfRows) {
  const std::size_t m = 600003, n = 5, k = 3, lda = k + 1, ldc = n + 1;
  std::vector<float> a(m * lda), b(k * n), c0(m * ldc);
  detail::generate(dtype::f32, a.data(), a.size(), detail::distribution::normal, 3);
  detail::generate(dtype::f32, b.data(), b.size(), detail::distribution::normal, 4);
  detail::generate(dtype::f32, c0.data(), c0.size(), detail::distribution::normal, 5);
  for (backend where : {backend::seq, backend::cpu, backend::cuda}) {
    if (!available(where)) continue;
    SCOPED_TRACE(name_of(where));
    std::vector<float> c = c0;
    std::string ran;
    matmul(where, dtype::f32, m, n, k, 2.0, a.data(), lda, b.data(), n, 0.5, c.data(), ldc,
           {"", &ran});
    EXPECT_FALSE(ran.empty());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < ldc; ++j) {
        double want = double(c0[i * ldc + j]), scale = std::abs(want);
        if (j < n) {  // the padding between rows is left alone
          want *= 0.5, scale *= 0.5;
          for (std::size_t l = 0; l < k; ++l) {
            want += 2.0 * double(a[i * lda + l]) * double(b[l * n + j]);
            scale += std::abs(2.0 * double(a[i * lda + l]) * double(b[l * n + j]));
          }
        }
        wrong += std::abs(double(c[i * ldc + j]) - want) > 1e-5 * scale + 1e-30;
      }
    EXPECT_EQ(wrong, 0u);
  }
}

// A stack of products (matmul_batched) gives each product's own answer, bit for bit, on seq and
// cpu: small products shared among the threads, large ones one after another; host matrices on
// cuda too (each product copied in and out); B broadcast (a stride of 0); the rung named and
// reported; overlapping stacks refused.
TEST(MatmulBatched, EachProductAsAlone) {
  for (backend where : {backend::seq, backend::cpu, backend::cuda})
    for (auto [m, n, k] : {std::tuple<std::size_t, std::size_t, std::size_t>{33, 29, 41},
                           {300, 1, 270},
                           {1, 260, 300},
                           {270, 260, 300}}) {
      if (!available(where)) continue;
      SCOPED_TRACE(std::string(name_of(where)) + " m=" + std::to_string(m) +
                   " n=" + std::to_string(n) + " k=" + std::to_string(k));
      const std::size_t batch = 7, lda = k + 1, ldb = n + 2, ldc = n + 1;
      const std::size_t sa = m * lda + 3, sc = m * ldc + 5;
      std::vector<double> a(batch * sa), b(k * ldb), c(batch * sc, 7.0), want = c;
      detail::generate(dtype::f64, a.data(), a.size(), detail::distribution::normal, 1);
      detail::generate(dtype::f64, b.data(), b.size(), detail::distribution::normal, 2);
      for (std::size_t i = 0; i < batch; ++i)
        matmul(where, dtype::f64, m, n, k, 1.5, a.data() + i * sa, lda, b.data(), ldb, 0.5,
               want.data() + i * sc, ldc);
      std::string ran;
      matmul_batched(where, dtype::f64, batch, m, n, k, 1.5, a.data(), lda, sa, b.data(), ldb, 0,
                     0.5, c.data(), ldc, sc, {"", &ran});
      EXPECT_EQ(c, want);
      EXPECT_FALSE(ran.empty());
    }
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64);
  EXPECT_THROW(matmul_batched(backend::cpu, dtype::f32, 2, 4, 4, 4, 1.0, a.data(), 4, 16, b.data(),
                              4, 0, 0.0, c.data(), 4, 8),
               pplab::error);  // C's matrices 8 elements apart, each 16 long
  EXPECT_THROW(matmul_batched(backend::cpu, dtype::f32, 2, 4, 4, 4, 1.0, c.data() + 16, 4, 16,
                              b.data(), 4, 0, 0.0, c.data() + 32, 4, 16),
               pplab::error);  // A's second matrix is C's first
}

}  // namespace
}  // namespace pplab::test
