// The GPU side that the per-rung bodies do not reach: data already on the device (no copies),
// user operators on the GPU (the 3-D point farthest from the origin), and inputs past 2^31
// elements handed straight to every rung. Skipped with the reason when no device answers.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "convolution/rung.hpp"
#include "core/cuda/check.cuh"
#include "core/device.hpp"
#include "core/executor.hpp"
#include "core/registry.hpp"
#include "core/run.hpp"
#include "core/verify.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"
#include "matmul/rung.hpp"
#include "pplab/cuda/reduce.cuh"
#include "pplab/pplab.hpp"
#include "reduce/rung.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

#define SKIP_WITHOUT_GPU()                                                                         \
  if (!available(backend::cuda))                                                                   \
  GTEST_SKIP() << "no CUDA device here: " << detail::executor_for(backend::cuda).why_absent()

detail::executor& dev() { return detail::executor_for(backend::cuda); }

bool sanitizer_run() { return std::getenv("PPLAB_SANITIZER") != nullptr; }

TEST(CudaApi, DeviceResidentDataIsReducedWhereItIs) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000003)}) {
    std::vector<float> x(n);
    for (float& v : x) v = float(rng() % 1000) / 8;
    detail::buffer d(dev(), n * sizeof(float) + 16);
    dev().copy_in(d.get(), x.data(), n * sizeof(float));
    const device_span<float> span{static_cast<const float*>(d.get()), n};
    EXPECT_EQ(reduce(cuda, span, sum), reduce(seq, x, sum)) << n;  // exact: multiples of 1/8
    EXPECT_EQ(reduce(cuda, span, max), reduce(seq, x, max)) << n;
  }
  std::vector<float> host(10, 1.0f);
  EXPECT_THROW(reduce(cuda, device_span<float>{host.data(), host.size()}, sum), error);
}

// Rows of device data reduced each on its own (pplab.sum(x, axis=-1) on GPU arrays): every op,
// floats (a NaN in the first row) and signed and unsigned integers, rows a stride apart whose
// padding is never read, short and long rows; each answer in its type and equal to the host's
// reduce_rows (integers exactly, floats within the sum tolerance: another order of additions);
// and in NumPy's types (answer_types::numpy), each the wide answer converted.
TEST(CudaApi, RowsOfDeviceDataAreReducedEachOnItsOwn) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<double> z;
  struct shape {
    std::size_t rows, cols, ld;
  };
  // Short rows (a warp each), few long rows (a block each), many long rows (a warp each again:
  // more rows than the GPU holds warps), one-element and empty rows.
  for (const shape& g : {shape{301, 77, 80}, shape{3, 100003, 100005}, shape{12000, 4099, 4101},
                         shape{5000, 1, 3}, shape{2, 0, 4}}) {
    SCOPED_TRACE(std::to_string(g.rows) + " x " + std::to_string(g.cols));
    std::vector<float> f(g.rows * g.ld, std::nanf(""));  // the padding is never read
    std::vector<std::int16_t> i(g.rows * g.ld, 1 << 14);
    std::vector<std::uint32_t> u(g.rows * g.ld, 7);
    for (std::size_t y = 0; y < g.rows; ++y)
      for (std::size_t x = 0; x < g.cols; ++x) {
        const double v = z(rng);
        f[y * g.ld + x] = float(v), i[y * g.ld + x] = std::int16_t(v * 1000);
        u[y * g.ld + x] = std::uint32_t(std::fabs(v) * 1e9);
      }
    if (g.cols > 1) f[g.cols / 2] = std::nanf("");  // row 0 answers NaN for every op, as the host
    const auto check = [&](dtype t, const void* host, std::size_t elem) {
      detail::buffer d(dev(), std::max<std::size_t>(host ? g.rows * g.ld * elem : 0, 16));
      dev().copy_in(d.get(), host, g.rows * g.ld * elem);
      for (op o : {op::sum, op::product, op::min, op::max, op::mean, op::count_nonzero}) {
        if (g.cols == 0 && o != op::sum && o != op::product && o != op::count_nonzero) continue;
        std::vector<scalar> want(g.rows);
        reduce_rows(backend::seq, t, host, g.rows, g.cols, g.ld, o, want.data());
        detail::buffer answers(dev(), g.rows * 8);
        reduce_rows_device(t, d.get(), g.rows, g.cols, g.ld, o, answers.get());
        std::vector<std::uint64_t> got(g.rows);
        dev().copy_out(got.data(), answers.get(), g.rows * 8);
        // The host array on cuda: copied in and the same kernel run, its answers bit for bit.
        std::vector<scalar> staged(g.rows);
        reduce_rows(backend::cuda, t, host, g.rows, g.cols, g.ld, o, staged.data());
        for (std::size_t y = 0; y < g.rows; ++y) {
          const scalar w = want[y];
          ASSERT_EQ(staged[y].k, w.k) << name_of(t) << " " << name_of(o) << " row " << y;
          ASSERT_EQ(staged[y].u, got[y]) << name_of(t) << " " << name_of(o) << " row " << y;
          if (w.k == scalar::kind::f64) {
            double v;
            std::memcpy(&v, &got[y], 8);
            const double tol = 1e-12 * std::max(1.0, std::fabs(w.f)) * double(g.cols);
            ASSERT_TRUE(std::fabs(v - w.f) <= tol || (v != v && w.f != w.f))
                << name_of(t) << " " << name_of(o) << " row " << y << ": " << v << " against "
                << w.f;
          } else {
            ASSERT_EQ(got[y], w.u) << name_of(t) << " " << name_of(o) << " row " << y;
          }
        }
        // NumPy's types: float data's answers and integer min and max in the data's type, each
        // the wide answer converted once.
        if (o == op::count_nonzero || (t != dtype::f32 && o != op::min && o != op::max)) continue;
        detail::buffer narrow(dev(), std::max<std::size_t>(g.rows * elem, 16));
        reduce_rows_device(t, d.get(), g.rows, g.cols, g.ld, o, narrow.get(), answer_types::numpy);
        std::vector<unsigned char> bytes(g.rows * elem);
        dev().copy_out(bytes.data(), narrow.get(), g.rows * elem);
        for (std::size_t y = 0; y < g.rows; ++y) {
          const unsigned char* at = bytes.data() + y * elem;
          if (t == dtype::f32) {
            float v;
            double wide;
            std::memcpy(&v, at, 4);
            std::memcpy(&wide, &got[y], 8);
            ASSERT_TRUE(v == float(wide) || (v != v && wide != wide))
                << name_of(o) << " row " << y << ": " << v << " against " << wide;
          } else if (t == dtype::i16) {
            std::int16_t v;
            std::memcpy(&v, at, 2);
            ASSERT_EQ(v, std::int16_t(std::int64_t(got[y]))) << name_of(o) << " row " << y;
          } else {
            std::uint32_t v;
            std::memcpy(&v, at, 4);
            ASSERT_EQ(v, std::uint32_t(got[y])) << name_of(o) << " row " << y;
          }
        }
      }
    };
    check(dtype::f32, f.data(), 4);
    check(dtype::i16, i.data(), 2);
    check(dtype::u32, u.data(), 4);
  }
  detail::buffer out(dev(), 64);
  std::vector<float> host(10, 1.0f);
  expect_error(
      errc::invalid_argument,
      [&] { reduce_rows_device(dtype::f32, host.data(), 2, 5, 5, op::sum, out.get()); },
      "not device memory");
  expect_error(
      errc::invalid_argument,
      [&] { reduce_rows_device(dtype::f32, out.get(), 2, 5, 4, op::sum, out.get()); },
      "row stride");
}

