// The mpi backend inside a job: this program runs under `mpiexec -n 2` and `-n 3` (CTest, label
// mpi). Each rank generates only its part of arrays of awkward sizes (some smaller than the
// rank count, so that ranks hold nothing) and every rung's whole-job answer is held against the
// seq backend on the whole array, computed on every rank: integers and counts exactly, floats
// within the documented bound, and the default rung's bits equal between two runs. Then the
// faults: arguments that differ between ranks and an error on one rank end in the same error on
// every rank, never a hang (CTest's timeout would catch one).
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "block_matmul.hpp"
#include "core/generate.hpp"
#include "core/run.hpp"
#include "core/verify.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"
#include "matmul/rung.hpp"
#include "pplab/mpi.hpp"
#include "pplab/pplab.hpp"
#include "reduce/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

detail::executor& job() { return detail::executor_for(backend::mpi); }

// One seed for the whole job: rank 0's.
std::uint64_t job_seed() {
  std::uint64_t s = fresh_seed();
  MPI_Bcast(&s, 1, MPI_UINT64_T, 0, mpi_communicator());
  return s;
}

struct arrays {
  std::vector<std::byte> whole, mine;  // one byte more than the elements: never empty
  std::size_t mine_n = 0;
};
arrays make(dtype t, std::size_t n, detail::distribution d, std::uint64_t seed) {
  arrays a;
  const std::size_t w = size_of(t);
  a.whole.resize(n * w + 1);
  detail::generate(t, a.whole.data(), n, d, seed);
  const detail::part p = detail::part_of(n, job().rank(), job().ranks());
  a.mine.resize(p.count * w + 1);
  a.mine_n = p.count;
  detail::generate(t, a.mine.data(), p.count, d, seed, p.first);
  EXPECT_EQ(std::memcmp(a.mine.data(), a.whole.data() + p.first * w, p.count * w), 0)
      << "a part generated alone must equal the whole array's part";
  return a;
}

// The local backends each rank can run: seq, cpu, and cuda where a GPU answers.
std::vector<backend> locals() {
  std::vector<backend> out = {backend::seq, backend::cpu};
  if (available(backend::cuda)) out.push_back(backend::cuda);
  return out;
}

std::vector<std::size_t> sizes(std::mt19937_64& rng) {
  return {0, 1, 2, 3, 5, 1009, 100003, 1 + rng() % 300000};
}

class Mpi : public ::testing::Test {
protected:
  void SetUp() override {
    if (!available(backend::mpi)) GTEST_SKIP() << job().why_absent();
    set_mpi_local(backend::cpu);
  }
};

TEST_F(Mpi, EveryReduceRungEveryDtypeAndOpMatchesSeqOnTheWholeArray) {
  const std::uint64_t seed = job_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(job().ranks()) + " ranks");
  const auto& seq_rung = *detail::find<detail::reduce_rung>("reduce/seq/r01_sequential_loop");
  for (backend local : locals()) {
    set_mpi_local(local);
    for (std::size_t n : sizes(rng))
      for (dtype t : test_dtypes())
        for (op o : test_ops()) {
          if ((plain_of(o) == op::mean || is_arg(o)) && n == 0) continue;
          const auto dist = (plain_of(o) == op::product && is_float(t))
                                ? detail::distribution::normal
                                : detail::distribution::uniform;
          const arrays a = make(t, n, dist, seed + n);
          const detail::reduce_problem whole{t, o, n}, mine{t, o, a.mine_n};
          const scalar want = detail::run_rung(seq_rung, whole, a.whole.data());
          double scale = 0;
          visit_dtype(t, [&](auto tag) {
            using T = decltype(tag);
            const T* x = reinterpret_cast<const T*>(a.whole.data());
            for (std::size_t i = 0; i < n; ++i) scale += std::abs(double(x[i]));
          });
          // A mean joined from the ranks' means errs by a few rounding steps of those means,
          // whose size the mean of |x| bounds, not the answer (which may cancel to near 0).
          if (plain_of(o) == op::mean) scale /= double(n);
          if (plain_of(o) == op::product) scale = std::abs(want.to_double());
          for (const auto& r : detail::rungs_of<detail::reduce_rung>()) {
            if (r.info.where != backend::mpi || !r.can_run(mine)) continue;
            SCOPED_TRACE(std::string(r.info.id) + " local " + std::string(name_of(local)) + " " +
                         std::string(name_of(t)) + " " + std::string(name_of(o)) +
                         " n=" + std::to_string(n));
            const scalar got = detail::run_rung(r, mine, a.mine.data());
            double rel = 0;
            EXPECT_TRUE(detail::close_enough(got, want, scale, n, false, rel))
                << got.to_double() << " vs " << want.to_double() << " (rel " << rel << ")";
          }
          // The API: the default rung, the same bits twice.
          const scalar first = reduce(backend::mpi, t, a.mine.data(), mine.n, o);
          const scalar again = reduce(backend::mpi, t, a.mine.data(), mine.n, o);
          EXPECT_TRUE(first.k == again.k && first.u == again.u);
        }
  }
}

