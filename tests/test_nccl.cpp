// The nccl backend beyond what the pattern bodies test (test_reduce, test_histogram and
// test_matmul run every nccl rung on host data, one process driving every GPU): data already on
// the GPUs (the API's device parts, one per GPU), and a job of one process per GPU (CTest's
// nccl_mpi_2 runs this program under mpirun). Each GPU g of G holds the elements
// part_of(N, g, G) of one array; the answer is held against the seq backend on the whole array:
// integers and counts exactly, floats within the documented bound, the same bits on a second
// call. Skipped where fewer than two GPUs answer.
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "block_matmul.hpp"
#include "core/generate.hpp"
#include "core/nccl/world.hpp"
#include "core/run.hpp"
#include "core/verify.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"
#include "matmul/rung.hpp"
#include "pplab/device.hpp"
#include "pplab/pplab.hpp"
#include "reduce/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

detail::executor& gpus() { return detail::executor_for(backend::nccl); }

class Nccl : public ::testing::Test {
protected:
  void SetUp() override {
    if (!available(backend::nccl)) GTEST_SKIP() << gpus().why_absent();
  }
};

// The cuda backend, run once the nccl backend has started, leaves each GPU's stream-ordered pool
// keeping all of its freed memory, as the nccl backend set it: a lower threshold on one GPU
// handed a rung's scratch back to the driver at every sync there, and every call mapped it again
// (1.1 ms a call for the 2^20-bin histogram's 544 MiB, on GPU 0 alone). First of the fixture's
// tests, so that the nccl backend starts before this program's first cuda call.
TEST_F(Nccl, TheCudaBackendLeavesEachGpusPoolKeepingItsMemory) {
  const std::vector<detail::nccl::member>& ms = detail::nccl::members();  // the backend starts
  const std::vector<float> x(std::size_t(1) << 20, 0.5f);
  EXPECT_EQ(reduce(cuda, std::span<const float>(x), sum), 0.5f * float(x.size()));
  for (const detail::nccl::member& m : ms) {
    cudaMemPool_t pool;
    std::uint64_t keep = 0;
    ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool, m.device), cudaSuccess);
    ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), cudaSuccess);
    EXPECT_EQ(keep, std::numeric_limits<std::uint64_t>::max()) << "GPU " << m.device;
  }
}

// A job where a rank has no GPU of its own (more ranks on a host than GPUs, or none) refuses the
// backend on every rank: a rank that went on alone would wait in NCCL's set-up forever.
TEST(NcclJob, EveryRankOfAJobGetsTheSameVerdict) {
  if (!available(backend::mpi) || detail::executor_for(backend::mpi).ranks() < 2)
    GTEST_SKIP() << "not a job of processes (mpirun -n 2 tests it)";
  const int usable = detail::nccl::why_absent().empty() ? 1 : 0;
  int rank0 = usable;
  detail::executor_for(backend::mpi).broadcast_from_root(&rank0, sizeof rank0);
  EXPECT_EQ(usable, rank0) << detail::nccl::why_absent();
}

// One seed for the whole job: rank 0's.
std::uint64_t job_seed() {
  std::uint64_t s = fresh_seed();
  gpus().broadcast_from_root(&s, sizeof s);
  return s;
}

// This process's GPUs' parts of an array of n elements, in device memory, freed at the end.
struct device_parts {
  std::vector<void*> memory;
  std::vector<device_part> parts;
  std::size_t local_n = 0;
  device_parts(dtype t, std::size_t n, detail::distribution d, std::uint64_t seed) {
    const std::size_t w = size_of(t);
    for (const detail::nccl::member& m : detail::nccl::members()) {
      const detail::part p = detail::part_of(n, m.rank, detail::nccl::world_size());
      std::vector<std::byte> host(p.count * w + 1);
      detail::generate(t, host.data(), p.count, d, seed, p.first);
      void* dev = nullptr;
      EXPECT_EQ(cudaSetDevice(m.device), cudaSuccess);
      EXPECT_EQ(cudaMalloc(&dev, p.count * w + 1), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(dev, host.data(), p.count * w, cudaMemcpyHostToDevice), cudaSuccess);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // a pageable copy may land later
      memory.push_back(dev);
      parts.push_back({dev, p.count});
      local_n += p.count;
    }
    cudaSetDevice(detail::nccl::members().front().device);
  }
  ~device_parts() {
    for (void* p : memory) cudaFree(p);
  }
};