// A host array's axis reduced on cuda (the array copied in, reduce_axis_device's answers copied
// back): each answer seq's, of its kind; integers exactly, floats within the sum tolerance
// (another order of additions); a column count that no tile of 32 divides, one column, an
// empty axis; rows cut into chunks (few tiles) and not (576 tiles fill an H200's 528 resident
// blocks: one launch, 70 rows no multiple of the 16 row groups' 8 loads).
TEST(CudaApi, HostArraysAxesAreReducedOnTheGpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<double> z;
  for (const auto& [outer, rows, cols] : {std::array<std::size_t, 3>{3, 1001, 37},
                                          {2, 77, 1},
                                          {1, 5, 4099},
                                          {4, 0, 33},
                                          {64, 70, 257}}) {
    std::vector<double> f(outer * rows * cols);
    std::vector<std::int32_t> i(f.size());
    for (std::size_t k = 0; k < f.size(); ++k)
      f[k] = 1e3 + z(rng), i[k] = std::int32_t(z(rng) * 1e6);
    if (!f.empty()) f[f.size() / 2] = std::nan("");
    for (op o : {op::sum, op::max, op::mean, op::var, op::argmax, op::count_nonzero}) {
      if (rows == 0 && o != op::sum && o != op::count_nonzero) continue;
      for (const auto& [t, data] :
           {std::pair<dtype, const void*>{dtype::f64, f.data()}, {dtype::i32, i.data()}}) {
        SCOPED_TRACE(std::string(name_of(t)) + " " + std::string(name_of(o)) + " " +
                     std::to_string(outer) + " x " + std::to_string(rows) + " x " +
                     std::to_string(cols));
        std::vector<scalar> want(outer * cols), got(outer * cols);
        reduce_axis(backend::seq, t, data, outer, rows, cols, o, want.data());
        reduce_axis(backend::cuda, t, data, outer, rows, cols, o, got.data());
        for (std::size_t k = 0; k < want.size(); ++k) {
          ASSERT_EQ(got[k].k, want[k].k) << k;
          if (want[k].k != scalar::kind::f64) {
            ASSERT_EQ(got[k].u, want[k].u) << k;
            continue;
          }
          const double tol = 1e-12 * std::max(1.0, std::fabs(want[k].f)) * double(rows);
          ASSERT_TRUE(std::fabs(got[k].f - want[k].f) <= tol ||
                      (got[k].f != got[k].f && want[k].f != want[k].f))
              << k << ": " << got[k].f << " against " << want[k].f;
        }
      }
    }
  }
}

TEST(CudaApi, DeviceResidentDataIsCountedWhereItIs) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000003)}) {
    std::vector<float> x(n);
    for (float& v : x) v = float(rng() % 1000) / 8 - 20;
    if (n > 1) x[n / 2] = std::numeric_limits<float>::quiet_NaN();
    // One float past the start of the buffer: data not 16-byte aligned.
    detail::buffer d(dev(), n * sizeof(float) + 16);
    float* at = d.as<float>() + 1;
    dev().copy_in(at, x.data(), n * sizeof(float));
    const device_span<float> span{at, n};
    histogram_options given;
    given.bins = 777, given.lo = 0.0, given.hi = 100.0;
    const histogram_result got = histogram(cuda, span, given), want = histogram(seq, x, given);
    EXPECT_EQ(got.counts, want.counts) << n;
    {  // the counts written into device memory, left there: the same slots
      detail::buffer slots(dev(), (777 + 3) * 8);
      const histogram_result meta =
          histogram_device_into(dtype::f32, at, n, slots.as<std::uint64_t>(), 777 + 3, given);
      std::vector<std::uint64_t> back(777 + 3);
      dev().copy_out(back.data(), slots.get(), back.size() * 8);
      EXPECT_TRUE(meta.counts.empty());
      EXPECT_EQ(meta.bins(), 777u);
      EXPECT_EQ(meta.edge(777), 100.0);
      EXPECT_TRUE(std::equal(want.counts.begin(), want.counts.end(), back.begin())) << n;
      EXPECT_EQ(back[777], want.underflow);
      EXPECT_EQ(back[778], want.overflow);
      EXPECT_EQ(back[779], want.nan);
      EXPECT_THROW(histogram_device_into(dtype::f32, at, n, slots.as<std::uint64_t>(), 777, given),
                   error);  // one slot short
    }
    EXPECT_EQ(got.underflow, want.underflow) << n;
    EXPECT_EQ(got.overflow, want.overflow) << n;
    EXPECT_EQ(got.nan, want.nan) << n;
    if (n > 1) {  // a range inferred from the data, found on the GPU: refused with a NaN in it
      EXPECT_THROW(histogram(cuda, span), error);
      x[n / 2] = 1.5f;
      dev().copy_in(at, x.data(), n * sizeof(float));
    }
    const histogram_result inferred = histogram(cuda, span), seq_inferred = histogram(seq, x);
    EXPECT_EQ(inferred.counts, seq_inferred.counts) << n;
    EXPECT_EQ(inferred.lo, seq_inferred.lo) << n;
    EXPECT_EQ(inferred.hi, seq_inferred.hi) << n;
  }
  std::vector<float> host(10, 1.0f);
  EXPECT_THROW(histogram(cuda, device_span<float>{host.data(), host.size()}), error);
}

// Matrices and images already on the GPU stay there: the same bits as the host data sent
// through the cuda backend (the same rung on the same inputs), views with padded rows included;
// host pointers refused.
TEST(CudaApi, DeviceResidentMatricesAndImagesStayThere) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  const std::size_t m = 67, k = 45, n = 131, ld = n + 3;
  std::vector<float> a(m * k), b(k * n), want(m * ld, 0.0f), got(m * ld, -1.0f);
  for (float& v : a) v = float(rng() % 17) - 8;
  for (float& v : b) v = float(rng() % 13) - 6;
  matmul(backend::cuda, dtype::f32, m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, want.data(), ld);
  detail::buffer da(dev(), a.size() * 4), db(dev(), b.size() * 4), dc(dev(), got.size() * 4);
  dev().copy_in(da.get(), a.data(), a.size() * 4);
  dev().copy_in(db.get(), b.data(), b.size() * 4);
  dev().copy_in(dc.get(), got.data(), got.size() * 4);
  matmul_device(dtype::f32, m, n, k, 1.0, da.get(), k, db.get(), n, 0.0, dc.get(), ld);
  dev().copy_out(got.data(), dc.get(), got.size() * 4);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < ld; ++j)
      ASSERT_EQ(got[i * ld + j], j < n ? want[i * ld + j] : -1.0f) << i << " " << j;
  EXPECT_THROW(matmul_device(dtype::f32, m, n, k, 1.0, a.data(), k, db.get(), n, 0.0, dc.get(), ld),
               error);

  const std::size_t rows = 97, cols = 203;
  std::vector<float> image(rows * cols), host_out(rows * cols), dev_out(rows * cols);
  for (float& v : image) v = float(rng() % 1000) / 64;
  std::vector<double> mask(5 * 7);
  for (double& w : mask) w = double(rng() % 9) / 4 - 1;
  filter_options o;
  o.mode = boundary::wrap;
  correlate(backend::cuda, dtype::f32, image.data(), rows, cols, 0, mask.data(), 5, 7,
            host_out.data(), 0, o);
  detail::buffer di(dev(), image.size() * 4), dout(dev(), image.size() * 4);
  dev().copy_in(di.get(), image.data(), image.size() * 4);
  correlate_device(dtype::f32, di.get(), rows, cols, cols, mask.data(), 5, 7, dout.get(), cols, o);
  dev().copy_out(dev_out.data(), dout.get(), dev_out.size() * 4);
  EXPECT_EQ(dev_out, host_out);
  EXPECT_THROW(correlate_device(dtype::f32, image.data(), rows, cols, cols, mask.data(), 5, 7,
                                dout.get(), cols, o),
               error);
}