// Exact sums (reduce/mpi/r05_exact_totals): the job's answer is one process's, bit for bit, on
// every rank and for every rank count and local backend: values of every exponent and sign,
// cancelling pairs, subnormals, parts of every size (a rank with none included).
TEST_F(Mpi, ExactSumsAreOneProcessesBitsForEveryRankCount) {
  const std::uint64_t seed = job_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(job().ranks()) + " ranks");
  std::mt19937_64 rng(seed);  // the same on every rank
  std::normal_distribution<double> z;
  std::uniform_int_distribution<int> exponent(-140, 100);  // in float's range, subnormals too
  const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  for (backend local : locals()) {
    set_mpi_local(local);
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1009), std::size_t(100003)}) {
      std::vector<double> x(n);
      for (std::size_t i = 0; i < n; ++i)
        x[i] = i % 3 == 2 ? -x[i - 1] : std::ldexp(z(rng), i % 2 ? exponent(rng) : 0);
      if (n > 7) x[7] = std::numeric_limits<double>::denorm_min();
      const std::vector<float> xf(x.begin(), x.end());
      const detail::part p = detail::part_of(n, job().rank(), job().ranks());
      for (dtype t : {dtype::f32, dtype::f64}) {
        const void* whole = t == dtype::f32 ? static_cast<const void*>(xf.data()) : x.data();
        const void* mine = t == dtype::f32 ? static_cast<const void*>(xf.data() + p.first)
                                           : x.data() + p.first;
        SCOPED_TRACE(std::string(name_of(local)) + " " + std::string(name_of(t)) +
                     " n=" + std::to_string(n));
        std::string ran;
        const double s = sum_exact(backend::mpi, t, mine, p.count, {.rung = {}, .ran = &ran});
        EXPECT_TRUE(same(s, sum_exact(backend::seq, t, whole, n))) << s;
        EXPECT_FALSE(std::isnan(s));
        EXPECT_EQ(ran, "reduce/mpi/r05_exact_totals");
        const double m = mean_exact(backend::mpi, t, mine, p.count);
        EXPECT_TRUE(same(m, mean_exact(backend::seq, t, whole, n))) << m;
      }
    }
  }
  set_mpi_local(backend::cpu);
  const float none = 0;
  EXPECT_EQ(sum_exact(backend::mpi, dtype::f32, &none, 0), 0.0);
  expect_error(
      errc::invalid_argument, [&] { mean_exact(backend::mpi, dtype::f32, &none, 0); }, "empty");
}

TEST_F(Mpi, FloatSumsAgreeWithOneProcessWithinTheBound) {
  // f32 2^20 + 7 uniform: the job's sum against the cpu backend's on the whole array.
  const std::size_t n = (std::size_t(1) << 20) + 7;
  const arrays a = make(dtype::f32, n, detail::distribution::uniform, 7);
  const double whole = reduce(backend::cpu, dtype::f32, a.whole.data(), n, op::sum).f;
  const double job_sum = reduce(backend::mpi, dtype::f32, a.mine.data(), a.mine_n, op::sum).f;
  EXPECT_LE(std::abs(job_sum - whole), detail::sum_tolerance(n) * whole);
}