std::vector<std::byte> whole_array(dtype t, std::size_t n, detail::distribution d,
                                   std::uint64_t seed) {
  std::vector<std::byte> all(n * size_of(t) + 1);
  detail::generate(t, all.data(), n, d, seed);
  return all;
}

TEST_F(Nccl, DevicePartsReduceAsSeqOnTheWholeArraySameBitsTwice) {
  const std::uint64_t seed = job_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto& seq = *detail::find<detail::reduce_rung>("reduce/seq/r01_sequential_loop");
  const std::size_t g = std::size_t(detail::nccl::world_size());
  for (dtype t : {dtype::u8, dtype::i32, dtype::i64, dtype::f32, dtype::f64})
    for (op o : {op::sum, op::product, op::min, op::max, op::mean})
      for (std::size_t n : {g - 1, g, std::size_t(1009), 1 + rng() % 300000}) {
        SCOPED_TRACE(std::string(name_of(t)) + " " + std::string(name_of(o)) +
                     " n=" + std::to_string(n));
        const auto d = is_float(t) ? detail::distribution::normal : detail::distribution::uniform;
        const std::vector<std::byte> all = whole_array(t, n, d, seed + n);
        const scalar want = detail::run_rung(seq, {t, o, n}, all.data());
        device_parts parts(t, n, d, seed + n);
        const scalar got = reduce_device_parts(t, parts.parts, o);
        double rel = 0, scale = 0;
        visit_dtype(t, [&](auto tag) {
          using T = decltype(tag);
          const T* x = reinterpret_cast<const T*>(all.data());
          for (std::size_t i = 0; i < n; ++i) scale += std::abs(double(x[i]));
          if (o == op::mean && n) scale /= double(n);
          if (o == op::product) scale = std::abs(want.to_double());
        });
        EXPECT_TRUE(detail::close_enough(got, want, scale, n, false, rel))
            << got.to_double() << " vs " << want.to_double() << " rel " << rel;
        const scalar again = reduce_device_parts(t, parts.parts, o);
        EXPECT_TRUE(again.k == got.k && again.u == got.u) << "not the same bits twice";
      }
}

// What nccl does not take yet (argmin, argmax, var, std and the nan ops of floats) is refused
// with a sentence, on device parts and on host data; a nan op of integers is its plain op there.
TEST_F(Nccl, OpsNotTakenYetAreRefusedAndNanOpsOfIntegersArePlain) {
  const std::uint64_t seed = job_seed();
  const std::size_t n = 1009;
  device_parts floats(dtype::f32, n, detail::distribution::normal, seed);
  const std::vector<std::byte> host =
      whole_array(dtype::f32, n, detail::distribution::normal, seed);
  for (op o : all_ops) {
    if (!is_arg(o) && !is_moments(o) && !skips_nan(o)) continue;
    SCOPED_TRACE(std::string(name_of(o)));
    expect_error(
        errc::unsupported, [&] { reduce_device_parts(dtype::f32, floats.parts, o); },
        "not on nccl yet");
    expect_error(
        errc::unsupported, [&] { reduce(backend::nccl, dtype::f32, host.data(), n, o); },
        "not on nccl yet");
  }
  device_parts ints(dtype::i32, n, detail::distribution::uniform, seed);
  EXPECT_EQ(reduce_device_parts(dtype::i32, ints.parts, op::nansum).i,
            reduce_device_parts(dtype::i32, ints.parts, op::sum).i);
  EXPECT_EQ(reduce_device_parts(dtype::i32, ints.parts, op::nanmax).i,
            reduce_device_parts(dtype::i32, ints.parts, op::max).i);
}

// Exact sums over the GPUs of one process (reduce/nccl/r04_exact_totals_to_host): one process's
// bits whatever the GPU count; hostile data (every exponent, cancelling pairs, subnormals).
TEST_F(Nccl, ExactSumsAreTheHostsBitsOnEveryGpuCount) {
  std::mt19937_64 rng(job_seed());
  std::normal_distribution<double> z;
  std::uniform_int_distribution<int> exponent(-140, 100);
  const std::size_t g = std::size_t(detail::nccl::world_size());
  for (std::size_t n : {std::size_t(1), g + 1, std::size_t(1009), 1 + rng() % 3000000}) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = i % 3 == 2 ? -x[i - 1] : std::ldexp(z(rng), i % 2 ? exponent(rng) : 0);
    if (n > 7) x[7] = std::numeric_limits<double>::denorm_min();
    const std::vector<float> xf(x.begin(), x.end());
    for (dtype t : {dtype::f32, dtype::f64}) {
      const void* d = t == dtype::f32 ? static_cast<const void*>(xf.data()) : x.data();
      SCOPED_TRACE(std::string(name_of(t)) + " n=" + std::to_string(n));
      if (gpus().ranks() > 1) {
        expect_error(
            errc::unsupported, [&] { sum_exact(backend::nccl, t, d, n); }, "job of processes");
        continue;
      }
      std::string ran;
      EXPECT_EQ(sum_exact(backend::nccl, t, d, n, {.rung = {}, .ran = &ran}),
                sum_exact(backend::seq, t, d, n));
      EXPECT_EQ(ran, "reduce/nccl/r04_exact_totals_to_host");
      EXPECT_EQ(mean_exact(backend::nccl, t, d, n), mean_exact(backend::seq, t, d, n));
    }
  }
}