// correlate1d into integers in SciPy's order on the GPU: bit for bit the host's, along each axis
// of a volume, in every mode, for each of SciPy's orders (symmetric, antisymmetric, neither, a
// mean); a float64 input into int16; the input neither the output's type nor float64, host
// memory and an overlap refused.
TEST(CudaApi, PassesInSciPysOrderAreTheHosts) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  struct weights {
    std::vector<double> w;
    long origin;
    double divisor;
  };
  std::vector<weights> cases = {{{0.1, 0.8, 0.1}, 0, 1},
                                {{-0.5, 0, 0.5}, 1, 1},
                                {{0.2, 0.3, 0.1, 0.4}, -1, 1},
                                {{1, 1, 1, 1, 1}, 2, 5},
                                {std::vector<double>(33), 3, 1}};
  for (int t = 0; t < 33; ++t)  // a Gaussian of sigma 4: a halo longer than a tile of lines
    cases.back().w[t] = std::exp(-(t - 16) * (t - 16) / 32.0);
  // Lines contiguous (the last axis), 32 or more apart, and fewer (the thread-an-answer kernel);
  // the tiles of 1024 positions of a line, or of 32 positions x 32 lines, cut at both ends.
  const std::size_t volumes[3][3] = {{7, 45, 70}, {3, 9, 1100}, {1100, 9, 5}};
  for (const auto& dims : volumes) {
    const std::size_t count = dims[0] * dims[1] * dims[2];
    std::vector<std::uint8_t> x(count);
    const std::uint8_t levels[4] = {3, 7, 31, 43};  // flat sums decided by the order of the adds
    for (auto& v : x) v = levels[rng() % 4];
    std::vector<double> wide(count);
    for (auto& v : wide) v = double(rng() % 2000) / 7 - 140;
    detail::buffer din(dev(), count), dout(dev(), count), dwide(dev(), count * 8),
        dnarrow(dev(), count * 2);
    dev().copy_in(din.get(), x.data(), count);
    dev().copy_in(dwide.get(), wide.data(), count * 8);
    std::vector<std::uint8_t> want(count), got(count);
    std::vector<std::int16_t> want16(count), got16(count);
    for (boundary mode : {boundary::reflect, boundary::constant, boundary::nearest,
                          boundary::mirror, boundary::wrap})
      for (const weights& c : cases)
        for (int axis = 0; axis < 3; ++axis) {
          std::size_t outer = 1, inner = 1;
          for (int d = 0; d < axis; ++d) outer *= dims[d];
          for (int d = axis + 1; d < 3; ++d) inner *= dims[d];
          correlate1d_in_scipys_order(backend::cpu, dtype::u8, x.data(), dtype::u8, want.data(),
                                      outer, dims[axis], inner, c.w, c.origin, mode, 2.0,
                                      c.divisor);
          correlate1d_in_scipys_order_device(dtype::u8, din.get(), dtype::u8, dout.get(), outer,
                                             dims[axis], inner, c.w, c.origin, mode, 2.0,
                                             c.divisor);
          dev().copy_out(got.data(), dout.get(), count);
          ASSERT_EQ(got, want) << name_of(mode) << " axis " << axis << " of " << dims[0] << "x"
                               << dims[1] << "x" << dims[2];
          correlate1d_in_scipys_order(backend::cpu, dtype::f64, wide.data(), dtype::i16,
                                      want16.data(), outer, dims[axis], inner, c.w, c.origin, mode,
                                      -1.5, c.divisor);
          correlate1d_in_scipys_order_device(dtype::f64, dwide.get(), dtype::i16, dnarrow.get(),
                                             outer, dims[axis], inner, c.w, c.origin, mode, -1.5,
                                             c.divisor);
          dev().copy_out(got16.data(), dnarrow.get(), count * 2);
          ASSERT_EQ(got16, want16) << name_of(mode) << " axis " << axis;
        }
  }
  const std::size_t count = 7 * 45 * 70;
  std::vector<std::uint8_t> x(count);
  detail::buffer din(dev(), count), dout(dev(), count), dnarrow(dev(), count * 2);
  const std::vector<double> three = {1, 2, 1};
  EXPECT_THROW(correlate1d_in_scipys_order_device(dtype::i16, dnarrow.get(), dtype::u8, dout.get(),
                                                  1, count, 1, three, 0, boundary::reflect, 0.0),
               error);
  EXPECT_THROW(correlate1d_in_scipys_order_device(dtype::u8, x.data(), dtype::u8, dout.get(), 1,
                                                  count, 1, three, 0, boundary::reflect, 0.0),
               error);
  EXPECT_THROW(correlate1d_in_scipys_order_device(dtype::u8, din.get(), dtype::u8, din.get(), 1,
                                                  count, 1, three, 0, boundary::reflect, 0.0),
               error);
}

// SciPy's correlate of any rank on the GPU: the host's answers bit for bit (float64 and float32
// out, integers as SciPy stores them), ranks 1 to 4, windows past the edges, zero weights left
// out, every mode; then the calls it refuses.
TEST(CudaApi, SciPysCorrelateIsTheHosts) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  struct problem {
    std::vector<std::size_t> shape, wshape;
    std::vector<long> origins;
  };
  const std::vector<problem> problems = {{{1000}, {4}, {-2}},
                                         {{3}, {7}, {3}},
                                         {{37, 301}, {5, 5}, {0, 0}},
                                         {{9, 13}, {2, 6}, {-1, 2}},
                                         {{5, 33, 70}, {3, 2, 4}, {1, 0, -1}},
                                         {{2, 3, 4, 5}, {2, 3, 1, 2}, {0, 1, 0, -1}}};
  for (const problem& pr : problems) {
    std::size_t count = 1, taps = 1;
    for (std::size_t v : pr.shape) count *= v;
    for (std::size_t v : pr.wshape) taps *= v;
    std::vector<double> x(count), w(taps);
    for (auto& v : x) v = double(rng() % 4000) / 7 - 200;
    for (std::size_t t = 0; t < taps; ++t)
      w[t] = t % 4 == 1 ? 0.0 : double(std::int64_t(rng() % 2001) - 1000) / 997;
    detail::buffer din(dev(), count * 8), dout(dev(), count * 8);
    dev().copy_in(din.get(), x.data(), count * 8);
    for (boundary mode : {boundary::reflect, boundary::constant, boundary::nearest,
                          boundary::mirror, boundary::wrap}) {
      std::vector<double> want(count), got(count);
      correlate_in_scipys_order(backend::cpu, dtype::f64, x.data(), dtype::f64, want.data(),
                                pr.shape, w, pr.wshape, pr.origins, mode, 2.5);
      correlate_in_scipys_order_device(dtype::f64, din.get(), dtype::f64, dout.get(), pr.shape, w,
                                       pr.wshape, pr.origins, mode, 2.5);
      dev().copy_out(got.data(), dout.get(), count * 8);
      ASSERT_EQ(0, std::memcmp(got.data(), want.data(), count * 8))
          << name_of(mode) << " rank " << pr.shape.size();
      std::vector<std::uint8_t> want8(count), got8(count);
      correlate_in_scipys_order(backend::cpu, dtype::f64, x.data(), dtype::u8, want8.data(),
                                pr.shape, w, pr.wshape, pr.origins, mode, 2.5);
      correlate_in_scipys_order_device(dtype::f64, din.get(), dtype::u8, dout.get(), pr.shape, w,
                                       pr.wshape, pr.origins, mode, 2.5);
      dev().copy_out(got8.data(), dout.get(), count);
      ASSERT_EQ(got8, want8) << name_of(mode) << " rank " << pr.shape.size();
    }
  }
  const std::vector<std::size_t> shape = {4, 4}, three = {3, 3},
                                 nine = std::vector<std::size_t>(9, 1);
  const std::vector<double> w(9, 1.0), one = {1.0};
  const std::vector<long> zero = {0, 0}, zeros(9, 0);
  detail::buffer a(dev(), 16 * 8), b(dev(), 16 * 8);
  std::vector<double> host(16);
  EXPECT_THROW(correlate_in_scipys_order_device(dtype::i16, a.get(), dtype::u8, b.get(), shape, w,
                                                three, zero, boundary::reflect, 0.0),
               error);  // neither the output's type nor float64
  EXPECT_THROW(correlate_in_scipys_order_device(dtype::f64, host.data(), dtype::f64, b.get(), shape,
                                                w, three, zero, boundary::reflect, 0.0),
               error);  // host memory
  EXPECT_THROW(correlate_in_scipys_order_device(dtype::f64, a.get(), dtype::f64, a.get(), shape, w,
                                                three, zero, boundary::reflect, 0.0),
               error);  // overlap
  EXPECT_THROW(correlate_in_scipys_order_device(dtype::f64, a.get(), dtype::f64, b.get(), nine, one,
                                                nine, zeros, boundary::reflect, 0.0),
               error);  // 9 axes
}