TEST_F(Mpi, EveryHistogramRungMatchesSeqExactly) {
  const std::uint64_t seed = job_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (backend local : locals())
    for (std::size_t n : sizes(rng))
      for (dtype t : {dtype::u8, dtype::i16, dtype::f32, dtype::f64})
        for (std::size_t bins : {std::size_t(0), std::size_t(7), std::size_t(1000)})
          for (edge_rule rule : {edge_rule::f64, edge_rule::numpy}) {
            set_mpi_local(local);
            const arrays a = make(t, n, detail::distribution::normal, seed + bins);
            const std::size_t mine = a.mine_n;
            histogram_options o;
            o.bins = bins, o.edges = rule, o.closed_last = rule == edge_rule::numpy;
            const histogram_result want = histogram(backend::seq, t, a.whole.data(), n, o);
            const histogram_result got = histogram(backend::mpi, t, a.mine.data(), mine, o);
            SCOPED_TRACE(std::string(name_of(t)) + " n=" + std::to_string(n) + " bins " +
                         std::to_string(bins) + " local " + std::string(name_of(local)) +
                         " edges " + std::to_string(int(rule)));
            EXPECT_EQ(got.lo, want.lo);
            EXPECT_EQ(got.hi, want.hi);
            EXPECT_EQ(got.edges, want.edges);
            EXPECT_EQ(got.counts, want.counts);
            EXPECT_EQ(got.total(), n);
            const detail::histogram_problem p =
                detail::resolve_histogram(backend::mpi, t, a.mine.data(), mine, o);
            for (const auto& r : detail::rungs_of<detail::histogram_rung>()) {
              if (r.info.where != backend::mpi) continue;
              const histogram_result each = detail::run_histogram_into_result(r, p, a.mine.data());
              EXPECT_EQ(each.counts, want.counts) << r.info.id;
              EXPECT_EQ(each.underflow + each.overflow + each.nan,
                        want.underflow + want.overflow + want.nan)
                  << r.info.id;
            }
          }
}

// An array of edges and weights over the ranks: the counts exactly one process's, the sums
// within double rounding of them, every mpi rung and every local backend.
TEST_F(Mpi, EdgesAndWeightsMatchOneProcess) {
  const std::uint64_t seed = job_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<double> edges{-3, -1, -0.5, -0.5, 0, 0.25, 2, 2.5};
  for (backend local : locals())
    for (std::size_t n : sizes(rng)) {
      set_mpi_local(local);
      const arrays a = make(dtype::f32, n, detail::distribution::normal, seed);
      const arrays w = make(dtype::f64, n, detail::distribution::uniform, seed + 1);
      for (bool weighted : {false, true})
        for (bool with_edges : {false, true}) {
          histogram_options o;
          if (with_edges) o.bin_edges = edges;
          else o.bins = 13;
          if (weighted) o.weights = w.whole.data();
          const histogram_result want = histogram(backend::seq, dtype::f32, a.whole.data(), n, o);
          if (weighted) o.weights = w.mine.data();
          const detail::histogram_problem p =
              detail::resolve_histogram(backend::mpi, dtype::f32, a.mine.data(), a.mine_n, o);
          SCOPED_TRACE(std::string(name_of(local)) + " n=" + std::to_string(n) +
                       (weighted ? " weighted" : "") + (with_edges ? " edges" : ""));
          for (const auto& r : detail::rungs_of<detail::histogram_rung>()) {
            if (r.info.where != backend::mpi) continue;
            const histogram_result got = detail::run_histogram_into_result(
                r, p, detail::histogram_data(a.mine.data(), o.weights, edges.data()));
            EXPECT_EQ(got.counts, want.counts) << r.info.id;
            ASSERT_EQ(got.sums.size(), want.sums.size()) << r.info.id;
            for (std::size_t i = 0; i < want.sums.size(); ++i)
              EXPECT_NEAR(got.sums[i], want.sums[i], 1e-9 * (1 + std::abs(want.sums[i])))
                  << r.info.id << " bin " << i;
          }
        }
    }
}

