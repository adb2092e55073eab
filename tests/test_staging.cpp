// The staging of host data into an executor whose memory is not the host's, tested without a GPU:
// a stand-in "device" executor keeps its memory apart from the caller's (every copy goes through
// it and is counted), and host rungs run through it on data that crosses chunk boundaries. The
// answers must equal those of the same rungs run on the host directly.
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "core/generate.hpp"
#include "core/run.hpp"
#include "core/timing.hpp"
#include "core/verify.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"
#include "matmul/rung.hpp"
#include "reduce/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

class fake_device final : public detail::executor {
public:
  std::size_t bytes_in = 0, bytes_out = 0;
  std::set<void*> live;

  backend kind() const noexcept override { return backend::cuda; }
  std::string why_absent() const override { return {}; }
  std::string describe() const override { return "a stand-in device in host memory"; }
  bool host_memory() const noexcept override { return false; }
  bool holds(const void* p) const override { return live.count(const_cast<void*>(p)) != 0; }
  void* allocate(std::size_t bytes) override {
    void* p = std::malloc(bytes ? bytes : 1);
    std::memset(p, 0x5a, bytes);  // what a fresh device buffer holds: not zeros
    live.insert(p);
    return p;
  }
  void release(void* p) noexcept override {
    live.erase(p);
    std::free(p);
  }
  void copy_in(void* dst, const void* src, std::size_t bytes) override {
    EXPECT_TRUE(bytes == 0 || holds(dst));
    if (bytes) std::memcpy(dst, src, bytes);
    bytes_in += bytes;
  }
  void copy_out(void* dst, const void* src, std::size_t bytes) override {
    EXPECT_TRUE(bytes == 0 || holds(src));
    if (bytes) std::memcpy(dst, src, bytes);
    bytes_out += bytes;
  }
  void copy_rows_in(void* dst, std::size_t dp, const void* src, std::size_t sp, std::size_t row,
                    std::size_t rows) override {
    EXPECT_TRUE(rows * row == 0 || holds(dst));
    for (std::size_t r = 0; r < rows; ++r)
      std::memcpy(static_cast<char*>(dst) + r * dp, static_cast<const char*>(src) + r * sp, row);
    bytes_in += rows * row;
  }
  void copy_rows_out(void* dst, std::size_t dp, const void* src, std::size_t sp, std::size_t row,
                     std::size_t rows) override {
    EXPECT_TRUE(rows * row == 0 || holds(src));
    for (std::size_t r = 0; r < rows; ++r)
      std::memcpy(static_cast<char*>(dst) + r * dp, static_cast<const char*>(src) + r * sp, row);
    bytes_out += rows * row;
  }
  void fill(void* dst, int byte, std::size_t bytes) override { std::memset(dst, byte, bytes); }
  void* stream() override { return nullptr; }
  void synchronize() override {}
  detail::timing time(const std::function<void()>& work, const detail::time_plan& p) override {
    return detail::time_it(work, p.min_reps, p.budget_s);
  }
  std::vector<detail::ceiling> measure_ceilings(std::size_t, double) override { return {}; }
  double read_GBps(std::size_t, double) override { return 0; }
};

const detail::reduce_rung& seq_reduce() {
  return *detail::find<detail::reduce_rung>("reduce/seq/r01_sequential_loop");
}

TEST(Staging, ReduceStreamsChunksAndCombinesThemInOrder) {
  const std::size_t per_chunk = (std::size_t(64) << 20) / 4;
  const std::size_t n = 2 * per_chunk + 12345;  // three chunks, the last one short
  std::vector<std::int32_t> x(n);
  detail::generate(dtype::i32, x.data(), n, detail::distribution::uniform, fresh_seed());
  for (const auto* r :
       {&seq_reduce(), detail::find<detail::reduce_rung>("reduce/cpu/r03_simd_accumulators"),
        detail::find<detail::reduce_rung>("reduce/cpu/r05_moments_in_blocks")})
    for (op o : all_ops) {
      if (skips_nan(o)) continue;  // of integers the plain ops, looped already
      fake_device dev;
      const detail::reduce_problem p{dtype::i32, o, n};
      if (!r->can_run(p)) continue;  // var and std: seq's loop and r05
      const scalar staged = detail::run_rung(*r, dev, p, x.data());
      const scalar direct = detail::run_rung(*r, p, x.data());
      EXPECT_EQ(staged.k, direct.k) << name_of(o);
      // a var's chunks are merged moments: the grouping differs from one pass's in the last bits
      // a mean's chunks come back as their means, each rounded once at its own scale (up to
      // the data's 2^20), and the mean of the whole may be far smaller (the signs cancel): the
      // join is as near as a few roundings of the largest value, not of the answer
      if (o == op::mean)
        EXPECT_NEAR(staged.f, direct.f, 4 * std::numeric_limits<double>::epsilon() * 1048576.0);
      else if (is_moments(o))
        EXPECT_NEAR(staged.f, direct.f, detail::sum_tolerance(n, false) * direct.f) << name_of(o);
      else EXPECT_EQ(staged.i, direct.i) << name_of(o);
      EXPECT_EQ(dev.bytes_in, n * 4) << "every byte crosses once";
      EXPECT_EQ(dev.bytes_out, 3 * detail::answer_bytes(p)) << "one answer per chunk comes back";
      EXPECT_TRUE(dev.live.empty()) << "every buffer is given back";
    }
}