// A stack of images on the GPU (filter_options::planes) in one launch: c14's 1-D pass, or c07's
// outer products (a 3-D filter's last two axes; 3 x 3 too, where one image runs c06). Each plane
// as it is alone through the same rung, bit for bit, a larger stack than the grid's z takes in
// one launch included; the planes' outputs apart, what lies between them untouched; input
// planes apart too (the copy engine's map then cannot take the stack: c07's threads stage it).
TEST(CudaApi, DeviceResidentStacksOfPlanesAreEachPlaneAlone) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  struct stack {
    std::size_t planes, rows, cols, kh, kw, in_gap = 0;
  };
  for (const stack& s :
       {stack{5, 61, 37, 9, 1}, stack{3, 40, 1030, 1, 33}, stack{65537, 3, 2, 3, 1},
        stack{2, 9, 7, 255, 1}, stack{5, 61, 37, 3, 3}, stack{65537, 3, 2, 5, 5},
        stack{3, 272, 136, 11, 11}, stack{3, 272, 136, 11, 11, 4}, stack{4, 70, 96, 33, 33}}) {
    SCOPED_TRACE(std::to_string(s.planes) + " planes " + std::to_string(s.rows) + "x" +
                 std::to_string(s.cols) + " mask " + std::to_string(s.kh) + "x" +
                 std::to_string(s.kw) + " input gap " + std::to_string(s.in_gap));
    const bool square = s.kh == s.kw;  // an outer product: c07
    const std::string rung =
        square ? "convolution/cuda/c07_separable" : "convolution/cuda/c14_line_pass_pipelined";
    const std::size_t plane = s.rows * s.cols, gap = 3, plane_out = plane + gap,
                      plane_in = plane + s.in_gap;
    std::vector<float> image(s.planes * plane_in), got(s.planes * plane_out), want(got.size());
    for (float& v : image) v = float(rng() % 1000) / 64;
    std::vector<double> mask(s.kh * s.kw), col(s.kh), row(s.kw);
    for (double& w : col) w = double(rng() % 9) / 4 - 1;
    for (double& w : row) w = double(rng() % 9) / 4 - 1;
    col[0] = row[0] = 1;  // not all zero
    for (std::size_t i = 0; i < s.kh; ++i)
      for (std::size_t j = 0; j < s.kw; ++j) mask[i * s.kw + j] = col[i] * row[j];
    filter_options o;
    o.mode = boundary::reflect, o.planes = s.planes, o.plane_in = plane_in,
    o.plane_out = plane_out;
    detail::buffer di(dev(), image.size() * 4), dout(dev(), got.size() * 4);
    dev().copy_in(di.get(), image.data(), image.size() * 4);
    dev().fill(dout.get(), 0xff, got.size() * 4);
    std::string ran;
    correlate_device(dtype::f32, di.get(), s.rows, s.cols, s.cols, mask.data(), s.kh, s.kw,
                     dout.get(), s.cols, o, {"", &ran});
    EXPECT_EQ(ran, rung);
    dev().copy_out(got.data(), dout.get(), got.size() * 4);
    // Each plane alone through the same rung, a few of a large stack
    filter_options one;
    one.mode = o.mode;
    std::vector<float> alone(plane);
    for (std::size_t i = 0; i < s.planes; i += s.planes > 100 ? 4099 : 2) {
      for (std::size_t j = i; j < std::min(s.planes, i + 2); ++j) {
        correlate_device(dtype::f32, static_cast<float*>(di.get()) + j * plane_in, s.rows,
                         s.cols, s.cols, mask.data(), s.kh, s.kw, dout.get(), s.cols, one,
                         {rung});
        dev().copy_out(alone.data(), dout.get(), plane * 4);
        ASSERT_EQ(std::memcmp(alone.data(), got.data() + j * plane_out, plane * 4), 0) << j;
        for (std::size_t g = 0; g + 1 < s.planes && g < gap; ++g)
          ASSERT_TRUE(std::isnan(got[j * plane_out + plane + g])) << "between planes " << j;
      }
    }
  }
}

// A stack of products on the GPU (matmul_batched_device): each product's own answer, as the
// same product alone; B broadcast (a stride of 0) and C's matrices padded apart; a stack of
// matrix-vector products (the vector rungs) too; split_tf32 stacks through m14: whole tiles in
// one launch, odd shapes and A's matrices off 16 bytes product by product.
TEST(CudaApi, DeviceResidentStacksGiveEachProduct) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  struct shape {
    std::size_t m, n, k;
    bool split = false;
    std::size_t a_gap = 0;
  };
  for (const shape& s : {shape{67, 131, 45}, shape{300, 1, 77}, shape{1, 290, 77},
                         shape{128, 256, 64, true}, shape{67, 131, 45, true},
                         shape{128, 128, 32, true, 1}}) {
    const auto [m, n, k, split, a_gap] = s;
    SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                 (split ? " split_tf32" : "") + " A's gap " + std::to_string(a_gap));
    const std::size_t batch = 5, sa = m * k + a_gap, sc = m * n + 7;
    std::vector<float> a(batch * sa), b(k * n), want(batch * sc, -1.0f), got = want;
    for (float& v : a) v = float(rng() % 17) - 8;
    for (float& v : b) v = float(rng() % 13) - 6;
    detail::buffer da(dev(), a.size() * 4), db(dev(), b.size() * 4), dc(dev(), got.size() * 4);
    dev().copy_in(da.get(), a.data(), a.size() * 4);
    dev().copy_in(db.get(), b.data(), b.size() * 4);
    dev().copy_in(dc.get(), got.data(), got.size() * 4);
    for (std::size_t i = 0; i < batch; ++i)
      matmul(backend::seq, dtype::f32, m, n, k, 1.0, a.data() + i * sa, k, b.data(), n, 0.0,
             want.data() + i * sc, n);
    std::string ran;
    matmul_batched_device(dtype::f32, batch, m, n, k, 1.0, da.get(), k, sa, db.get(), n, 0, 0.0,
                          dc.get(), n, sc, {split ? "split_tf32" : "", &ran});
    dev().copy_out(got.data(), dc.get(), got.size() * 4);
    // Small integers: every order of the sums is exact, and TF32 holds each value whole
    EXPECT_EQ(got, want);
    if (split) EXPECT_EQ(ran, "matmul/cuda/m14_f32_split_tf32");
    else EXPECT_FALSE(ran.empty());
  }
}

// Every thread of the GPU busy until `cycles` have passed: the kernels queued behind it wait,
// while the copy engines go on.
__global__ void occupy(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// Spins until the host sets flags[0] (page-locked memory mapped into the device), or gives up
// after `ns` nanoseconds of the GPU's global timer and sets flags[1].
__global__ void wait_for_host(volatile int* flags, unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (!flags[0]) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > ns) {
      flags[1] = 1;
      return;
    }
  }
}