TEST_F(Nccl, DevicePartsThatAreNotOnePerGpuAreRefused) {
  device_parts parts(dtype::f32, 1000, detail::distribution::uniform, 1);
  std::vector<device_part> fewer(parts.parts.begin(), parts.parts.end() - 1);
  EXPECT_THROW(reduce_device_parts(dtype::f32, fewer, op::sum), error);
  std::vector<float> host(1000);
  std::vector<device_part> on_host = parts.parts;
  on_host[0] = {host.data(), host.size()};
  EXPECT_THROW(reduce_device_parts(dtype::f32, on_host, op::sum), error);
  EXPECT_THROW(reduce_device_parts(dtype::f32, {}, op::mean), error);
}

// A job of one process per GPU: every rank passes its part of host data (the API), every rung
// answers the whole job's problem on every rank.
TEST_F(Nccl, JobOfProcessesEveryReduceAndHistogramRungAsSeq) {
  if (gpus().ranks() < 2)
    GTEST_SKIP() << "one process drives every GPU here (mpirun -n 2 tests the job)";
  const std::uint64_t seed = job_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int me = gpus().rank(), ranks = gpus().ranks();
  for (std::size_t n : {std::size_t(1), std::size_t(1009), 1 + rng() % 300000}) {
    for (dtype t : {dtype::i32, dtype::f32}) {
      const std::vector<std::byte> all = whole_array(t, n, detail::distribution::uniform, seed + n);
      const detail::part p = detail::part_of(n, me, ranks);
      const std::byte* mine = all.data() + p.first * size_of(t);
      for (const auto& r : detail::rungs_of<detail::reduce_rung>()) {
        if (r.info.where != backend::nccl) continue;
        for (op o : {op::sum, op::max, op::mean}) {
          const detail::reduce_problem whole{t, o, n}, local{t, o, p.count};
          if (!r.can_run(whole)) continue;
          SCOPED_TRACE(std::string(r.info.id) + " " + std::string(name_of(t)) + " " +
                       std::string(name_of(o)) + " n=" + std::to_string(n));
          const scalar want =
              detail::run_rung(*detail::find<detail::reduce_rung>("reduce/seq/r01_sequential_loop"),
                               whole, all.data());
          const scalar got = detail::run_rung(r, local, mine);
          double rel = 0;
          EXPECT_TRUE(detail::close_enough(got, want, double(n), n, false, rel))
              << got.to_double() << " vs " << want.to_double();
        }
      }
      detail::histogram_problem whole{t, n, 100, 0.0, t == dtype::f32 ? 1.0 : 1e9, false, false};
      std::vector<std::uint64_t> want(detail::slots(whole)), got(want.size());
      detail::run_rung(*detail::find<detail::histogram_rung>("histogram/seq/h01_sequential"), whole,
                       all.data(), want.data());
      detail::histogram_problem local = whole;
      local.n = p.count;
      for (const auto& r : detail::rungs_of<detail::histogram_rung>()) {
        if (r.info.where != backend::nccl || !r.can_run(whole)) continue;
        SCOPED_TRACE(std::string(r.info.id) + " n=" + std::to_string(n));
        std::fill(got.begin(), got.end(), 0xabab);
        detail::run_rung(r, local, mine, got.data());
        EXPECT_EQ(got, want);
      }
      // The rungs that read the other GPUs' memory are one process's: a job's cannot reach it.
      for (const char* id :
           {"histogram/nccl/h03_shares_added_from_peers", "histogram/nccl/h04_added_on_first_gpu"})
        EXPECT_FALSE(detail::find<detail::histogram_rung>(id)->can_run(whole)) << id;
      EXPECT_FALSE(detail::find<detail::reduce_rung>("reduce/nccl/r05_joined_on_first_gpu")
                       ->can_run({t, op::sum, n}));
      // The API: the same answer on every rank.
      const scalar api = pplab::reduce(backend::nccl, t, mine, p.count, op::sum);
      const scalar sum =
          detail::run_rung(*detail::find<detail::reduce_rung>("reduce/seq/r01_sequential_loop"),
                           {t, op::sum, n}, all.data());
      double rel = 0;
      EXPECT_TRUE(detail::close_enough(api, sum, double(n), n, false, rel));
    }
  }
}