TEST(Staging, ReduceOfFloatsIsTheSameOnEveryRunAndEmptyGivesTheIdentity) {
  const std::size_t n = (std::size_t(64) << 20) / 4 + 777;
  std::vector<float> x(n);
  detail::generate(dtype::f32, x.data(), n, detail::distribution::normal, fresh_seed());
  fake_device dev;
  const detail::reduce_problem p{dtype::f32, op::sum, n};
  const double first = detail::run_rung(seq_reduce(), dev, p, x.data()).f;
  EXPECT_EQ(detail::run_rung(seq_reduce(), dev, p, x.data()).f, first);
  EXPECT_NEAR(first, detail::run_rung(seq_reduce(), p, x.data()).f, 1e-6 * n);
  EXPECT_EQ(detail::run_rung(seq_reduce(), dev, {dtype::f32, op::max, 0}, nullptr).f,
            -std::numeric_limits<double>::infinity());
}

TEST(Staging, HistogramChunksAddUpToTheHostCounts) {
  const std::size_t n = (std::size_t(64) << 20) * 2 + 99;  // bytes: three chunks
  std::vector<std::uint8_t> x(n);
  detail::generate(dtype::u8, x.data(), n, detail::distribution::skewed, fresh_seed());
  const auto& seq = *detail::find<detail::histogram_rung>("histogram/seq/h01_sequential");
  const detail::histogram_problem p{dtype::u8, n, 256, 0, 256, false, true};
  std::vector<std::uint64_t> staged(detail::slots(p), 7), direct(detail::slots(p), 9);
  fake_device dev;
  detail::run_rung(seq, dev, p, x.data(), staged.data());
  detail::run_rung(seq, p, x.data(), direct.data());
  EXPECT_EQ(staged, direct);
  EXPECT_EQ(dev.bytes_in, n);
  EXPECT_TRUE(dev.live.empty());
  // Many bins, with outliers and NaN: one chunk, every slot comes back.
  std::vector<float> f(100003);
  detail::generate(dtype::f32, f.data(), f.size(), detail::distribution::normal, fresh_seed());
  f[5] = std::numeric_limits<float>::quiet_NaN();
  const detail::histogram_problem q{dtype::f32, f.size(), std::size_t(1) << 20, -1, 1, true, false};
  staged.assign(detail::slots(q), 1), direct.assign(detail::slots(q), 2);
  detail::run_rung(seq, dev, q, f.data(), staged.data());
  detail::run_rung(seq, q, f.data(), direct.data());
  EXPECT_EQ(staged, direct);
}

TEST(Staging, MatmulCopiesViewsRowByRowAndLeavesThePaddingAlone) {
  std::mt19937_64 rng(fresh_seed());
  const auto& m03 = *detail::find<detail::matmul_rung>("matmul/cpu/m03_packed_microkernel");
  for (double beta : {0.0, 0.5}) {
    const std::size_t m = 37, n = 29, k = 41, lda = k + 3, ldb = n + 1, ldc = n + 5;
    std::vector<double> a(m * lda), b(k * ldb), c(m * ldc, std::nan(""));
    std::normal_distribution<double> z;
    for (double& v : a) v = z(rng);
    for (double& v : b) v = z(rng);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) c[i * ldc + j] = beta != 0 ? z(rng) : std::nan("");
    std::vector<double> want = c;
    const detail::matmul_problem p{dtype::f64, m, n, k};
    detail::run_rung(
        m03, {p, 1.5, beta, a.data(), lda, b.data(), ldb, want.data(), ldc, nullptr, nullptr});
    fake_device dev;
    detail::run_rung(m03, dev,
                     {p, 1.5, beta, a.data(), lda, b.data(), ldb, c.data(), ldc, nullptr, nullptr});
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < ldc; ++j) {
        if (j >= n) EXPECT_TRUE(std::isnan(c[i * ldc + j])) << "padding written at " << i;
        else EXPECT_EQ(c[i * ldc + j], want[i * ldc + j]) << i << "," << j;
      }
    EXPECT_EQ(dev.bytes_in, (m * k + k * n + (beta != 0 ? m * n : 0)) * 8);
    EXPECT_EQ(dev.bytes_out, m * n * 8);
    EXPECT_TRUE(dev.live.empty());
  }
}

}  // namespace
}  // namespace pplab::test