// Device calls in a stream_scope queue their work behind the caller's earlier work on that stream
// and return without waiting for it (their scratch is allocated in the stream's order): a kernel
// that waits for the host is still running when matmul_device (the policy's rung, and m12, which
// takes scratch), histogram_device_into and correlate_device return, and their answers are right
// once the host lets it go. The calls run once before, so that their kernels are loaded: the first
// launch of a kernel may wait for the whole device while its module loads (CUDA's lazy loading).
TEST(CudaApi, CallsOnACallersStreamDoNotWaitForItsEarlierWork) {
  SKIP_WITHOUT_GPU();
  if (sanitizer_run()) GTEST_SKIP() << "the sanitizers change when kernels launch and run";
  const std::size_t m = 67, k = 45, n = 131, bins = 50, count = 100003;
  std::vector<float> a(m * k), b(k * n), want(m * n), x(count);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(i % 17) - 8;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i % 13) - 6;
  for (std::size_t i = 0; i < count; ++i) x[i] = float(i % 1000) / 8;
  matmul(backend::seq, dtype::f32, m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, want.data(), n);
  histogram_options o;
  o.bins = bins, o.lo = 0.0, o.hi = 100.0;
  const histogram_result want_counts = histogram(seq, x, o);
  detail::buffer da(dev(), a.size() * 4), db(dev(), b.size() * 4), dx(dev(), count * 4);
  detail::buffer dc[2] = {detail::buffer(dev(), want.size() * 4),
                          detail::buffer(dev(), want.size() * 4)};
  detail::buffer slots(dev(), (bins + 3) * 8);
  dev().copy_in(da.get(), a.data(), a.size() * 4);
  dev().copy_in(db.get(), b.data(), b.size() * 4);
  dev().copy_in(dx.get(), x.data(), count * 4);
  // A as an image filtered by a 3 x 3 mask of one tap, 2 in the middle: 2 A, exactly
  const std::vector<double> twice = {0, 0, 0, 0, 2, 0, 0, 0, 0};
  detail::buffer dfilt(dev(), a.size() * 4);
  cudaStream_t st;
  PPLAB_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  const char* names[4] = {"matmul_device (the policy's rung)", "matmul_device (m12)",
                          "histogram_device_into", "correlate_device"};
  std::string ran[2];
  const auto calls = [&](cudaError_t(&after)[4]) {
    const stream_scope on(st);
    matmul_device(dtype::f32, m, n, k, 1.0, da.get(), k, db.get(), n, 0.0, dc[0].get(), n,
                  {"", &ran[0]});
    after[0] = cudaStreamQuery(st);
    matmul_device(dtype::f32, m, n, k, 1.0, da.get(), k, db.get(), n, 0.0, dc[1].get(), n,
                  {"m12_padded_whole_tiles", &ran[1]});
    after[1] = cudaStreamQuery(st);
    histogram_device_into(dtype::f32, dx.get(), count, slots.as<std::uint64_t>(), bins + 3, o);
    after[2] = cudaStreamQuery(st);
    correlate_device(dtype::f32, da.get(), m, k, k, twice.data(), 3, 3, dfilt.get(), k);
    after[3] = cudaStreamQuery(st);
  };
  cudaError_t first[4], held[4];
  calls(first);
  PPLAB_CUDA(cudaStreamSynchronize(st));
  for (const detail::buffer& c : dc) dev().fill(c.get(), 0xff, want.size() * 4);  // NaN
  dev().fill(slots.get(), 0xff, slots.size());
  dev().fill(dfilt.get(), 0xff, dfilt.size());
  dev().synchronize();

  int* flags = nullptr;
  PPLAB_CUDA(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped));
  flags[0] = flags[1] = 0;
  int* device_flags = nullptr;
  PPLAB_CUDA(cudaHostGetDevicePointer(&device_flags, flags, 0));
  wait_for_host<<<1, 1, 0, st>>>(device_flags, 20'000'000'000ull);  // 20 s at most
  PPLAB_CUDA_LAUNCHED();
  calls(held);
  static_cast<volatile int*>(flags)[0] = 1;
  PPLAB_CUDA(cudaStreamSynchronize(st));
  PPLAB_CUDA(cudaStreamDestroy(st));
  const int gave_up = static_cast<volatile int*>(flags)[1];
  PPLAB_CUDA(cudaFreeHost(flags));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(held[i], cudaErrorNotReady)
        << names[i] << " returned after the stream's earlier work had finished: it waited";
  EXPECT_EQ(gave_up, 0) << "the waiting kernel gave up: a call waited for it";
  EXPECT_EQ(ran[1], "matmul/cuda/m12_padded_whole_tiles");
  for (const detail::buffer& c : dc) {
    std::vector<float> got(want.size());
    dev().copy_out(got.data(), c.get(), got.size() * 4);
    EXPECT_EQ(got, want);  // small integers: exact in any order
  }
  std::vector<std::uint64_t> back(bins + 3);
  dev().copy_out(back.data(), slots.get(), back.size() * 8);
  EXPECT_TRUE(std::equal(want_counts.counts.begin(), want_counts.counts.end(), back.begin()));
  EXPECT_EQ(back[bins], want_counts.underflow);
  EXPECT_EQ(back[bins + 1], want_counts.overflow);
  EXPECT_EQ(back[bins + 2], want_counts.nan);
  std::vector<float> filtered(a.size());
  dev().copy_out(filtered.data(), dfilt.get(), filtered.size() * 4);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(filtered[i], 2 * a[i]) << i;
}

// Two host threads filter on their own streams with different masks while the GPU is busy: the
// first call's mask is copied to the constant bank at once (by a copy engine), its kernel waits
// for the GPU, and the second call's copy must not land in the bank before that kernel has read
// it (src/convolution/cuda/constant_mask.cuh orders them).
TEST(CudaApi, ConcurrentFiltersWithDifferentMasksEachReadTheirOwn) {
  SKIP_WITHOUT_GPU();
  const std::size_t rows = 256, cols = 256, n = rows * cols;
  std::vector<float> image(n);
  for (std::size_t i = 0; i < n; ++i) image[i] = float(i % 251);
  const std::vector<double> once = {0, 0, 0, 0, 1, 0, 0, 0, 0}, twice = {0, 0, 0, 0, 2, 0, 0, 0, 0};
  detail::buffer in(dev(), n * 4), out_a(dev(), n * 4), out_b(dev(), n * 4);
  dev().copy_in(in.get(), image.data(), n * 4);
  cudaStream_t busy, a, b;
  PPLAB_CUDA(cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking));
  PPLAB_CUDA(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  PPLAB_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  int sms = 0, clock_khz = 0;
  PPLAB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  PPLAB_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  occupy<<<sms * 2, 1024, 0, busy>>>(200LL * clock_khz);  // about 200 ms
  PPLAB_CUDA_LAUNCHED();
  std::thread first([&] {
    const stream_scope on(a);
    correlate_device(dtype::f32, in.get(), rows, cols, cols, once.data(), 3, 3, out_a.get(), cols);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the first call is enqueued
  {
    const stream_scope on(b);
    correlate_device(dtype::f32, in.get(), rows, cols, cols, twice.data(), 3, 3, out_b.get(), cols);
  }
  first.join();
  // Each call returns once queued on its caller's stream: the outputs read after both streams.
  PPLAB_CUDA(cudaStreamSynchronize(a));
  PPLAB_CUDA(cudaStreamSynchronize(b));
  std::vector<float> got_a(n), got_b(n);
  dev().copy_out(got_a.data(), out_a.get(), n * 4);
  dev().copy_out(got_b.data(), out_b.get(), n * 4);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(got_a[i], image[i]) << i;
    ASSERT_EQ(got_b[i], 2 * image[i]) << i;
  }
  for (cudaStream_t s : {busy, a, b}) PPLAB_CUDA(cudaStreamDestroy(s));
}

// A host image past slab_streaming_bytes goes through row slabs with their halos: the same bits
// as the image filtered where it lies on the device, in every mode (wrap and reflect read rows
// from far away into a slab's halo; constant stops at the image's edges), with row strides, for
// f32 and for u8 RGB to f32 and to u8, through the policy's rung and through c01 (whose mask
// goes into each slot's scratch).
TEST(CudaApi, LargeHostImagesAreFilteredInRowSlabs) {
  SKIP_WITHOUT_GPU();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> weight(-1, 1);
  std::vector<double> mask(7 * 5);
  for (double& m : mask) m = weight(rng);
  struct image_case {
    dtype type;
    std::size_t rows, cols, ld, channels;
    bool u8_out;
  };
  std::vector<image_case> images = {{dtype::f32, 1500, 8207, 8212, 1, false},
                                    {dtype::u8, 1201, 10007, 30030, 3, false},
                                    {dtype::u8, 1201, 10007, 30021, 3, true}};
  std::vector<boundary> modes = {boundary::reflect, boundary::constant, boundary::nearest,
                                 boundary::mirror, boundary::wrap};
  if (sanitizer_run()) images.resize(1), modes = {boundary::constant, boundary::wrap};
  for (const image_case& ic : images) {
    const std::size_t e = size_of(ic.type), eo = ic.type == dtype::u8 && ic.u8_out ? 1 : 4;
    const std::size_t width = ic.cols * ic.channels, packed_out = ic.rows * width * eo;
    ASSERT_GE(ic.rows * width * e, detail::slab_streaming_bytes);
    std::vector<unsigned char> image(ic.rows * ic.ld * e);
    if (ic.type == dtype::f32)
      for (std::size_t i = 0; i < image.size() / 4; ++i)
        reinterpret_cast<float*>(image.data())[i] = float(weight(rng) * 100);
    else
      for (unsigned char& b : image) b = (unsigned char)(rng() & 0xff);
    detail::buffer d_in(dev(), image.size()), d_out(dev(), packed_out);
    dev().copy_in(d_in.get(), image.data(), image.size());
    // Page-locked host memory is copied from and to directly, other memory through staging.
    struct way {
      std::string_view rung;
      bool locked;
    };
    for (const boundary mode : modes)
      for (const way w : {way{"", false}, way{"cuda/c01_naive_global", false}, way{"", true}}) {
        const std::string_view rung = w.rung;
        if ((!rung.empty() || w.locked) && (ic.type != dtype::f32 || mode != boundary::wrap))
          continue;
        const filter_options o{mode, 7.0, ic.channels, ic.u8_out};
        const std::size_t ld_out = width + 3;
        std::vector<unsigned char> got(ic.rows * ld_out * eo, 0xa5), want(packed_out);
        if (w.locked) {
          ASSERT_TRUE(dev().pin_host(image.data(), image.size()));
          ASSERT_TRUE(dev().pin_host(got.data(), got.size()));
        }
        correlate(cuda, ic.type, image.data(), ic.rows, ic.cols, ic.ld, mask.data(), 7, 5,
                  got.data(), ld_out, o, {rung});
        if (w.locked) dev().unpin_host(image.data()), dev().unpin_host(got.data());
        correlate_device(ic.type, d_in.get(), ic.rows, ic.cols, ic.ld, mask.data(), 7, 5,
                         d_out.get(), width, o, {rung});
        dev().copy_out(want.data(), d_out.get(), packed_out);
        for (std::size_t y = 0; y < ic.rows; ++y)
          ASSERT_EQ(
              std::memcmp(got.data() + y * ld_out * eo, want.data() + y * width * eo, width * eo),
              0)
              << name_of(ic.type) << " x" << ic.channels << " " << name_of(mode) << " " << rung
              << (w.locked ? " page-locked" : "") << ": row " << y << " of " << ic.rows;
      }
  }
}

// An image whose input and output together are larger than the GPU's free memory: the slabs
// need only a few of them at a time. The GPU is filled first, leaving 512 MiB.
TEST(CudaApi, HostImagesLargerThanTheFreeGpuMemoryAreFiltered) {
  SKIP_WITHOUT_GPU();
  if (sanitizer_run()) GTEST_SKIP() << "too large to run under compute-sanitizer";
  const std::size_t rows = 12289, cols = 12289, n = rows * cols, left = std::size_t(512) << 20;
  PPLAB_CUDA(cudaDeviceSynchronize());
  int device = 0;
  cudaMemPool_t pool;
  PPLAB_CUDA(cudaGetDevice(&device));
  PPLAB_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  PPLAB_CUDA(cudaMemPoolTrimTo(pool, 0));
  std::size_t free = 0, total = 0;
  PPLAB_CUDA(cudaMemGetInfo(&free, &total));
  ASSERT_GT(free, left);
  void* hog = nullptr;
  PPLAB_CUDA(cudaMalloc(&hog, free - left));
  std::vector<float> image(n), got(n, std::nanf(""));
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-1, 1);
  for (float& v : image) v = value(rng);
  const std::vector<double> mask = {1, -2, 1, 0.5, 4, 0.5, -1, 2, -1};
  EXPECT_LT(detail::free_device_bytes(), 2 * n * sizeof(float));
  std::string ran;
  correlate(cuda, dtype::f32, image.data(), rows, cols, 0, mask.data(), 3, 3, got.data(), 0,
            {boundary::wrap}, {"", &ran});
  PPLAB_CUDA(cudaFree(hog));
  const detail::convolution_problem p{dtype::f32, rows, cols, 3, 3, boundary::wrap, 0.0};
  std::vector<double> want(n), scale(n);
  detail::reference_correlation(p, image.data(), cols, mask.data(), want.data(), scale.data());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    wrong += !detail::output_close_to_reference(p, got[i], want[i], scale[i]);
  EXPECT_EQ(wrong, 0u) << "by " << ran;
}