// Matmul in a job: each process passes its blocks (mpi_matmul_blocks, the mpi backend's layout);
// its block of C is held against the seq product, through the API and every rung that runs here.
TEST_F(Nccl, JobOfProcessesMatmulBlocksAsSeq) {
  if (gpus().ranks() < 2)
    GTEST_SKIP() << "one process drives every GPU here (mpirun -n 2 tests the job)";
  for_each_block_case([&](const block_case& c) {
    SCOPED_TRACE(c.name());
    std::vector<std::byte> cb = c.fresh_c();
    matmul(backend::nccl, c.t, c.p.m, c.p.n, c.p.k, c.alpha, c.a.data(), c.lda, c.b.data(), c.ldb,
           c.beta, cb.data(), c.ldc);
    c.check(cb);
    int ran = 0;
    for (const auto& r : detail::rungs_of<detail::matmul_rung>()) {
      if (r.info.where != backend::nccl || !r.can_run(c.p)) continue;
      SCOPED_TRACE(r.info.id);
      ++ran;
      cb = c.fresh_c();
      detail::run_rung(r, {c.p, c.alpha, c.beta, c.a.data(), c.lda, c.b.data(), c.ldb, cb.data(),
                           c.ldc, nullptr, nullptr});
      c.check(cb);
    }
    EXPECT_GE(ran, 1) << "no nccl matmul rung runs in a job";
  });
}

// Histograms of device parts: the counts of the whole job's array, as seq's on the whole array,
// with a given range and with the range inferred from the parts (the job's min and max).
TEST_F(Nccl, DevicePartsHistogramAsSeqOnTheWholeArray) {
  const std::uint64_t seed = job_seed();
  std::mt19937_64 rng(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::size_t g = std::size_t(detail::nccl::world_size());
  for (dtype t : {dtype::u8, dtype::i32, dtype::f32, dtype::f64})
    for (std::size_t n : {g - 1, g, std::size_t(1009), 1 + rng() % 300000})
      for (bool inferred : {false, true}) {
        SCOPED_TRACE(std::string(name_of(t)) + " n=" + std::to_string(n) +
                     (inferred ? " range inferred" : " range given"));
        const auto d = is_float(t) ? detail::distribution::normal : detail::distribution::uniform;
        const std::vector<std::byte> all = whole_array(t, n, d, seed + n);
        histogram_options o;
        o.bins = 1 + rng() % 3000;
        if (!inferred) o.lo = -2.0, o.hi = t == dtype::u8 ? 200.0 : 3.0;
        device_parts parts(t, n, d, seed + n);
        if (inferred && n == 0) continue;
        const histogram_result want = histogram(backend::seq, t, all.data(), n, o);
        const histogram_result got = histogram_device_parts(t, parts.parts, o);
        EXPECT_EQ(got.counts, want.counts);
        EXPECT_EQ(got.lo, want.lo);
        EXPECT_EQ(got.hi, want.hi);
        EXPECT_EQ(got.underflow, want.underflow);
        EXPECT_EQ(got.overflow, want.overflow);
        EXPECT_EQ(got.nan, want.nan);
        EXPECT_EQ(got.total(), n);
      }
  device_parts parts(dtype::f32, 1000, detail::distribution::uniform, 1);
  std::vector<device_part> fewer(parts.parts.begin(), parts.parts.end() - 1);
  EXPECT_THROW(histogram_device_parts(dtype::f32, fewer), error);
  std::vector<float> host(1000);
  std::vector<device_part> on_host = parts.parts;
  on_host[0] = {host.data(), host.size()};
  EXPECT_THROW(histogram_device_parts(dtype::f32, on_host), error);
  // The typed entry point.
  std::vector<device_span<float>> spans;
  for (const device_part& p : parts.parts)
    spans.push_back({static_cast<const float*>(p.data), p.size});
  histogram_options o;
  o.bins = 10, o.lo = 0.0, o.hi = 1.0;
  EXPECT_EQ(histogram(nccl, std::span<const device_span<float>>(spans), o).total(), 1000u);
}

}  // namespace
}  // namespace pplab::test
