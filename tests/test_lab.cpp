// The lab as a library: it plans every registered rung of every backend built and usable here,
// and a tiny run verifies them all against their references with every ceiling in the table.
// The API's policy never picks a racy, non-reproducible or baseline rung.
#include <algorithm>
#include <map>
#include <type_traits>

#include "core/run.hpp"
#include "histogram/rung.hpp"
#include "matmul/rung.hpp"
#include "pplab/lab.hpp"
#include "reduce/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

lab::settings tiny() {
  lab::settings s;
  s.scale = lab::size::tiny;
  s.budget_s = 0.01;
  return s;
}

template <class Rung> void expect_planned(const std::vector<std::string>& plan) {
  for (const Rung& r : detail::rungs_of<Rung>()) {
    if (!available(r.info.where)) continue;
    // A matmul rung of the nccl backend runs either in one process or in a job of processes
    // (mpirun): the lab of each launch measures its own (the job's under mpirun).
    if constexpr (std::is_same_v<Rung, detail::matmul_rung>)
      if (r.info.where == backend::nccl && !r.can_run({dtype::f32, 1, 1, 1})) continue;
    EXPECT_NE(std::find(plan.begin(), plan.end(), std::string(r.info.id)), plan.end())
        << r.info.id << " is registered but the lab never measures it";
  }
}

TEST(Lab, PlansEveryRegisteredRungOfTheBackendsHere) {
  for (const auto scale : {lab::size::full, lab::size::quick, lab::size::tiny}) {
    lab::settings s = tiny();
    s.scale = scale;
    const std::vector<std::string> plan = lab::planned_rungs(s);
    expect_planned<detail::reduce_rung>(plan);
    expect_planned<detail::histogram_rung>(plan);
    expect_planned<detail::matmul_rung>(plan);
  }
}

TEST(Lab, ATinyRunVerifiesEveryPlannedRungAgainstAMeasuredCeiling) {
  lab::settings s = tiny();
  if (sanitizer_run()) s.only_backend = backend::cuda;
  if (s.only_backend && !available(*s.only_backend)) GTEST_SKIP() << "no device";
  const lab::result out = lab::run(s);
  for (const std::string& id : lab::planned_rungs(s)) {
    bool seen = false;
    for (const lab::row& r : out.rows) seen |= r.rung == id;
    EXPECT_TRUE(seen) << id << " has no row";
  }
  ASSERT_FALSE(out.rows.empty());
  for (const lab::row& r : out.rows) {
    EXPECT_TRUE(r.verified || r.racy) << r.rung << " on " << r.group << ": " << r.note;
    EXPECT_GT(r.median_ms, 0) << r.rung;
    ASSERT_FALSE(r.ceiling.empty()) << r.rung << " is held against no ceiling";
    EXPECT_GT(out.ceiling(r.ceiling), 0) << r.ceiling << " is not in the table";
    if (!r.floor.empty()) {
      EXPECT_GT(out.ceiling(r.floor), 0) << r.floor;
    }
  }
  for (const detail::ceiling& c : out.ceilings) EXPECT_FALSE(c.source.empty()) << c.key;
  // Every problem that a backend's ladder ran shows the API's pick among its rows, once.
  std::map<std::string, int> picks;
  for (const lab::row& r : out.rows)
    if (r.step >= 0) picks[r.pattern + " " + r.group + " " + r.backend] += r.api_pick;
  ASSERT_FALSE(picks.empty());
  for (const auto& [problem, count] : picks) EXPECT_EQ(count, 1) << problem;
  // The fastest mark (what `pplab tune` would choose) falls only on a rung the API may run
  // unasked, once per problem and backend, and the API's pick is compared with it.
  std::map<std::string, int> fastest;
  for (const lab::row& r : out.rows) {
    if (r.tune_key.empty()) continue;
    fastest[r.pattern + " " + r.group + " " + r.backend] += r.fastest;
    if (r.fastest) {
      EXPECT_TRUE(r.choosable && r.verified) << r.rung;
      EXPECT_TRUE(lab::find_rung(r.pattern, r.rung).api_may_run()) << r.rung;
    }
    if (r.api_pick) {
      EXPECT_GE(r.pick_vs_fastest, 1.0) << r.rung << " " << r.group;
    }
  }
  for (const auto& [problem, count] : fastest) EXPECT_EQ(count, 1) << problem;
  for (const tuned_choice& c : lab::choices_of(out))
    EXPECT_TRUE(lab::find_rung(c.pattern, c.rung).api_may_run()) << c.rung;
}