// The mean of 64-bit integers sums in 128 bits on the GPU too, on the device and streamed.
TEST(CudaApi, MeansOf64BitIntegersDoNotWrap) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::int64_t> big(1000, std::int64_t(1) << 62);
  detail::buffer d(dev(), big.size() * 8);
  dev().copy_in(d.get(), big.data(), big.size() * 8);
  EXPECT_EQ(reduce(cuda, device_span<std::int64_t>{d.as<const std::int64_t>(), big.size()}, mean),
            4611686018427387904.0);
  EXPECT_EQ(reduce(cuda, big, mean), 4611686018427387904.0);
  const std::size_t n = (std::size_t(64) << 20) / 8 * 2 + 5;  // three chunks of the host path
  const std::vector<std::uint64_t> huge(n, ~std::uint64_t(0) - 1);
  EXPECT_EQ(reduce(cuda, huge, mean), double(~std::uint64_t(0) - 1));
}

TEST(CudaApi, HostDataLargerThanAChunkIsStreamed) {
  SKIP_WITHOUT_GPU();
  const std::size_t n = (std::size_t(64) << 20) / 4 * 3 + 12345;  // three chunks and a bit
  std::vector<std::int32_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = std::int32_t(i % 2001) - 1000;
  EXPECT_EQ(reduce(cuda, x, sum), reduce(cpu, x, sum));
  EXPECT_EQ(reduce(cuda, x, min), -1000);
  EXPECT_DOUBLE_EQ(reduce(cuda, x, mean), reduce(cpu, x, mean));
}

TEST(CudaApi, FarthestPointOnTheGpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<float> z;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(777), std::size_t(300007)}) {
    std::vector<point3> pts(n);
    for (auto& p : pts) p = {z(rng), z(rng), z(rng)};
    detail::buffer d(dev(), n * sizeof(point3) + 16);
    dev().copy_in(d.get(), pts.data(), n * sizeof(point3));
    const point3 got = reduce(cuda, device_span<point3>{static_cast<const point3*>(d.get()), n},
                              farthest_point_op());
    EXPECT_EQ(got, reduce(seq, pts, farthest_point_op())) << n;
  }
}

// The cuda executor's staging on its own: rows copied with their pitches (the bytes between rows
// left alone), and host data streamed in chunks that arrive whole, in order, each slot drained.
TEST(CudaExecutor, RowCopiesAndStreamedChunks) {
  SKIP_WITHOUT_GPU();
  const std::size_t rows = 37, cols = 29, src_ld = 33, dst_ld = 31;
  std::vector<float> src(rows * src_ld), back(rows * src_ld, -1.0f);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = float(i);
  detail::buffer d(dev(), rows * dst_ld * 4);
  dev().fill(d.get(), 0, rows * dst_ld * 4);
  dev().copy_rows_in(d.get(), dst_ld * 4, src.data(), src_ld * 4, cols * 4, rows);
  dev().copy_rows_out(back.data(), src_ld * 4, d.get(), dst_ld * 4, cols * 4, rows);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < src_ld; ++c)
      EXPECT_EQ(back[r * src_ld + c], c < cols ? src[r * src_ld + c] : -1.0f) << r << "," << c;

  const std::size_t chunk = std::size_t(1) << 20, bytes = 3 * chunk + 12345;
  std::vector<std::uint8_t> host(bytes), mirror(bytes);
  for (std::size_t i = 0; i < bytes; ++i) host[i] = std::uint8_t(i * 7 + i / 4096);
  detail::buffer whole(dev(), bytes);
  dev().synchronize();
  std::size_t chunks = 0, drained = 0;
  dev().stream_in(
      host.data(), bytes, chunk,
      [&](const void* data, std::size_t len, std::size_t index, int slot, void* stream) {
        EXPECT_EQ(index, chunks++);
        EXPECT_EQ(slot, int(index % 2));
        PPLAB_CUDA(cudaMemcpyAsync(whole.as<std::uint8_t>() + index * chunk, data, len,
                                   cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)));
      },
      [&](int) { ++drained; });
  EXPECT_EQ(chunks, 4u);
  EXPECT_EQ(drained, 4u);
  dev().copy_out(mirror.data(), whole.get(), bytes);
  EXPECT_EQ(mirror, host);
}

// A large copy from host memory goes through the pinned chunks of the executor (two 64 MiB
// buffers in turn): every byte arrives, the last chunk partial.
TEST(CudaExecutor, LargeCopiesInAreStagedWhole) {
  SKIP_WITHOUT_GPU();
  const std::size_t bytes = (std::size_t(64) << 20) * 3 + 4099;
  std::vector<std::uint8_t> host(bytes), back(bytes);
  std::mt19937_64 rng(std::random_device{}());
  for (std::uint8_t& b : host) b = std::uint8_t(rng());
  detail::buffer on_device(dev(), bytes);
  dev().fill(on_device.get(), 0xab, bytes);
  dev().copy_in(on_device.get(), host.data(), bytes);
  dev().copy_out(back.data(), on_device.get(), bytes);
  EXPECT_TRUE(back == host);
}