TEST_F(Mpi, UserOperatorFarthestPointAcrossRanks) {
  // The reduction notes' 3-D farthest point: each rank holds some points, rank r's include one at
  // distance 10 + r, so the answer is the last rank's.
  const int me = job().rank(), ranks = job().ranks();
  std::vector<point3> mine(1000 + std::size_t(me) * 37);
  std::mt19937_64 rng(std::uint64_t(me) + 1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (point3& p : mine) p = {u(rng), u(rng), u(rng)};
  mine[std::size_t(me) * 13] = {0, float(10 + me), 0};
  const point3 far = reduce(mpi, mine, farthest_point_op());
  EXPECT_EQ(far, (point3{0, float(10 + ranks - 1), 0}));
  // A rank with no points contributes the identity.
  const std::vector<point3> none;
  const point3 nothing = reduce(mpi, none, farthest_point_op());
  EXPECT_EQ(nothing, (point3{0, 0, 0}));
}

// SUMMA: every rank's block of C against the seq product (block_matmul.hpp), through the API
// and through every rung.
TEST_F(Mpi, EveryMatmulRungMatchesSeqBlockByBlock) {
  for (backend local : locals()) {
    set_mpi_local(local);
    for_each_block_case([&](const block_case& c) {
      for (const auto& r : detail::rungs_of<detail::matmul_rung>()) {
        if (r.info.where != backend::mpi) continue;
        SCOPED_TRACE(std::string(r.info.id) + " local " + std::string(name_of(local)) + " " +
                     c.name());
        std::vector<std::byte> cb = c.fresh_c();
        matmul(backend::mpi, c.t, c.p.m, c.p.n, c.p.k, c.alpha, c.a.data(), c.lda, c.b.data(),
               c.ldb, c.beta, cb.data(), c.ldc);
        if (r.info.id != detail::default_rung<detail::matmul_rung>(backend::mpi, c.p).info.id) {
          cb = c.fresh_c();
          detail::run_rung(r, {c.p, c.alpha, c.beta, c.a.data(), c.lda, c.b.data(), c.ldb,
                               cb.data(), c.ldc, nullptr, nullptr});
        }
        c.check(cb);
      }
    });
  }
}

// Row slabs with their halo exchanged give the same bits as the local backend on the whole image
// in one process: every mode (wrap reads the far end, which another rank holds), images of fewer
// rows than ranks, slabs thinner than the halo, f32 and f64, through pplab::correlate.
TEST_F(Mpi, ConvolutionRowSlabsEqualOneProcessBitForBit) {
  std::mt19937_64 rng(job_seed());
  struct shape {
    std::size_t rows, cols, kh, kw;
  };
  const shape shapes[] = {{1, 5, 3, 3},   {2, 9, 5, 3},   {5, 4, 31, 3},    {7, 33, 3, 7},
                          {40, 61, 9, 9}, {64, 17, 1, 5}, {101, 50, 15, 15}};
  for (backend local : {backend::seq, backend::cpu}) {
    set_mpi_local(local);
    for (const shape& s : shapes)
      for (boundary mode : {boundary::reflect, boundary::constant, boundary::nearest,
                            boundary::mirror, boundary::wrap})
        for (dtype t : {dtype::f32, dtype::f64}) {
          SCOPED_TRACE(std::string(name_of(local)) + " " + std::to_string(s.rows) + "x" +
                       std::to_string(s.cols) + " mask " + std::to_string(s.kh) + "x" +
                       std::to_string(s.kw) + " " + std::string(name_of(mode)) + " " +
                       std::string(name_of(t)));
          const std::size_t n = s.rows * s.cols, w = size_of(t);
          std::vector<std::byte> whole(n * w + 1), want(n * w + 1);
          detail::generate(t, whole.data(), n, detail::distribution::normal, rng());
          std::vector<double> mask(s.kh * s.kw);
          std::normal_distribution<double> z;
          for (double& m : mask) m = z(rng);
          MPI_Bcast(mask.data(), int(mask.size()), MPI_DOUBLE, 0, mpi_communicator());
          filter_options o{mode, 0.25};
          correlate(local, t, whole.data(), s.rows, s.cols, 0, mask.data(), s.kh, s.kw, want.data(),
                    0, o);
          const detail::part p = detail::part_of(s.rows, job().rank(), job().ranks());
          std::vector<std::byte> got(p.count * s.cols * w + 1);
          correlate(backend::mpi, t, whole.data() + p.first * s.cols * w, s.rows, s.cols, 0,
                    mask.data(), s.kh, s.kw, got.data(), 0, o);
          EXPECT_EQ(
              std::memcmp(got.data(), want.data() + p.first * s.cols * w, p.count * s.cols * w), 0);
        }
    // u8 images of 3 channels, to u8 and to f32 (constant mode with a cval a byte holds)
    for (const shape& s : shapes)
      for (boundary mode : {boundary::constant, boundary::mirror, boundary::wrap})
        for (bool u8_out : {true, false}) {
          SCOPED_TRACE(std::string(name_of(local)) + " u8 x3 " + std::to_string(s.rows) + "x" +
                       std::to_string(s.cols) + " mask " + std::to_string(s.kh) + "x" +
                       std::to_string(s.kw) + " " + std::string(name_of(mode)) +
                       (u8_out ? " to u8" : " to f32"));
          const std::size_t row = s.cols * 3, w = u8_out ? 1 : 4;
          std::vector<std::uint8_t> whole(s.rows * row + 1);
          for (auto& v : whole) v = std::uint8_t(rng());
          MPI_Bcast(whole.data(), int(whole.size()), MPI_BYTE, 0, mpi_communicator());
          std::vector<double> mask(s.kh * s.kw);
          std::normal_distribution<double> z(0.05, 0.3);
          for (double& m : mask) m = z(rng);
          MPI_Bcast(mask.data(), int(mask.size()), MPI_DOUBLE, 0, mpi_communicator());
          filter_options o{mode, 7.0, 3, u8_out};
          std::vector<std::byte> want(s.rows * row * w + 1);
          correlate(local, dtype::u8, whole.data(), s.rows, s.cols, 0, mask.data(), s.kh, s.kw,
                    want.data(), 0, o);
          const detail::part p = detail::part_of(s.rows, job().rank(), job().ranks());
          std::vector<std::byte> got(p.count * row * w + 1);
          correlate(backend::mpi, dtype::u8, whole.data() + p.first * row, s.rows, s.cols, 0,
                    mask.data(), s.kh, s.kw, got.data(), 0, o);
          EXPECT_EQ(std::memcmp(got.data(), want.data() + p.first * row * w, p.count * row * w), 0);
        }
  }
  set_mpi_local(backend::cpu);
  // A stack of images is not split over the ranks: every rank gets the one error
  std::vector<float> img(2 * 6 * 5, 1.0f), out(img.size());
  std::vector<double> line(3, 1.0 / 3);
  filter_options o;
  o.planes = 2, o.plane_in = 30, o.plane_out = 30;
  const part p = part_of(6, job().rank(), job().ranks());
  expect_error(
      errc::unsupported,
      [&] {
        correlate(backend::mpi, dtype::f32, img.data() + p.first * 5, 6, 5, 0, line.data(), 3, 1,
                  out.data(), 0, o);
      },
      "planes");
}

TEST_F(Mpi, ArgumentsThatDifferBetweenRanksAreOneErrorOnEveryRank) {
  std::vector<float> x(100, 1.0f);
  const op o = job().rank() == 0 ? op::sum : op::max;
  try {
    reduce(backend::mpi, dtype::f32, x.data(), x.size(), o);
    ADD_FAILURE() << "the ranks asked for different ops and no error came";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos) << e.what();
  }
  histogram_options h;
  h.bins = job().rank() == 0 ? 10 : 11;
  EXPECT_THROW(histogram(backend::mpi, dtype::f32, x.data(), x.size(), h), error);
  // And the job goes on: the next call agrees.
  EXPECT_EQ(reduce(backend::mpi, dtype::f32, x.data(), x.size(), op::sum).f, 100.0 * job().ranks());
}

TEST_F(Mpi, AnErrorOnOneRankIsThrownOnEveryRankNamingIt) {
  std::vector<float> x(10, 2.0f);
  const bool bad = job().rank() == job().ranks() - 1;
  try {
    reduce(backend::mpi, dtype::f32, bad ? nullptr : x.data(), x.size(), op::sum);
    ADD_FAILURE() << "one rank passed null data and no error came";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(job().ranks() - 1)),
              std::string::npos)
        << e.what();
  }
  // The mean of nothing anywhere is an error on every rank; of something somewhere it is not.
  EXPECT_THROW(reduce(backend::mpi, dtype::f32, x.data(), 0, op::mean), error);
  const std::size_t some = job().rank() == 0 ? 4 : 0;
  EXPECT_EQ(reduce(backend::mpi, dtype::f32, x.data(), some, op::mean).f, 2.0);
}

}  // namespace
}  // namespace pplab::test