// Rungs that compute to another contract than the API's are never picked unasked: the racy
// teaching rung, CUB's float-accumulator sum, split-TF32 matmul.
TEST(Policy, OptInAndLooserRungsAreNeverChosenUnasked) {
  std::size_t seen = 0;
  for (const rung_info& r : lab::all_rungs()) {
    if (r.racy || r.float_accumulator || r.opt_in || r.step < 0) {
      EXPECT_FALSE(r.api_may_run()) << r.id;
      ++seen;
    }
    if (std::string_view(r.id).find("split_tf32") != std::string_view::npos) {
      EXPECT_TRUE(r.opt_in) << r.id;
    }
  }
  if (!seen) GTEST_SKIP() << "this build has none of them (no CUDA)";
}

// The progress line's total: one run of a rung per problem it runs, as many as the rows the
// ladders give.
TEST(Lab, PlansAsManyRunsAsItsLaddersGiveRows) {
  lab::settings s = tiny();
  s.only_backend = backend::cpu;
  const lab::result out = lab::run(s);
  std::size_t ladder_rows = 0;
  for (const lab::row& r : out.rows)
    for (const rung_info& info : lab::all_rungs()) ladder_rows += r.rung == info.id;
  EXPECT_EQ(lab::planned_runs(s), ladder_rows);
  EXPECT_GE(lab::planned_runs(s), lab::planned_rungs(s).size());
}

// A vendor's baseline only where the policy says the lab measured it faster (cpu matmul).
TEST(Policy, TheApiNeverPicksARacyNonReproducibleOrBaselineRung) {
  for (backend b : {backend::seq, backend::cpu, backend::cuda}) {
    if (!available(b)) continue;
    for (dtype t : all_dtypes)
      for (op o : all_ops)
        for (std::size_t n : {std::size_t(0), std::size_t(1000), std::size_t(1) << 28}) {
          const auto& r = detail::default_rung<detail::reduce_rung>(b, {t, o, n});
          EXPECT_GE(r.info.step, 1) << r.info.id;
          EXPECT_TRUE(r.info.reproducible && !r.info.racy) << r.info.id;
          EXPECT_EQ(r.info.where, b) << r.info.id;
        }
    for (std::size_t bins : {std::size_t(1), std::size_t(256), std::size_t(1) << 16,
                             (std::size_t(1) << 16) + 1, std::size_t(1) << 24}) {
      const auto& r = detail::default_rung<detail::histogram_rung>(
          b, {dtype::f32, 1000, bins, 0, 1, false, false});
      EXPECT_TRUE(r.info.step >= 1 && r.info.reproducible && !r.info.racy) << r.info.id;
    }
    for (dtype t : {dtype::f32, dtype::f64}) {
      const auto& r = detail::default_rung<detail::matmul_rung>(b, {t, 100, 100, 100});
      EXPECT_TRUE(r.info.step >= (b == backend::cpu ? 0 : 1) && r.info.reproducible && !r.info.racy)
          << r.info.id;
    }
  }
}

// The cpu's matmul: OpenBLAS where it is built (but for x B, small products, a stack's, and
// products of two matrices where m03 measures faster at run time), else
// the ladder's rungs; bytes' histograms by sub-histograms, wider values' by private copies to
// 2^16 bins, by the partition past that.
TEST(Policy, TheCpuPicksWhatTheLabMeasuredFastest) {
  const bool openblas = detail::find<detail::matmul_rung>("matmul/cpu/m00_openblas") != nullptr;
  const auto matmul_pick = [](std::size_t m, std::size_t n, std::size_t k) {
    return std::string(
        detail::default_rung<detail::matmul_rung>(backend::cpu, {dtype::f32, m, n, k}).info.id);
  };
  // Two matrices: OpenBLAS, unless m03 measured faster on this machine (once a process)
  const auto two_matrices = [&](std::size_t s) {
    return openblas && !detail::packed_kernel_outruns_openblas({dtype::f32, s, s, s})
               ? "matmul/cpu/m00_openblas"
               : "matmul/cpu/m03_packed_microkernel";
  };
  EXPECT_EQ(matmul_pick(512, 512, 512), two_matrices(512));
  EXPECT_EQ(matmul_pick(4096, 4096, 4096), two_matrices(4096));
  // Without 512-bit vectors a large product is OpenBLAS's in every process: no measurement
  // decides it (a CPU without AVX-512 has none in the build, native or not).
  if (openblas && !__builtin_cpu_supports("avx512f")) {
    EXPECT_EQ(matmul_pick(4096, 4096, 4096), "matmul/cpu/m00_openblas");
  }
  EXPECT_EQ(matmul_pick(8192, 1, 8192),
            openblas ? "matmul/cpu/m00_openblas" : "matmul/cpu/m04_matrix_times_vector");
  EXPECT_EQ(matmul_pick(4096, 1, 4096), "matmul/cpu/m04_matrix_times_vector");  // 2^24: small
  EXPECT_EQ(matmul_pick(1, 8192, 8192), "matmul/cpu/m05_vector_times_matrix");
  EXPECT_EQ(matmul_pick(64, 64, 64), "matmul/cpu/m06_small_products");
  EXPECT_EQ(matmul_pick(128, 128, 128), "matmul/cpu/m03_packed_microkernel");
  // A tall A times a tiny B (points @ R), at every height: m07
  EXPECT_EQ(matmul_pick(1000, 3, 3), "matmul/cpu/m07_tall_times_tiny");
  EXPECT_EQ(matmul_pick(10000000, 4, 4), "matmul/cpu/m07_tall_times_tiny");
  EXPECT_EQ(matmul_pick(100000, 3, 5), "matmul/cpu/m03_packed_microkernel");
  const auto histogram_pick = [](dtype t, std::size_t bins, bool natural) {
    return std::string(detail::default_rung<detail::histogram_rung>(
                           backend::cpu, {t, 1000, bins, 0, double(bins), false, natural})
                           .info.id);
  };
  EXPECT_EQ(histogram_pick(dtype::u8, 256, true), "histogram/cpu/h03_sub_histograms");
  EXPECT_EQ(histogram_pick(dtype::f32, 1024, false), "histogram/cpu/h02_private_per_thread");
  EXPECT_EQ(histogram_pick(dtype::f32, std::size_t(1) << 20, false),
            "histogram/cpu/h04_partition_then_count");
}