// A range left to the data, host data on the GPU: the data crosses once and its minimum,
// maximum and counts are taken on the device; the same answer as the cpu backend's.
TEST(CudaApi, HostDataWithAnInferredRangeMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<float> z(3.0f, 2.0f);
  for (std::size_t n : {std::size_t(1000), (std::size_t(1) << 26) + 77}) {
    std::vector<float> x(n);
    for (float& v : x) v = z(rng);
    for (std::size_t bins : {std::size_t(10), std::size_t(1000), std::size_t(1) << 20}) {
      histogram_options o;
      o.bins = bins;
      const histogram_result want = histogram(cpu, std::span<const float>(x), o);
      const histogram_result got = histogram(cuda, std::span<const float>(x), o);
      EXPECT_EQ(got.lo, want.lo) << n << " " << bins;
      EXPECT_EQ(got.hi, want.hi) << n << " " << bins;
      EXPECT_TRUE(got.counts == want.counts) << n << " " << bins;
      EXPECT_EQ(got.underflow + got.overflow + got.nan, 0u);
    }
  }
  std::vector<float> with_nan(5000, 1.0f);
  with_nan[4321] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(histogram(cuda, std::span<const float>(with_nan)), error);
}

template <class Binner>
__global__ void bin_each(Binner bin, const double* x, std::size_t n, std::size_t* slot) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) slot[i] = bin(x[i]);
}

// The binners are host-and-device code: on the GPU they give every value the host's slot,
// values on the edges, outside the range and NaN included.
TEST(CudaBinners, TheGpuBinsEveryValueAsTheHostDoes) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  const detail::histogram_problem p{dtype::f64, 0, 1000 + rng() % 1000, -3.25, 11.5, true, false};
  const detail::range_binner bin(p);
  std::vector<double> x(100003);
  std::uniform_real_distribution<double> u(p.lo - 1, p.hi + 1);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = i % 5 == 0 ? bin.edge(rng() % (p.bins + 1)) : (i % 97 == 0 ? std::nan("") : u(rng));
  x[1] = p.hi;
  detail::buffer dx(dev(), x.size() * 8), ds(dev(), x.size() * 8);
  dev().copy_in(dx.get(), x.data(), x.size() * 8);
  bin_each<<<unsigned((x.size() + 255) / 256), 256, 0, static_cast<cudaStream_t>(dev().stream())>>>(
      bin, dx.as<const double>(), x.size(), ds.as<std::size_t>());
  std::vector<std::size_t> got(x.size());
  dev().copy_out(got.data(), ds.get(), got.size() * 8);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < x.size(); ++i) wrong += got[i] != bin(x[i]);
  EXPECT_EQ(wrong, 0u);
}

// Every GPU rung, handed 2^31 + 77 elements directly (the host path cuts data into chunks).
// The exact sum of more than 2^31 floats (tile indices past 32 bits), all one value: n times it,
// rounded once.
TEST(CudaRungs, ExactSumPastTwoToThe31) {
  SKIP_WITHOUT_GPU();
  if (sanitizer_run()) GTEST_SKIP() << "too large to run under compute-sanitizer";
  const std::size_t n = (std::size_t(1) << 31) + 77;
  detail::buffer bytes(dev(), n * 4);
  dev().fill(bytes.get(), 1, n * 4);  // every float 0x01010101: 0x810101 x 2^-148
  const double want = std::ldexp(double(std::uint64_t(n) * 0x810101u), -148);
  EXPECT_EQ(sum_exact_device(dtype::f32, bytes.get(), n), want);
}

// Values in fours (m, m, m, tiny), m = (2^p - 1) 2^-(p + 6) (p = 24 for floats, 53 for
// doubles) and tiny = 2^-100: every tile spread wider than a window, so added by classes.
template <class T> __global__ void fill_spread(T* x, std::size_t n) {
  const int p = sizeof(T) == 4 ? 24 : 53;
  const T m = T(ldexp(double((std::uint64_t(1) << p) - 1), -p - 6)), tiny = T(ldexp(1.0, -100));
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    x[i] = i % 4 == 3 ? tiny : m;
}

// The exact sum of more than 2^31 floats or doubles spread over 94 binades: each lane's doubles
// of a class turned into integers more than once (every 1024 tiles) and the sum still exact.
TEST(CudaRungs, ExactSpreadSumPastTwoToThe31) {
  SKIP_WITHOUT_GPU();
  if (sanitizer_run()) GTEST_SKIP() << "too large to run under compute-sanitizer";
  const std::size_t n = (std::size_t(1) << 31) + 77;
  for (const int p : {24, 53}) {
    SCOPED_TRACE(p == 24 ? "f32" : "f64");
    detail::buffer bytes(dev(), n * (p == 24 ? 4 : 8));
    const auto s = static_cast<cudaStream_t>(dev().stream());
    if (p == 24) fill_spread<<<4096, 256, 0, s>>>(bytes.as<float>(), n);
    else fill_spread<<<4096, 256, 0, s>>>(bytes.as<double>(), n);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    // The real sum times 2^100, an integer below 2^126, rounded once to a double (the
    // conversion from 128 bits rounds to nearest), then scaled back exactly.
    const std::size_t tinies = n / 4, ms = n - tinies;
    const __int128 scaled =
        __int128(ms) * ((__int128(1) << p) - 1) * (__int128(1) << (94 - p)) + __int128(tinies);
    EXPECT_EQ(sum_exact_device(p == 24 ? dtype::f32 : dtype::f64, bytes.get(), n),
              std::ldexp(double(scaled), -100));
  }
}

TEST(CudaRungs, InputsPastTwoToThe31) {
  SKIP_WITHOUT_GPU();
  if (sanitizer_run()) GTEST_SKIP() << "too large to run under compute-sanitizer";
  const std::size_t n = (std::size_t(1) << 31) + 77;
  detail::buffer bytes(dev(), n * 4);  // room for n 32-bit elements
  dev().fill(bytes.get(), 1, n * 4);
  const std::uint8_t top8 = 9;
  const std::uint32_t top32 = 0x09090909u;
  dev().copy_in(static_cast<std::uint8_t*>(bytes.get()) + n - 1, &top8, 1);
  detail::buffer out(dev(), sizeof(scalar));
  for (const auto& r : detail::rungs_of<detail::reduce_rung>()) {
    if (r.info.where != backend::cuda) continue;
    for (dtype t : {dtype::u8, dtype::u32}) {
      for (op o : {op::sum, op::max}) {
        const detail::reduce_problem p{t, o, n};
        if (!r.can_run(p)) continue;
        if (t == dtype::u32)  // restore the bytes the u8 case changed, then mark the last u32
          dev().fill(static_cast<std::uint8_t*>(bytes.get()) + n - 1, 1, 1),
              dev().copy_in(static_cast<std::uint32_t*>(bytes.get()) + n - 1, &top32, 4);
        detail::buffer scratch = detail::scratch_for(dev(), r.scratch(p));
        r.run({p, bytes.get(), out.as<scalar>(), scratch.get(), dev().stream()});
        dev().synchronize();
        scalar got;
        dev().copy_out(&got, out.get(), sizeof got);
        if (t == dtype::u8) {
          EXPECT_EQ(got.u, o == op::sum ? n - 1 + 9 : 9u) << r.info.id << " u8 " << name_of(o);
        } else {
          EXPECT_EQ(got.u, o == op::sum ? (n - 1) * 0x01010101ull + top32 : top32)
              << r.info.id << " u32 " << name_of(o);
        }
        if (t == dtype::u32)  // back to bytes of 1 for the next rung's u8 case
          dev().fill(bytes.get(), 1, n * 4),
              dev().copy_in(static_cast<std::uint8_t*>(bytes.get()) + n - 1, &top8, 1);
      }
    }
  }
}

// Every GPU matmul rung on matrices already on the device, as sub-matrix views: rows padded to a
// whole number of 16-byte vectors while the matrix's own columns are not (a vector straddles the
// last column: the 16-byte path must stop there), and the same views one element into their
// buffers (nothing 16-byte aligned: the element path). Against a double-precision reference.
template <class T> void check_device_views(std::mt19937_64& rng) {
  struct shape {
    std::size_t m, n, k;
  };
  constexpr std::size_t v = 16 / sizeof(T);
  for (const shape s :
       {shape{67, 262, 70}, shape{130, 131, 37}, shape{5, 9, 1}, shape{300, 6, 129}})
    for (const std::size_t shift : {std::size_t(0), std::size_t(1)}) {
      const auto ld = [&](std::size_t cols) { return (cols + v - 1) / v * v + v; };
      const std::size_t lda = ld(s.k), ldb = ld(s.n), ldc = ld(s.n);
      std::normal_distribution<double> z;
      std::vector<T> a(s.m * lda + shift), b(s.k * ldb + shift), c0(s.m * ldc + shift);
      for (T& x : a) x = T(z(rng));
      for (T& x : b) x = T(z(rng));
      for (T& x : c0) x = T(z(rng));
      detail::buffer da(dev(), a.size() * sizeof(T)), db(dev(), b.size() * sizeof(T)),
          dc(dev(), c0.size() * sizeof(T));
      dev().copy_in(da.get(), a.data(), a.size() * sizeof(T));
      dev().copy_in(db.get(), b.data(), b.size() * sizeof(T));
      const detail::matmul_problem p{std::is_same_v<T, float> ? dtype::f32 : dtype::f64, s.m, s.n,
                                     s.k};
      const double alpha = 1.5, beta = -0.5;
      for (const auto& r : detail::rungs_of<detail::matmul_rung>()) {
        if (r.info.where != backend::cuda || !r.can_run(p)) continue;
        SCOPED_TRACE(std::string(r.info.id) + " " + std::string(name_of(p.type)) +
                     " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                     " k=" + std::to_string(s.k) + " shift=" + std::to_string(shift));
        dev().copy_in(dc.get(), c0.data(), c0.size() * sizeof(T));
        detail::buffer scratch = detail::scratch_for(dev(), r.scratch(p));
        r.run({p, alpha, beta, da.as<const T>() + shift, lda, db.as<const T>() + shift, ldb,
               dc.as<T>() + shift, ldc, scratch.get(), dev().stream()});
        dev().synchronize();
        std::vector<T> c(c0.size());
        dev().copy_out(c.data(), dc.get(), c.size() * sizeof(T));
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < s.m; ++i)
          for (std::size_t j = 0; j < ldc; ++j) {
            const std::size_t at = shift + i * ldc + j;
            if (j >= s.n) {  // the padding of C's rows stays as it was
              wrong += c[at] != c0[at];
              continue;
            }
            double want = beta * double(c0[at]), scale = std::abs(want);
            for (std::size_t l = 0; l < s.k; ++l) {
              const double t =
                  alpha * double(a[shift + i * lda + l]) * double(b[shift + l * ldb + j]);
              want += t, scale += std::abs(t);
            }
            const double tol = r.info.tf32_split ? detail::split_tf32_tolerance(s.k)
                                                 : detail::dot_tolerance(s.k, p.type);
            wrong += !(std::abs(double(c[at]) - want) <= tol * scale);
          }
        EXPECT_EQ(wrong, 0u);
      }
    }
}

// The API's pick on odd shapes with enough tiles for the big-tile class (m11 -> m12: zero-padded
// copies of A and B, then the interior kernel), a sub-matrix view of A included: the same
// product as the cpu backend's within the dot-product tolerance, and C's padding untouched.
TEST(CudaApi, OddShapesWithManyTilesMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<double> z;
  const std::size_t m = 2100, n = 2101, k = 37, lda = 41, ldc = 2103;  // 17 x 17 tiles of 128
  std::vector<float> a(m * lda), b(k * n), c(m * ldc), want(m * ldc);
  for (float& x : a) x = float(z(rng));
  for (float& x : b) x = float(z(rng));
  for (float& x : c) x = float(z(rng));
  const std::vector<float> c0 = c;
  want = c;
  matmul(cpu, 0.5f, matrix_ref<const float>{a.data(), m, k, lda},
         matrix_ref<const float>{b.data(), k, n}, 2.0f, matrix_ref<float>{want.data(), m, n, ldc});
  matmul(cuda, 0.5f, matrix_ref<const float>{a.data(), m, k, lda},
         matrix_ref<const float>{b.data(), k, n}, 2.0f, matrix_ref<float>{c.data(), m, n, ldc});
  // Each within the tolerance of the exact sum, over the sum of its terms' magnitudes.
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < ldc; ++j) {
      const float got = c[i * ldc + j], w = want[i * ldc + j];
      if (j >= n) {  // the padding: never written
        wrong += got != w;
        continue;
      }
      double scale = 2.0 * std::abs(double(c0[i * ldc + j]));
      for (std::size_t l = 0; l < k; ++l)
        scale += 0.5 * std::abs(double(a[i * lda + l]) * double(b[l * n + j]));
      wrong += !(std::abs(double(got) - w) <= 2 * detail::dot_tolerance(k, dtype::f32) * scale);
    }
  EXPECT_EQ(wrong, 0u);
}

TEST(CudaRungs, MatmulOfDeviceViews) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  check_device_views<float>(rng);
  check_device_views<double>(rng);
}

// Every GPU histogram rung on data already on the device one element into a buffer (bytes at an
// odd address, floats 4 bytes in: no 16-byte load lines up), against the sequential rung.
TEST(CudaRungs, HistogramOfUnalignedDeviceData) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(std::random_device{}());
  const std::size_t n = (std::size_t(1) << 20) + 7;
  for (const bool bytes : {true, false}) {
    const detail::histogram_problem p =
        bytes ? detail::histogram_problem{dtype::u8, n, 256, 0, 256, false, true}
              : detail::histogram_problem{dtype::f32, n, 1000, -0.25, 0.75, true, false};
    std::vector<std::byte> host(n * size_of(p.type));
    for (auto& b : host) b = std::byte(rng() >> 7);
    if (!bytes)  // floats in [-0.5, 1): some below, some above the range, some on its edges
      for (std::size_t i = 0; i < n; ++i) {
        const float v = i % 11 == 0 ? float(detail::range_binner(p).edge(rng() % 1001))
                                    : float(rng() % 3000) / 2000.0f - 0.5f;
        std::memcpy(host.data() + i * 4, &v, 4);
      }
    std::vector<std::uint64_t> want(p.bins + 3);
    detail::run_rung(*detail::find<detail::histogram_rung>("histogram/seq/h01_sequential"), p,
                     host.data(), want.data());
    detail::buffer d(dev(), host.size() + 16), counts(dev(), want.size() * 8);
    std::byte* odd = static_cast<std::byte*>(d.get()) + size_of(p.type);  // one element in
    dev().copy_in(odd, host.data(), host.size());
    for (const auto& r : detail::rungs_of<detail::histogram_rung>()) {
      if (r.info.where != backend::cuda || r.info.racy || !r.can_run(p)) continue;
      detail::buffer scratch = detail::scratch_for(dev(), r.scratch(p));
      dev().fill(counts.get(), 0xde, want.size() * 8);
      r.run({p, odd, counts.as<std::uint64_t>(), scratch.get(), dev().stream()});
      dev().synchronize();
      std::vector<std::uint64_t> got(want.size());
      dev().copy_out(got.data(), counts.get(), got.size() * 8);
      EXPECT_EQ(got, want) << r.info.id << (bytes ? " bytes" : " floats");
    }
  }
}

// Every GPU histogram rung, handed 2^31 + 77 bytes directly: no 32-bit index or counter wraps.
TEST(CudaRungs, HistogramPastTwoToThe31) {
  SKIP_WITHOUT_GPU();
  if (sanitizer_run()) GTEST_SKIP() << "too large to run under compute-sanitizer";
  const std::size_t n = (std::size_t(1) << 31) + 77;
  detail::buffer bytes(dev(), n);
  dev().fill(bytes.get(), 1, n);
  const std::uint8_t top = 9;
  dev().copy_in(static_cast<std::uint8_t*>(bytes.get()) + n - 1, &top, 1);
  const detail::histogram_problem p{dtype::u8, n, 256, 0, 256, false, true};
  detail::buffer counts(dev(), 259 * 8);
  for (const auto& r : detail::rungs_of<detail::histogram_rung>()) {
    if (r.info.where != backend::cuda || r.info.racy || !r.can_run(p)) continue;
    detail::buffer scratch = detail::scratch_for(dev(), r.scratch(p));
    r.run({p, bytes.get(), counts.as<std::uint64_t>(), scratch.get(), dev().stream()});
    dev().synchronize();
    std::vector<std::uint64_t> got(259);
    dev().copy_out(got.data(), counts.get(), got.size() * 8);
    std::vector<std::uint64_t> want(259, 0);
    want[1] = n - 1;
    want[9] = 1;
    EXPECT_EQ(got, want) << r.info.id;
  }
}

}  // namespace
}  // namespace pplab::test