TEST(Policy, ScratchFitsWhatLeavesRoomInFreeMemory) {
  int asked = 0;
  const auto free_is = [&](std::size_t bytes) {
    return [&asked, bytes] { return ++asked, bytes; };
  };
  const std::size_t room = detail::never_in_doubt, mib = std::size_t(1) << 20;
  EXPECT_TRUE(detail::scratch_fits(0, free_is(0)));
  EXPECT_TRUE(detail::scratch_fits(room, free_is(0)));
  EXPECT_EQ(asked, 0) << "a small scratch needs no device query";
  EXPECT_FALSE(detail::scratch_fits(room + 1, free_is(0)));
  EXPECT_FALSE(detail::scratch_fits(512 * mib, free_is(512 * mib)));
  EXPECT_FALSE(detail::scratch_fits(512 * mib, free_is(512 * mib + room - 1)));
  EXPECT_TRUE(detail::scratch_fits(512 * mib, free_is(512 * mib + room)));
  EXPECT_EQ(asked, 4);
}

// With no free memory told, the policy still answers: a rung whose scratch is small, or the
// first that can run the problem; on the GPU, the partition rungs (O(n) scratch) give way to one
// that needs none when the device is full.
TEST(Policy, ARungWhoseScratchDoesNotFitIsPassedOver) {
  const auto none = [] { return std::size_t(0); };
  const auto plenty = [] { return SIZE_MAX; };
  for (backend b : {backend::seq, backend::cpu}) {
    const detail::histogram_problem p{dtype::f32, 1000, 1 << 16, 0, 1, false, false};
    const auto& roomy = detail::default_rung_within<detail::histogram_rung>(b, p, plenty);
    const auto& tight = detail::default_rung_within<detail::histogram_rung>(b, p, none);
    // On a host of many cores the sub-histograms' scratch (a copy of the counts per thread)
    // passes the small size that needs no asking (32 cores: h04 was picked instead of h03).
    if (roomy.scratch(p) <= detail::never_in_doubt) EXPECT_EQ(tight.info.id, roomy.info.id);
    else EXPECT_TRUE(tight.can_run(p)) << tight.info.id;
  }
  if (!available(backend::cuda)) GTEST_SKIP() << "the GPU half needs a GPU";
  const detail::histogram_problem p{
      dtype::f32, std::size_t(1) << 28, std::size_t(1) << 20, 0, 1, false, false};
  const auto& roomy = detail::default_rung_within<detail::histogram_rung>(backend::cuda, p, plenty);
  const auto& full = detail::default_rung_within<detail::histogram_rung>(backend::cuda, p, none);
  EXPECT_GT(roomy.scratch(p), detail::never_in_doubt) << roomy.info.id;
  EXPECT_NE(full.info.id, roomy.info.id);
  EXPECT_LE(full.scratch(p), detail::never_in_doubt) << full.info.id;
  EXPECT_TRUE(full.can_run(p)) << full.info.id;
}

}  // namespace
}  // namespace pplab::test
