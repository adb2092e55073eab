// One body for every registered convolution rung: f32 and f64 images of awkward shapes (1 x N,
// N x 1, a mask larger than the image), every boundary mode, masks from 1 x 1 to 31 x 31 and
// rectangular ones, row strides wider than the rows with poisoned padding that must stay
// untouched, and NaN and infinity in the image; each output checked against the reference in
// double with the tolerance rule (convolution/rung.hpp). The reference itself is checked on
// small cases worked out by hand, and the API's checks and convolve's flip on the way in.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "convolution/boundary.hpp"
#include "convolution/cuda/bands.hpp"
#include "convolution/rung.hpp"
#include "convolution/scipy_order.hpp"
#include "core/pieces.hpp"
#include "core/run.hpp"
#include "pplab/convolution.hpp"
#include "test_support.hpp"

namespace pplab::test {
namespace {

using detail::convolution_rung;

constexpr boundary all_modes[] = {boundary::reflect, boundary::constant, boundary::nearest,
                                  boundary::mirror, boundary::wrap};

struct shape {
  std::size_t rows, cols, kh, kw;
  std::size_t planes = 1;  // a stack of images (convolution_problem::planes)
};

// `separable`: a mask that is an outer product, its factors after it (the separable rungs run).
// A stack's planes lie apart by more than a plane, poison between them that must stay untouched.
template <class T>
void check(const convolution_rung& r, shape s, boundary mode, std::mt19937_64& rng,
           bool specials = false, bool separable = false) {
  const double cval = mode == boundary::constant ? 1.5 : 0.0;
  detail::convolution_problem p{dtype_of<T>(), s.rows, s.cols, s.kh,
                                s.kw,          mode,   cval,   separable};
  p.planes = s.planes;
  if (!r.can_run(p)) return;
  SCOPED_TRACE(std::string(name_of(p.type)) + " " + std::to_string(s.planes) + " x " +
               std::to_string(s.rows) + "x" + std::to_string(s.cols) + " mask " +
               std::to_string(s.kh) + "x" + std::to_string(s.kw) + " " +
               std::string(name_of(mode)));
  const std::size_t ld_in = s.cols + rng() % 3, ld_out = s.cols + rng() % 3;
  const std::size_t plane_in = s.planes > 1 ? s.rows * ld_in + rng() % 5 : 0,
                    plane_out = s.planes > 1 ? s.rows * ld_out + 1 + rng() % 5 : 0;
  const std::size_t in_size = (s.planes - 1) * plane_in + s.rows * ld_in + 1,
                    out_size = (s.planes - 1) * plane_out + s.rows * ld_out + 1;
  const T poison = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> in(in_size, T(-7)), out(out_size, poison);
  std::normal_distribution<double> z;
  for (std::size_t i = 0; i < s.planes; ++i)
    for (std::size_t y = 0; y < s.rows; ++y)
      for (std::size_t x = 0; x < s.cols; ++x) in[i * plane_in + y * ld_in + x] = T(z(rng));
  if (specials && s.rows * s.cols > 2) {
    in[(rng() % s.rows) * ld_in + rng() % s.cols] = std::numeric_limits<T>::quiet_NaN();
    in[(rng() % s.rows) * ld_in + rng() % s.cols] = std::numeric_limits<T>::infinity();
  }
  std::vector<double> mask(s.kh * s.kw), col(s.kh), row(s.kw);
  for (double& m : mask) m = z(rng);
  if (separable) {
    for (double& c : col) c = z(rng);
    for (double& w : row) w = z(rng);
    for (std::size_t i = 0; i < s.kh; ++i)
      for (std::size_t j = 0; j < s.kw; ++j) mask[i * s.kw + j] = col[i] * row[j];
  }
  std::vector<T> typed(mask.begin(), mask.end());
  if (separable)
    typed.insert(typed.end(), col.begin(), col.end()),
        typed.insert(typed.end(), row.begin(), row.end());
  detail::convolution_call call{p,       in.data(), ld_in, typed.data(), out.data(), ld_out,
                                nullptr, nullptr};
  call.plane_in = plane_in, call.plane_out = plane_out;
  detail::run_rung(r, call);
  detail::convolution_problem one = p;
  one.planes = 1;
  std::vector<double> want(s.rows * s.cols), scale(s.rows * s.cols);
  std::size_t wrong = 0, touched = 0;
  for (std::size_t i = 0; i < s.planes; ++i) {
    detail::reference_correlation(one, in.data() + i * plane_in, ld_in, mask.data(), want.data(),
                                  scale.data());
    const std::size_t to = i + 1 < s.planes ? plane_out : s.rows * ld_out;
    for (std::size_t e = 0; e < to; ++e) {
      const std::size_t y = e / ld_out, x = e % ld_out;
      const T got = out[i * plane_out + e];
      if (x >= s.cols || y >= s.rows) {
        touched += !std::isnan(got);
        continue;
      }
      const double w = want[y * s.cols + x], sc = scale[y * s.cols + x];
      if (!detail::output_close_to_reference(p, double(got), w, sc, &r.info) && ++wrong <= 5)
        ADD_FAILURE() << "plane " << i << " out[" << y << "][" << x << "] = " << got << ", want "
                      << w << " (scale " << sc << ")";
    }
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(touched, 0u) << "elements past the output's columns or planes were written";
}

class Convolution : public ::testing::TestWithParam<const convolution_rung*> {};

TEST_P(Convolution, EveryModeAwkwardShapesAndMasks) {
  const convolution_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // The last: rows of 256 bytes, split over two GPUs with each GPU's rows whole in its slice
  // (the nccl rung's in-place pass and edge bands).
  const std::vector<shape> shapes = {
      {1, 1, 1, 1},   {1, 1, 3, 3},     {1, 37, 3, 5},     {41, 1, 5, 3},    {2, 3, 7, 7},
      {5, 4, 31, 31}, {17, 19, 3, 3},   {33, 65, 5, 5},    {64, 63, 7, 1},   {63, 64, 1, 9},
      {40, 70, 9, 7}, {70, 45, 15, 15}, {100, 101, 31, 3}, {9, 200, 11, 11}, {128, 64, 5, 5}};
  for (const shape& s : shapes)
    for (boundary mode : all_modes) {
      if (sanitizer_run() && s.rows * s.cols * s.kh * s.kw > 200000) continue;
      check<float>(r, s, mode, rng);
      check<double>(r, s, mode, rng);
    }
}

TEST_P(Convolution, SeparableMasksEveryMode) {
  const convolution_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Past 31 x 31 (max_separable_side), a Gaussian of sigma 4 (33 x 33) among them.
  const std::vector<shape> shapes = {
      {1, 1, 3, 3},     {1, 37, 3, 5},    {41, 1, 5, 3},   {5, 4, 31, 31},  {33, 65, 5, 5},
      {70, 45, 15, 15}, {67, 131, 7, 7},  {100, 33, 31, 3}, {9, 200, 1, 11}, {90, 140, 33, 33},
      {70, 300, 3, 63}, {130, 40, 63, 5}, {20, 20, 41, 57}, {9, 11, 33, 35}};
  for (const shape& s : shapes)
    for (boundary mode : all_modes) {
      if (sanitizer_run() && s.rows * s.cols * s.kh * s.kw > 200000) continue;
      check<float>(r, s, mode, rng, false, true);
      check<double>(r, s, mode, rng, false, true);
    }
  check<float>(r, {45, 77, 7, 7}, boundary::reflect, rng, true, true);  // NaN and infinity
}

// Rows of a multiple of 16 bytes (the device copy is packed) and tiles wholly inside the image:
// on a Hopper GPU the register-strip rungs (c06, c07) copy those tiles by the copy engine and the
// tiles along the edges by their threads, in one grid. Every square mask they take, in full and
// separable (to 31 x 31: c06's f32 masks, c07's separable ones); not skipped under the
// sanitizers, which must see the copy engine's path.
TEST_P(Convolution, TilesInsideAndOnTheEdgesEveryMask) {
  const convolution_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t k = 3; k <= 15; k += 2) {
    check<float>(r, {272, 136, k, k}, boundary::reflect, rng);
    check<double>(r, {272, 136, k, k}, boundary::mirror, rng);
    check<float>(r, {272, 136, k, k}, boundary::nearest, rng, false, true);
    check<double>(r, {272, 136, k, k}, boundary::constant, rng, false, true);
  }
  // c06 compiles f32 masks to 31 x 31, c07 separable ones of both types.
  for (std::size_t k = 17; k <= 31; k += 2) {
    check<float>(r, {272, 136, k, k}, boundary::reflect, rng);
    check<float>(r, {272, 136, k, k}, boundary::nearest, rng, false, true);
    check<double>(r, {272, 136, k, k}, boundary::constant, rng, false, true);
  }
}

// Masks of one row and one column (the 1-D passes of SciPy's named filters) of every odd length
// to 31, on images smaller and larger than a block's tile each way (c13's: 8 x 128 across, 64 x
// 32 down), every mode, NaN and infinity in the image too. Other rungs pass by what they cannot
// run.
TEST_P(Convolution, LinesOfEveryLengthEveryMode) {
  const convolution_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<std::pair<std::size_t, std::size_t>> sizes = {{1, 1},    {3, 300},   {300, 3},
                                                                  {65, 129}, {130, 257}, {9, 1000}};
  for (std::size_t k = 1; k <= 31; k += 2)
    for (auto [rows, cols] : sizes) {
      if (sanitizer_run() && (k % 6 != 1 || rows * cols > 20000)) continue;
      const boundary mode = all_modes[(k / 2 + rows) % std::size(all_modes)];
      check<float>(r, {rows, cols, 1, k}, mode, rng, k % 4 == 1);
      check<double>(r, {rows, cols, k, 1}, mode, rng, k % 4 == 3);
      check<double>(r, {rows, cols, 1, k}, boundary::reflect, rng);
      check<float>(r, {rows, cols, k, 1}, boundary::constant, rng);
    }
  // Lines past a mask's side (max_line_taps): rungs whose taps are a run-time count take them.
  for (std::size_t k : {33, 65, 255})
    for (auto [rows, cols] :
         std::vector<std::pair<std::size_t, std::size_t>>{{70, 300}, {300, 7}}) {
      if (sanitizer_run() && k > 33) continue;
      const boundary mode = all_modes[(k + rows) % std::size(all_modes)];
      check<float>(r, {rows, cols, 1, k}, mode, rng, k == 33);
      check<double>(r, {rows, cols, k, 1}, mode, rng);
    }
}

// A stack of images (a 3-D array's middle axis), for the rungs that take one in a call: every
// plane against the reference on its own, each mode, lines short and long, stacks of one plane;
// outer products over a stack.
TEST_P(Convolution, StacksOfPlanesEachOnItsOwn) {
  const convolution_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<shape> stacks = {{37, 41, 7, 1, 3},  {1, 300, 1, 9, 5},   {300, 5, 33, 1, 2},
                                     {70, 65, 1, 15, 4}, {129, 33, 5, 1, 1},  {2, 3, 9, 1, 7},
                                     {8, 8, 1, 1, 3},    {65, 31, 255, 1, 2}, {1, 1, 3, 1, 4}};
  std::size_t i = 0;
  for (const shape& s : stacks) {
    const boundary mode = all_modes[i++ % std::size(all_modes)];
    check<float>(r, s, mode, rng, i % 3 == 0);
    check<double>(r, s, all_modes[(i + 2) % std::size(all_modes)], rng);
  }
  // Outer products over a stack (a 3-D filter's last two axes): small planes, planes a tile's
  // edge cuts, planes the copy engine's map takes (rows of a multiple of 16 bytes), 33 x 33.
  const std::vector<shape> outer = {{17, 19, 3, 3, 4},    {1, 1, 3, 3, 5},   {33, 65, 5, 5, 3},
                                    {272, 136, 11, 11, 3}, {9, 11, 33, 33, 2}, {70, 45, 7, 7, 2}};
  for (const shape& s : outer) {
    const boundary mode = all_modes[i++ % std::size(all_modes)];
    if (sanitizer_run() && s.rows * s.cols * s.kh * s.kw * s.planes > 2000000) continue;
    check<float>(r, s, mode, rng, false, true);
    check<double>(r, s, all_modes[(i + 2) % std::size(all_modes)], rng, false, true);
  }
}

TEST_P(Convolution, NanAndInfinityReachTheirOutputs) {
  const convolution_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  std::mt19937_64 rng(fresh_seed());
  for (boundary mode : all_modes) {
    check<float>(r, {45, 77, 5, 5}, mode, rng, true);
    check<double>(r, {31, 30, 3, 7}, mode, rng, true);
  }
}

TEST_P(Convolution, LargeImage) {
  const convolution_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  if (sanitizer_run()) GTEST_SKIP() << "the plain runs cover it; too slow under racecheck";
  std::mt19937_64 rng(fresh_seed());
  check<float>(r, {517, 1031, 7, 7}, boundary::reflect, rng);
  check<float>(r, {300, 257, 15, 15}, boundary::wrap, rng);
  // Lines on images of tiles enough that c14's blocks each filter a run of them (on GPUs of up
  // to 132 SMs)
  check<float>(r, {2100, 1300, 1, 15}, boundary::reflect, rng);
  check<double>(r, {4100, 1100, 15, 1}, boundary::wrap, rng);
}

// A u8 image of `channels` interleaved channels, filtered to f32 or to u8 (rounded, saturated):
// the rungs that take u8 images against the reference, every channel on its own.
// `separable`: the mask an outer product, its factors after it (c10 then filters its planes with
// c07's passes). Counts the cases run and the outputs whose exact value lies outside 0..255 into
// `tried`: a test asserts that its cases together reached saturation (one case alone may not: a
// 31 x 31 mask over 33 x 65 pixels in constant mode averages in the constant, and saturated
// nothing under one seed the GPU tests drew).
struct saturation_tried {
  std::size_t cases = 0, saturated = 0;
};
void check_u8(const convolution_rung& r, shape s, std::size_t channels, bool u8_out, boundary mode,
              std::mt19937_64& rng, saturation_tried& tried, bool separable = false) {
  const double cval = mode == boundary::constant ? 17.5 : 0.0;
  detail::convolution_problem p{dtype::u8, s.rows, s.cols,    s.kh,     s.kw,
                                mode,      cval,   separable, channels, u8_out};
  if (!r.can_run(p)) return;
  SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.cols) + "x" +
               std::to_string(channels) + " mask " + std::to_string(s.kh) + "x" +
               std::to_string(s.kw) + " " + std::string(name_of(mode)) +
               (u8_out ? " to u8" : " to f32"));
  const std::size_t n = s.cols * channels, ld_in = n + rng() % 5, ld_out = n + rng() % 3;
  std::vector<std::uint8_t> in(s.rows * ld_in + 1, 7);
  for (std::size_t y = 0; y < s.rows; ++y)
    for (std::size_t x = 0; x < n; ++x) in[y * ld_in + x] = std::uint8_t(rng());
  // A mask of mixed signs whose sums land inside and outside 0..255 (saturation), and a sharp
  // one that keeps most values near the middle.
  std::normal_distribution<double> z(0.1, 0.4);
  std::vector<double> mask(s.kh * s.kw), col(s.kh), row(s.kw);
  for (double& m : mask) m = z(rng);
  if (separable) {  // positive factors scaled to a sum of 2: about half the sums past 255
    std::uniform_real_distribution<double> f(0.2, 1.0);
    double col_sum = 0, row_sum = 0;
    for (double& c : col) col_sum += c = f(rng);
    for (double& w : row) row_sum += w = f(rng);
    for (double& c : col) c *= 2 / (col_sum * row_sum);
    for (std::size_t i = 0; i < s.kh; ++i)
      for (std::size_t j = 0; j < s.kw; ++j) mask[i * s.kw + j] = col[i] * row[j];
  }
  std::vector<float> typed(mask.begin(), mask.end());
  if (separable)
    typed.insert(typed.end(), col.begin(), col.end()),
        typed.insert(typed.end(), row.begin(), row.end());
  std::vector<double> want(s.rows * n), scale(s.rows * n);
  detail::reference_correlation(p, in.data(), ld_in, mask.data(), want.data(), scale.data());
  std::vector<std::uint8_t> out8(s.rows * ld_out + 1, 0xa5);
  std::vector<float> out32(s.rows * ld_out + 1, std::numeric_limits<float>::quiet_NaN());
  void* out = u8_out ? static_cast<void*>(out8.data()) : out32.data();
  detail::run_rung(r, {p, in.data(), ld_in, typed.data(), out, ld_out, nullptr, nullptr});
  std::size_t wrong = 0, touched = 0, saturated = 0;
  for (std::size_t y = 0; y < s.rows; ++y)
    for (std::size_t x = 0; x < ld_out; ++x) {
      const double got = u8_out ? double(out8[y * ld_out + x]) : double(out32[y * ld_out + x]);
      if (x >= n) {
        touched += u8_out ? out8[y * ld_out + x] != 0xa5 : !std::isnan(out32[y * ld_out + x]);
        continue;
      }
      const double w = want[y * n + x];
      saturated += w < 0 || w > 255;
      if (!detail::output_close_to_reference(p, got, w, scale[y * n + x], &r.info) && ++wrong <= 5)
        ADD_FAILURE() << "out[" << y << "][" << x << "] = " << got << ", want " << w;
    }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(touched, 0u) << "elements past the output's row were written";
  ++tried.cases, tried.saturated += saturated;
}

TEST_P(Convolution, U8ImagesEveryChannelCount) {
  const convolution_rung& r = *GetParam();
  PPLAB_SKIP_IF_UNAVAILABLE(r.info);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // The last three have tiles wholly inside the image (no boundary test in c08's load) on rows of
  // a multiple of 4 bytes.
  const std::vector<shape> shapes = {{1, 1, 1, 1},     {1, 37, 3, 5},    {41, 1, 5, 3},
                                     {5, 4, 31, 31},   {33, 65, 5, 5},   {64, 131, 7, 7},
                                     {40, 70, 9, 3},   {19, 200, 3, 15}, {132, 68, 3, 3},
                                     {200, 132, 5, 5}, {150, 100, 7, 7}};
  saturation_tried full, outer;
  for (const shape& s : shapes)
    for (std::size_t channels : {1, 3, 4})
      for (boundary mode : all_modes) {
        if (sanitizer_run() && s.rows * s.cols * s.kh * s.kw > 200000) continue;
        check_u8(r, s, channels, true, mode, rng, full);
        check_u8(r, s, channels, false, mode, rng, full);
      }
  // Separable masks (a Gaussian blur's kind), square and not.
  const std::vector<shape> separable = {{64, 131, 7, 7},  {150, 100, 15, 15}, {40, 70, 9, 3},
                                        {200, 132, 5, 5}, {33, 65, 31, 31},   {48, 40, 7, 7}};
  for (const shape& s : separable)
    for (std::size_t channels : {1, 3, 4})
      for (boundary mode : {boundary::reflect, boundary::constant, boundary::wrap}) {
        if (sanitizer_run() && s.rows * s.cols * s.kh * s.kw > 200000) continue;
        check_u8(r, s, channels, true, mode, rng, outer, true);
        check_u8(r, s, channels, false, mode, rng, outer, true);
      }
  for (const saturation_tried& t : {full, outer})
    if (t.cases > 0) {
      EXPECT_GT(t.saturated, 0u) << "the cases never tried saturation";
    }
}

std::vector<const convolution_rung*> all_rungs() {
  std::vector<const convolution_rung*> out;
  for (const auto& r : detail::rungs_of<convolution_rung>()) out.push_back(&r);
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllRungs, Convolution, ::testing::ValuesIn(all_rungs()),
                         [](const auto& info) { return test_name(info.param->info.id); });

// The modes on the row "a b c d" (n = 4), far past both ends, as pplab/convolution.hpp draws them
// (the strings are what scipy.ndimage.correlate1d reads there, SciPy 1.10).
// A long host filter runs in bands of rows (core/pieces.hpp), each the image's rows around it:
// with pieces made small, every seq and cpu rung gives the same bits as in one piece, in every
// mode, with bands cut through masks of every height (u8 images' channels too).
TEST(ConvolutionBands, HostRungsGiveTheSameBitsInBands) {
  std::mt19937_64 rng(fresh_seed());
  double& piece = detail::piece_work();
  const double whole = piece;
  for (const convolution_rung& r : detail::rungs_of<convolution_rung>()) {
    if (r.info.where != backend::seq && r.info.where != backend::cpu) continue;
    for (const shape s :
         {shape{300, 37, 3, 3}, shape{257, 19, 7, 5}, shape{500, 9, 31, 3}, shape{130, 64, 1, 1}})
      for (boundary mode : all_modes)
        for (std::size_t channels : {std::size_t(1), std::size_t(3)}) {
          const dtype t = channels == 3 ? dtype::u8 : (s.cols % 2 ? dtype::f32 : dtype::f64);
          const detail::convolution_problem p{t,    s.rows, s.cols, s.kh,     s.kw,
                                              mode, 0.5,    false,  channels, channels == 3};
          if (!r.can_run(p)) continue;
          SCOPED_TRACE(std::string(r.info.id) + " " + std::to_string(s.rows) + "x" +
                       std::to_string(s.cols) + " mask " + std::to_string(s.kh) + "x" +
                       std::to_string(s.kw) + " " + std::string(name_of(mode)));
          const std::size_t n = s.cols * channels, e = size_of(t),
                            eo = size_of(detail::output_type(p));
          std::vector<std::byte> in(s.rows * n * e);
          for (std::byte& b : in) b = std::byte(rng() % 200);  // finite floats, any u8
          if (t == dtype::f32)
            for (std::size_t i = 0; i < s.rows * n; ++i)
              reinterpret_cast<float*>(in.data())[i] = float(int(rng() % 2001) - 1000) / 7.0f;
          if (t == dtype::f64)
            for (std::size_t i = 0; i < s.rows * n; ++i)
              reinterpret_cast<double*>(in.data())[i] = double(int(rng() % 2001) - 1000) / 7.0;
          std::vector<double> mask(s.kh * s.kw);
          for (double& m : mask) m = double(int(rng() % 21) - 10) / 16.0;
          std::vector<float> mask32(mask.begin(), mask.end());
          const void* typed = detail::compute_type(p) == dtype::f32
                                  ? static_cast<const void*>(mask32.data())
                                  : static_cast<const void*>(mask.data());
          std::vector<std::byte> one(s.rows * n * eo, std::byte{0x55}), banded = one;
          piece = whole;
          detail::run_rung(r, {p, in.data(), n, typed, one.data(), n, nullptr, nullptr});
          piece = double(n) * double(s.kh * s.kw) * 10;  // bands of 64 rows, or 32 (kh / 2)
          detail::run_rung(r, {p, in.data(), n, typed, banded.data(), n, nullptr, nullptr});
          piece = whole;
          EXPECT_TRUE(one == banded) << "the bands' output differs from one piece's";
        }
  }
}

TEST(ConvolutionBoundary, IndicesFollowScipysExtensions) {
  const auto line = [](boundary m) {
    std::string s;
    for (int i = -9; i < 13; ++i) {
      const std::int64_t k = detail::boundary_index(i, 4, m);
      s += k < 0 ? 'k' : char('a' + k);
    }
    return s;
  };
  //                                     -9       0   4       12
  EXPECT_EQ(line(boundary::reflect), "aabcddcbaabcddcbaabcdd");
  EXPECT_EQ(line(boundary::mirror), "dcbabcdcbabcdcbabcdcba");
  EXPECT_EQ(line(boundary::wrap), "dabcdabcdabcdabcdabcda");
  EXPECT_EQ(line(boundary::nearest), "aaaaaaaaaabcdddddddddd");
  EXPECT_EQ(line(boundary::constant), "kkkkkkkkkabcdkkkkkkkkk");
  EXPECT_EQ(detail::boundary_index(-3, 1, boundary::mirror), 0);
  EXPECT_EQ(detail::boundary_index(5, 1, boundary::reflect), 0);
}

// A 3 x 3 image and mask worked out by hand: correlation, convolution (the mask flipped), and
// the constant value.
// The whole-mask rungs' (c11, c12) bands of rows, host code the GPU runs too: for images small
// and large, narrow and wide, and GPUs that hold few or many blocks, the bands cover every row
// once, in order, each a whole number of chunks high, and fit the grid's 65535 rows of blocks.
TEST(ConvolutionBands, CoverEveryRowOnceInOrder) {
  using detail::convolution_cuda::whole_mask::chunk_rows;
  std::size_t planned = 0, two_heights = 0;
  for (int rows : {1, 15, 16, 17, 383, 1000, 4093, 8192, 20000, 1 << 20})
    for (int cols : {1, 64, 4099, 8192, 65536})
      for (int kh : {1, 15})
        for (unsigned resident : {1u, 528u, 660u, 4096u})
          for (int block_cols : {64, 128}) {
            const auto b = detail::convolution_cuda::whole_mask::plan_bands(rows, cols, kh,
                                                                            resident, block_cols);
            SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", kh " +
                         std::to_string(kh) + ", " + std::to_string(resident) +
                         " blocks at once, " + std::to_string(block_cols) + " columns a block");
            const int n = b.count(rows);
            ASSERT_GE(n, 1);
            ASSERT_LE(n, 65535);
            int next = 0;
            for (int i = 0; i < n; ++i) {
              ASSERT_EQ(b.first_row(i), next) << "band " << i;
              ASSERT_GT(b.height(i), 0);
              ASSERT_EQ(b.height(i) % chunk_rows, 0);
              ASSERT_LT(b.first_row(i), rows) << "band " << i << " starts past the image";
              next += b.height(i);
            }
            ASSERT_GE(next, rows) << "rows left without a band";
            ++planned;
            two_heights += b.split > 0 && b.tall != b.low;
          }
  EXPECT_GT(two_heights, 0u) << "no case reached the tall and the short bands together";
  EXPECT_GT(planned, two_heights) << "no case kept one height";
}

TEST(ConvolutionApi, SmallCasesByHand) {
  const double in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const double mask[9] = {0, 0, 0, 0, 0, 1, 0, 0, 0};  // the right neighbour
  double out[9];
  filter_options o;
  o.mode = boundary::constant, o.cval = -1;
  correlate(backend::seq, dtype::f64, in, 3, 3, 0, mask, 3, 3, out, 0, o);
  EXPECT_EQ(std::vector<double>(out, out + 9), (std::vector<double>{2, 3, -1, 5, 6, -1, 8, 9, -1}));
  convolve(backend::seq, dtype::f64, in, 3, 3, 0, mask, 3, 3, out, 0, o);  // the left one
  EXPECT_EQ(std::vector<double>(out, out + 9), (std::vector<double>{-1, 1, 2, -1, 4, 5, -1, 7, 8}));
  o.mode = boundary::reflect;
  const double down[3] = {0, 0, 1};  // a 3 x 1 mask: the row below
  correlate(backend::seq, dtype::f64, in, 3, 3, 0, down, 3, 1, out, 0, o);
  EXPECT_EQ(std::vector<double>(out, out + 9), (std::vector<double>{4, 5, 6, 7, 8, 9, 7, 8, 9}));
}

// A u8 output is held to the rounding of the reference, or for a rung that truncates (NPP's u8
// filters, rung_info::truncates) to its truncation; saturated at both ends either way.
TEST(ConvolutionVerify, U8OutputsRoundedOrTruncated) {
  detail::convolution_problem p{dtype::u8, 4, 4, 3, 3, boundary::nearest, 0.0, false, 3, true};
  const double scale = 9 * 255;
  rung_info rounds{}, truncates{};
  truncates.truncates = true;
  EXPECT_TRUE(detail::output_close_to_reference(p, 50, 49.88, scale));
  EXPECT_FALSE(detail::output_close_to_reference(p, 49, 49.88, scale));
  EXPECT_TRUE(detail::output_close_to_reference(p, 49, 49.88, scale, &truncates));
  EXPECT_FALSE(detail::output_close_to_reference(p, 50, 49.88, scale, &truncates));
  for (const rung_info* held_as : {&rounds, &truncates}) {
    EXPECT_TRUE(detail::output_close_to_reference(p, 0, -3.7, scale, held_as));
    EXPECT_TRUE(detail::output_close_to_reference(p, 255, 301.2, scale, held_as));
    EXPECT_FALSE(detail::output_close_to_reference(p, 254, 301.2, scale, held_as));
  }
}

// Every rung a policy names is registered, for every backend this build has (a backend that is
// built but not usable here included), on separable masks and others, small and large.
TEST(ConvolutionPolicy, NamesOnlyRegisteredRungs) {
  for (backend b : {backend::seq, backend::cpu, backend::cuda, backend::nccl, backend::mpi}) {
    bool built = false;
    for (const auto& r : detail::rungs_of<convolution_rung>()) built |= r.info.where == b;
    if (!built) continue;
    for (bool separable : {false, true})
      for (std::size_t k : {std::size_t(1), std::size_t(3), std::size_t(7), std::size_t(31)})
        for (dtype t : {dtype::f32, dtype::f64}) {
          const detail::convolution_problem p{t, 100, 100, k, k, boundary::reflect, 0, separable};
          for (std::string_view id : detail::policy(b, p)) {
            const convolution_rung* r = detail::find<convolution_rung>(id);
            ASSERT_NE(r, nullptr) << id << " is named by the " << name_of(b)
                                  << " policy but not registered";
            EXPECT_EQ(r->info.where, b) << id;
          }
        }
  }
}

// Box, Gaussian and Sobel masks are outer products; a random one is not.
TEST(ConvolutionApi, OuterProductsAreFactored) {
  std::vector<double> col, row;
  const double sobel[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
  ASSERT_TRUE(detail::factor_mask(sobel, 3, 3, col, row));
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) EXPECT_DOUBLE_EQ(col[i] * row[j], sobel[i * 3 + j]);
  const double mixed[9] = {1, 2, 3, 4, 5, 6, 7, 8, 10};
  EXPECT_FALSE(detail::factor_mask(mixed, 3, 3, col, row));
  const double zero[4] = {0, 0, 0, 0};
  EXPECT_FALSE(detail::factor_mask(zero, 1, 4, col, row));
  // A Gaussian built in double, as the CLI and SciPy build it, is within a few roundings of one.
  std::vector<double> g1(7), gauss;
  double sum = 0;
  for (int x = -3; x <= 3; ++x) sum += g1[std::size_t(x + 3)] = std::exp(-0.5 * x * x / 2.25);
  for (double a : g1)
    for (double b : g1) gauss.push_back(a / sum * b / sum);
  EXPECT_TRUE(detail::factor_mask(gauss.data(), 7, 7, col, row));
  // NaN and infinite weights are never factored (NaN fails every comparison).
  const double nan = std::numeric_limits<double>::quiet_NaN(),
               inf = std::numeric_limits<double>::infinity();
  const double with_nan[4] = {1, nan, 1, 1}, nan_only[4] = {nan, nan, nan, nan},
               with_inf[4] = {1, inf, 1, 1};
  EXPECT_FALSE(detail::factor_mask(with_nan, 2, 2, col, row));
  EXPECT_FALSE(detail::factor_mask(nan_only, 2, 2, col, row));
  EXPECT_FALSE(detail::factor_mask(with_inf, 2, 2, col, row));
  // A small weight off the pattern is not lost beside a large one: the test is relative to each
  // weight, not to the largest.
  const double tiny_off[4] = {1e6, 0, 0, 1e-10}, large_off[4] = {1e20, 0, 0, 1000};
  EXPECT_FALSE(detail::factor_mask(tiny_off, 2, 2, col, row));
  EXPECT_FALSE(detail::factor_mask(large_off, 2, 2, col, row));
}

// Such masks give the cpu backend the reference's answer: its separable rung (5 x 5 and up) must
// never run a mask that is not an outer product, which it would change.
TEST(ConvolutionApi, MasksThatAreNotOuterProductsKeepEveryTap) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> masks(3, std::vector<double>(25, 0.0));
  for (std::size_t i = 5; i < 25; ++i) masks[0][i] = 1e6;  // four rows of 1e6 ...
  masks[0][0] = 1e-10;                                     // ... and one tap of 1e-10 above
  masks[1][0] = 1e20, masks[1][24] = 1000;                 // two corners, 17 decades apart
  masks[2].assign(25, 1.0), masks[2][12] = nan;            // a NaN in the middle
  // Ones in every third pixel, one pixel of 1e15 that the small taps see alone somewhere.
  const std::size_t rows = 9, cols = 11;
  std::vector<double> img(rows * cols);
  for (std::size_t i = 0; i < img.size(); ++i) img[i] = i % 3 == 1 ? 1.0 : 0.0;
  img[4 * cols + 5] = 1e15;
  for (const std::vector<double>& m : masks) {
    std::vector<double> want(img.size()), got(img.size());
    filter_options o;
    o.mode = boundary::constant;
    correlate(backend::seq, dtype::f64, img.data(), rows, cols, 0, m.data(), 5, 5, want.data(), 0,
              o);
    correlate(backend::cpu, dtype::f64, img.data(), rows, cols, 0, m.data(), 5, 5, got.data(), 0,
              o);
    for (std::size_t i = 0; i < img.size(); ++i) {
      if (std::isnan(want[i]))
        EXPECT_TRUE(std::isnan(got[i])) << "mask " << &m - masks.data() << " at " << i;
      else
        EXPECT_NEAR(got[i], want[i], 1e-12 * std::abs(want[i]))
            << "mask " << &m - masks.data() << " at " << i;
    }
  }
}

TEST(ConvolutionApi, BadCallsAreRefused) {
  std::vector<float> img(12, 1.0f), out(12);
  std::vector<double> mask(33 * 33, 1.0);
  const auto call = [&](std::size_t kh, std::size_t kw, const double* m, dtype t = dtype::f32,
                        void* o = nullptr) {
    correlate(backend::seq, t, img.data(), 3, 4, 0, m, kh, kw, o ? o : out.data(), 0);
  };
  expect_error(
      errc::invalid_argument, [&] { call(2, 3, mask.data()); }, "odd");
  expect_error(
      errc::invalid_argument, [&] { call(3, 65, mask.data()); }, "1 to 31");
  // Past 31 a side is taken from an outer product alone (to max_separable_side)
  std::vector<double> uneven(33 * 3);
  for (std::size_t i = 0; i < uneven.size(); ++i) uneven[i] = double(i % 7);
  expect_error(
      errc::invalid_argument, [&] { call(33, 3, uneven.data()); }, "1 to 63 for an outer product");
  call(33, 3, mask.data());  // all ones: an outer product
  EXPECT_FLOAT_EQ(out[0], 99.0f);
  std::vector<double> line(257, 0.5);
  expect_error(
      errc::invalid_argument, [&] { call(1, 257, line.data()); }, "1 to 255");
  expect_error(
      errc::invalid_argument, [&] { call(1, 33, line.data(), dtype::u8); }, "1 to 31");
  call(1, 33, line.data());            // a line: up to max_line_taps
  EXPECT_FLOAT_EQ(out[0], 0.5f * 33);  // every tap over 1 (reflect)
  expect_error(
      errc::invalid_argument, [&] { call(3, 3, nullptr); }, "null");
  expect_error(
      errc::invalid_argument, [&] { call(3, 3, mask.data(), dtype::i32); }, "not supported");
  std::vector<std::uint8_t> rgb(3 * 4 * 3);
  std::vector<float> rgb_out(3 * 4 * 3);
  const auto u8_call = [&](std::size_t channels, bool u8_out, dtype t = dtype::u8,
                           std::size_t ld_in = 0) {
    filter_options o;
    o.channels = channels, o.u8_output = u8_out;
    correlate(backend::seq, t, rgb.data(), 3, 4, ld_in, mask.data(), 3, 3, rgb_out.data(), 0, o);
  };
  expect_error(
      errc::invalid_argument, [&] { u8_call(2, false); }, "1, 3 or 4 channels");
  expect_error(
      errc::invalid_argument, [&] { u8_call(3, false, dtype::f32); }, "for u8 images");
  expect_error(
      errc::invalid_argument, [&] { u8_call(3, false, dtype::u8, 11); }, "row stride");
  u8_call(3, true);  // a valid call runs
  // "split_tf32" names a precision: f32 images alone, and on the GPU alone.
  std::vector<double> img64(12, 1.0), out64(12);
  expect_error(
      errc::invalid_argument,
      [&] {
        correlate(backend::seq, dtype::f64, img64.data(), 3, 4, 0, mask.data(), 3, 3, out64.data(),
                  0, {}, {"split_tf32"});
      },
      "split_tf32 filters f32 images, not f64");
  expect_error(
      errc::invalid_argument,
      [&] {
        filter_options o;
        o.channels = 3;
        correlate(backend::seq, dtype::u8, rgb.data(), 3, 4, 0, mask.data(), 3, 3, rgb_out.data(),
                  0, o, {"split_tf32"});
      },
      "not u8 images");
  expect_error(
      errc::unsupported,
      [&] {
        correlate(backend::cpu, dtype::f32, img.data(), 3, 4, 0, mask.data(), 3, 3, out.data(), 0,
                  {}, {"split_tf32"});
      },
      "split_tf32 runs on the cuda backend");
  expect_error(
      errc::invalid_argument, [&] { call(3, 3, mask.data(), dtype::f32, img.data() + 1); },
      "overlaps");
  expect_error(
      errc::invalid_argument, [] { parse_boundary("same"); }, "unknown boundary mode");
  EXPECT_EQ(parse_boundary("grid-wrap"), boundary::wrap);
  // An empty image is an empty answer.
  correlate(backend::cpu, dtype::f32, nullptr, 0, 5, 0, mask.data(), 3, 3, nullptr, 0);
}

// A stack of images through the API (filter_options::planes) is each plane filtered alone, bit
// for bit, on every backend here: plane by plane through the rung chosen for one, or in one call
// where that rung takes a stack. Output planes that overlap are refused.
TEST(ConvolutionApi, StacksAreEachPlaneAlone) {
  std::mt19937_64 rng(fresh_seed());
  std::normal_distribution<double> z;
  const std::size_t planes = 4, rows = 33, cols = 29, ld = 31, plane_in = rows * ld + 5,
                    plane_out = rows * ld + 3;
  std::vector<float> in(planes * plane_in);
  for (float& v : in) v = float(z(rng));
  for (backend b : {backend::seq, backend::cpu, backend::cuda}) {
    if (!available(b)) continue;
    for (auto [kh, kw] : std::vector<std::pair<std::size_t, std::size_t>>{{5, 1}, {3, 3}, {1, 7}}) {
      SCOPED_TRACE(std::string(name_of(b)) + " mask " + std::to_string(kh) + "x" +
                   std::to_string(kw));
      std::vector<double> mask(kh * kw);
      for (double& m : mask) m = z(rng);
      filter_options o;
      o.mode = boundary::mirror, o.planes = planes, o.plane_in = plane_in, o.plane_out = plane_out;
      std::vector<float> stacked(planes * plane_out, -1.0f), alone(planes * plane_out, -1.0f);
      correlate(b, dtype::f32, in.data(), rows, cols, ld, mask.data(), kh, kw, stacked.data(), ld,
                o);
      filter_options one;
      one.mode = o.mode;
      for (std::size_t i = 0; i < planes; ++i)
        correlate(b, dtype::f32, in.data() + i * plane_in, rows, cols, ld, mask.data(), kh, kw,
                  alone.data() + i * plane_out, ld, one);
      EXPECT_EQ(std::memcmp(stacked.data(), alone.data(), stacked.size() * sizeof(float)), 0);
      EXPECT_NE(stacked[plane_out + ld + 1], -1.0f);  // a second plane's output written
    }
  }
  std::vector<double> mask(3, 0.25);
  std::vector<float> out(planes * plane_out);
  filter_options o;
  o.planes = planes, o.plane_in = plane_in, o.plane_out = (rows - 1) * ld + cols - 1;
  expect_error(
      errc::invalid_argument,
      [&] {
        correlate(backend::cpu, dtype::f32, in.data(), rows, cols, ld, mask.data(), 3, 1,
                  out.data(), ld, o);
      },
      "planes overlap");
  // Zero planes: nothing to do
  o.planes = 0;
  correlate(backend::cpu, dtype::f32, in.data(), rows, cols, ld, mask.data(), 3, 1, out.data(), ld,
            o);
}

}  // namespace
}  // namespace pplab::test

namespace pplab::test {
namespace {

// scipy.ndimage's 1-D kernels: the Gaussian's length, symmetry and sum, sigma 0, a radius given;
// correlate1d's placement of even lengths and origins; the errors.
TEST(NamedKernels, GaussianAndPlacementAsSciPy) {
  EXPECT_EQ(gaussian_kernel(0.0), std::vector<double>{1.0});
  const std::vector<double> g = gaussian_kernel(1.5);
  ASSERT_EQ(g.size(), 13u);  // radius int(4 * 1.5 + 0.5) = 6
  double sum = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    sum += g[i];
    EXPECT_EQ(g[i], g[g.size() - 1 - i]);
  }
  EXPECT_NEAR(sum, 1.0, 1e-15);
  EXPECT_GT(g[6], g[5]);
  EXPECT_EQ(gaussian_kernel(2.0, 4.0, 3).size(), 7u);
  EXPECT_EQ(gaussian_kernel(1.0, 2.0).size(), 5u);  // radius int(2 * 1 + 0.5) = 2
  const std::vector<double> w4 = {1, 2, 3, 4}, w3 = {1, 2, 3};
  EXPECT_EQ(placed_kernel(w4), (std::vector<double>{1, 2, 3, 4, 0}));
  EXPECT_EQ(placed_kernel(w4, -1), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(placed_kernel(w3, 1), (std::vector<double>{1, 2, 3, 0, 0}));
  EXPECT_EQ(placed_kernel(w3, -1), (std::vector<double>{0, 0, 1, 2, 3}));
  expect_error(
      errc::invalid_argument, [] { gaussian_kernel(-1.0); }, "sigma");
  expect_error(
      errc::invalid_argument, [] { gaussian_kernel(1e300); }, "2^20");
  expect_error(
      errc::invalid_argument, [&] { placed_kernel(w3, 2); }, "invalid origin");
}

// The Gaussian's derivatives (order 1 to 3) against their closed forms times the kernel:
// -x/s^2, x^2/s^4 - 1/s^2, -x^3/s^6 + 3x/s^4; a negative order refused.
TEST(NamedKernels, GaussianDerivativesAsSciPy) {
  const double s = 1.5, s2 = s * s;
  const std::vector<double> g = gaussian_kernel(s);
  const std::vector<double> d1 = gaussian_kernel(s, 4.0, -1, 1),
                            d2 = gaussian_kernel(s, 4.0, -1, 2),
                            d3 = gaussian_kernel(s, 4.0, -1, 3);
  ASSERT_EQ(d1.size(), g.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double x = double(i) - 6;
    EXPECT_NEAR(d1[i], -x / s2 * g[i], 1e-16);
    EXPECT_NEAR(d2[i], (x * x / (s2 * s2) - 1 / s2) * g[i], 1e-16);
    EXPECT_NEAR(d3[i], (-x * x * x / (s2 * s2 * s2) + 3 * x / (s2 * s2)) * g[i], 1e-16);
  }
  EXPECT_EQ(gaussian_kernel(0.0, 4.0, -1, 2), std::vector<double>{1.0});  // an axis left alone
  expect_error(
      errc::invalid_argument, [] { gaussian_kernel(1.0, 4.0, -1, -1); }, "order");
}

// correlate1d into integers in SciPy's order: where the order of the adds decides an answer's
// truncation, SciPy's answer (worked out from NI_Correlate1D's loops: 43 * 0.8 + (43 + 43) * 0.1
// is 43.0, 43 * 0.1 + 43 * 0.8 + 43 * 0.1 is 42.99999999999999; 3 * 0.7 + (3 + 3) * 0.15 is
// 2.9999999999999996, the other order 3.0), along the last axis and down a middle one (more
// columns than one piece's lanes), on both host backends.
TEST(ScipyOrderPass, AnswersNearWholeNumbersTruncateAsSciPys) {
  const std::vector<double> w1 = {0.1, 0.8, 0.1}, w2 = {0.15, 0.7, 0.15};
  for (backend b : {backend::seq, backend::cpu}) {
    for (std::size_t inner : {std::size_t(1), std::size_t(70)}) {
      const std::size_t outer = 2, n = 9, count = outer * n * inner;
      std::vector<std::uint8_t> x(count, 43), out(count, 0);
      correlate1d_in_scipys_order(b, dtype::u8, x.data(), dtype::u8, out.data(), outer, n, inner,
                                  w1, 0, boundary::reflect, 0.0);
      for (std::uint8_t v : out) ASSERT_EQ(v, 43);
      std::fill(x.begin(), x.end(), std::uint8_t(3));
      correlate1d_in_scipys_order(b, dtype::u8, x.data(), dtype::u8, out.data(), outer, n, inner,
                                  w2, 0, boundary::nearest, 0.0);
      for (std::uint8_t v : out) ASSERT_EQ(v, 2);
    }
  }
}

// Integer weights add exactly in any order: every answer against the sum taken directly (the
// line extended by boundary_index), for every mode, odd and even lengths, origins, the divisor
// (uniform_filter's mean), answers below 0 into unsigned types (wrapped, as C converts) and
// into int64; shapes with a line shorter than the weights.
TEST(ScipyOrderPass, ExactSumsOnEveryModeAndPlacement) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> value(-300, 300);
  struct weights {
    std::vector<double> w;
    long origin;
    double divisor;
  };
  const std::vector<weights> cases = {{{1, 2, 1}, 0, 1},     {{-1, 0, 1}, 0, 1},
                                      {{1, 2, -3, 5}, 0, 1}, {{1, 2, -3, 5}, -2, 1},
                                      {{2, 1, 2}, 1, 1},     {{1, 1, 1, 1}, 1, 4},
                                      {{4}, 0, 1},           {{1, 1, 1, 1, 1, 1, 1}, -3, 7}};
  const std::size_t shapes[][3] = {{1, 1, 1}, {3, 2, 5}, {1, 17, 1}, {2, 40, 67}};
  for (backend b : {backend::seq, backend::cpu})
    for (boundary mode : all_modes)
      for (const weights& c : cases)
        for (const auto& sh : shapes) {
          const std::size_t outer = sh[0], n = sh[1], inner = sh[2], count = outer * n * inner;
          std::vector<std::int16_t> x(count);
          for (auto& v : x) v = std::int16_t(value(rng));
          std::vector<std::uint16_t> got(count);
          std::vector<std::int64_t> wide(count);
          const double cval = 2.0;
          correlate1d_in_scipys_order(b, dtype::i16, x.data(), dtype::u16, got.data(), outer, n,
                                      inner, c.w, c.origin, mode, cval, c.divisor);
          correlate1d_in_scipys_order(b, dtype::i16, x.data(), dtype::i64, wide.data(), outer, n,
                                      inner, c.w, c.origin, mode, cval, c.divisor);
          const long k = long(c.w.size());
          for (std::size_t o = 0; o < outer; ++o)
            for (std::size_t i = 0; i < n; ++i)
              for (std::size_t col = 0; col < inner; ++col) {
                double sum = 0;
                for (long j = 0; j < k; ++j) {
                  const std::int64_t q = detail::boundary_index(
                      std::int64_t(i) + j - k / 2 - c.origin, std::int64_t(n), mode);
                  sum += c.w[std::size_t(j)] *
                         (q < 0 ? cval : double(x[(o * n + std::size_t(q)) * inner + col]));
                }
                const auto want = std::int64_t(std::trunc(sum / c.divisor));
                const std::size_t at = (o * n + i) * inner + col;
                ASSERT_EQ(wide[at], want) << name_of(mode) << " n=" << n << " k=" << k;
                ASSERT_EQ(got[at], std::uint16_t(want)) << name_of(mode);
              }
        }
}

// In place (the passes after the first of a separable filter): the same answers as into
// another array, along each axis of a 3-D array, and a partial overlap refused.
TEST(ScipyOrderPass, InPlaceIsTheSameAsApart) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> value(0, 255);
  const std::size_t dims[3] = {5, 33, 70};
  const std::vector<double> w = {0.2, 0.5, 0.3, 0.1};
  for (backend b : {backend::seq, backend::cpu})
    for (int axis = 0; axis < 3; ++axis) {
      std::size_t outer = 1, inner = 1;
      for (int d = 0; d < axis; ++d) outer *= dims[d];
      for (int d = axis + 1; d < 3; ++d) inner *= dims[d];
      std::vector<std::uint8_t> x(5 * 33 * 70), apart(x.size());
      for (auto& v : x) v = std::uint8_t(value(rng));
      correlate1d_in_scipys_order(b, dtype::u8, x.data(), dtype::u8, apart.data(), outer,
                                  dims[axis], inner, w, -1, boundary::mirror, 0.0);
      correlate1d_in_scipys_order(b, dtype::u8, x.data(), dtype::u8, x.data(), outer, dims[axis],
                                  inner, w, -1, boundary::mirror, 0.0);
      ASSERT_EQ(x, apart) << "axis " << axis;
    }
  std::vector<std::int16_t> y(64, 1);
  expect_error(
      errc::invalid_argument,
      [&] {
        correlate1d_in_scipys_order(backend::seq, dtype::i16, y.data(), dtype::i16, y.data() + 1, 1,
                                    63, 1, w, 0, boundary::reflect, 0.0);
      },
      "overlap");
}

// scipy_integer against SciPy 1.10's own stores (scipy.ndimage.correlate1d(v, [1.0], output=t)
// on Debian 12's x86-64 build), values in and past each type's range, NaN and infinities.
TEST(ScipyOrderPass, ConversionsAreSciPys) {
  const double inf = std::numeric_limits<double>::infinity();
  const double v[] = {3000000001.0,
                      -3000000001.0,
                      1e10 + 7,
                      0x1p63 + 4096,
                      -1e19,
                      2e19,
                      std::numeric_limits<double>::quiet_NaN(),
                      inf,
                      -inf,
                      -300.7,
                      70000.2};
  const std::int64_t i8[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, -44, 112};
  const std::int64_t i32[] = {INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN,
                              INT32_MIN, INT32_MIN, INT32_MIN, -300,      70000};
  const std::int64_t i64[] = {3000000001, -3000000001, 10000000007, INT64_MIN, INT64_MIN, INT64_MIN,
                              INT64_MIN,  INT64_MIN,   INT64_MIN,   -300,      70000};
  const std::uint64_t u16[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 65236, 4464};
  const std::uint64_t u32[] = {3000000001, 1294967295, 1410065415, 0,          0,    0,
                               0,          0,          0,          4294966996, 70000};
  const std::uint64_t u64[] = {3000000001u,
                               18446744070709551615u,
                               10000000007u,
                               9223372036854779904u,
                               9223372036854775808u,
                               0,
                               9223372036854775808u,
                               0,
                               9223372036854775808u,
                               18446744073709551316u,
                               70000};
  for (std::size_t i = 0; i < std::size(v); ++i) {
    EXPECT_EQ(detail::scipy_integer<std::int8_t>(v[i]), i8[i]) << v[i];
    EXPECT_EQ(detail::scipy_integer<std::int32_t>(v[i]), i32[i]) << v[i];
    EXPECT_EQ(detail::scipy_integer<std::int64_t>(v[i]), i64[i]) << v[i];
    EXPECT_EQ(detail::scipy_integer<std::uint16_t>(v[i]), u16[i]) << v[i];
    EXPECT_EQ(detail::scipy_integer<std::uint32_t>(v[i]), u32[i]) << v[i];
    EXPECT_EQ(detail::scipy_integer<std::uint64_t>(v[i]), u64[i]) << v[i];
  }
}

TEST(ScipyOrderPass, ConversionsAndBadCalls) {
  // Answers past the type's range wrap; uint64 takes its whole range; NaN from cval is x86's
  // conversion's least value
  const std::vector<double> one = {1.0};
  const double big[] = {300.0, -1.5, 0x1p63 + 4096.0, -0x1p70};
  std::uint8_t u8[4];
  std::uint64_t u64[4];
  correlate1d_in_scipys_order(backend::seq, dtype::f64, big, dtype::u8, u8, 1, 4, 1, one, 0,
                              boundary::reflect, 0.0);
  EXPECT_EQ(u8[0], 44);
  EXPECT_EQ(u8[1], 255);
  correlate1d_in_scipys_order(backend::seq, dtype::f64, big, dtype::u64, u64, 1, 4, 1, one, 0,
                              boundary::reflect, 0.0);
  EXPECT_EQ(u64[0], 300u);
  EXPECT_EQ(u64[2], (std::uint64_t(1) << 63) + 4096);
  EXPECT_EQ(u64[1], ~std::uint64_t(0));
  EXPECT_EQ(u64[3], std::uint64_t(1) << 63);
  const std::vector<double> three = {1, 1, 1};
  const double edge[] = {1.0};
  std::int32_t i32[1];
  correlate1d_in_scipys_order(backend::cpu, dtype::f64, edge, dtype::i32, i32, 1, 1, 1, three, 0,
                              boundary::constant, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(i32[0], std::numeric_limits<std::int32_t>::min());  // x86's conversion of NaN
  std::int16_t x[4] = {1, 2, 3, 4};
  float f[4];
  auto refused = [&](backend b, dtype out_type, void* out, std::span<const double> w, long origin,
                     const std::string& words) {
    expect_error(
        errc::invalid_argument,
        [&] {
          correlate1d_in_scipys_order(b, dtype::i16, x, out_type, out, 1, 4, 1, w, origin,
                                      boundary::reflect, 0.0);
        },
        words);
  };
  refused(backend::seq, dtype::f32, f, three, 0, "integer type");
  refused(backend::seq, dtype::i16, x, three, 2, "invalid origin");
  refused(backend::cuda, dtype::i16, x, three, 0, "host backends");
  refused(backend::seq, dtype::i16, x, {}, 0, "empty");
}

// scipy.ndimage.correlate's sum, taken directly as NI_Correlate takes it: for each answer, a
// double from 0, + w x for each weight above DBL_EPSILON in C order, each axis extended by
// boundary_index (constant: cval where any axis is outside).
std::vector<double>
scipy_correlate_directly(const std::vector<double>& x, const std::vector<std::size_t>& shape,
                         const std::vector<double>& w, const std::vector<std::size_t>& wshape,
                         const std::vector<long>& origins, boundary mode, double cval) {
  const std::size_t d = shape.size();
  std::vector<double> out(x.size());
  std::vector<std::size_t> i(d), j(d);
  for (std::size_t at = 0; at < x.size(); ++at) {
    for (std::size_t a = d, rest = at; a-- > 0; rest /= shape[a]) i[a] = rest % shape[a];
    double tmp = 0.0;
    for (std::size_t t = 0; t < w.size(); ++t) {
      if (!(std::fabs(w[t]) > std::numeric_limits<double>::epsilon())) continue;
      for (std::size_t a = d, rest = t; a-- > 0; rest /= wshape[a]) j[a] = rest % wshape[a];
      std::size_t from = 0;
      bool inside = true;
      for (std::size_t a = 0; a < d; ++a) {
        const std::int64_t q = detail::boundary_index(std::int64_t(i[a] + j[a]) -
                                                          std::int64_t(wshape[a] / 2) - origins[a],
                                                      std::int64_t(shape[a]), mode);
        inside = inside && q >= 0;
        from = from * shape[a] + std::size_t(std::max<std::int64_t>(q, 0));
      }
      tmp += w[t] * (inside ? x[from] : cval);
    }
    out[at] = tmp;
  }
  return out;
}

// Every answer of correlate_in_scipys_order is the direct sum's, bit for bit (float64 out), and
// its conversion (float32 rounded, integers as C converts): ranks 1 to 4, axes of 1 and shorter
// than the weights, odd and even weights, origins at both ends of SciPy's range, weights of 0
// and below DBL_EPSILON (left out, as SciPy leaves them), every mode, seq, cpu and cuda (its
// general kernel and its tiles).
TEST(ScipyCorrelate, EveryAnswerIsSciPysSumInCOrder) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> value(-40.0, 300.0), weight(-1.0, 1.0);
  struct problem {
    std::vector<std::size_t> shape, wshape;
    std::vector<long> origins;
  };
  const std::vector<problem> problems = {{{1}, {1}, {0}},
                                         {{37}, {4}, {-2}},
                                         {{3}, {7}, {3}},
                                         {{9, 13}, {3, 5}, {0, 0}},
                                         {{1, 70}, {2, 3}, {0, -1}},
                                         {{11, 5}, {6, 1}, {2, 0}},
                                         {{4, 7, 1300}, {3, 2, 4}, {1, -1, 1}},
                                         {{5, 1, 6}, {3, 3, 3}, {-1, 0, 1}},
                                         {{2, 3, 4, 5}, {2, 3, 1, 2}, {0, 1, 0, -1}},
                                         // the GPU's tiles (32 x 64 answers): several, cut
                                         // at both ends, with halos of every side
                                         {{70, 131}, {5, 7}, {1, -3}},
                                         {{40, 80}, {15, 1}, {-7, 0}},
                                         {{3, 9, 66}, {3, 2, 4}, {0, 0, 1}},
                                         {{2, 2, 33, 17}, {1, 2, 3, 3}, {0, 0, -1, 1}}};
  for (const problem& pr : problems) {
    std::size_t count = 1, taps = 1;
    for (std::size_t v : pr.shape) count *= v;
    for (std::size_t v : pr.wshape) taps *= v;
    std::vector<std::int16_t> x(count);
    for (auto& v : x) v = std::int16_t(value(rng));
    std::vector<double> xd(x.begin(), x.end()), w(taps);
    for (std::size_t t = 0; t < taps; ++t)
      w[t] = t % 5 == 3 ? 0.0 : t % 7 == 4 ? 1e-17 : weight(rng);
    // cuda: host arrays copied to the GPU and back (an i16 input into other types widened to
    // float64 on the way), where a GPU is usable
    for (backend b : {backend::seq, backend::cpu, backend::cuda})
      for (boundary mode : all_modes) {
        if (!available(b)) continue;
        const double cval = 2.5;
        const std::vector<double> want =
            scipy_correlate_directly(xd, pr.shape, w, pr.wshape, pr.origins, mode, cval);
        std::vector<double> f64(count);
        std::vector<float> f32(count);
        std::vector<std::uint8_t> u8(count);
        std::vector<std::int32_t> i32(count);
        std::vector<std::int16_t> i16(count);
        correlate_in_scipys_order(b, dtype::i16, x.data(), dtype::f64, f64.data(), pr.shape, w,
                                  pr.wshape, pr.origins, mode, cval);
        correlate_in_scipys_order(b, dtype::i16, x.data(), dtype::f32, f32.data(), pr.shape, w,
                                  pr.wshape, pr.origins, mode, cval);
        correlate_in_scipys_order(b, dtype::i16, x.data(), dtype::u8, u8.data(), pr.shape, w,
                                  pr.wshape, pr.origins, mode, cval);
        correlate_in_scipys_order(b, dtype::f64, xd.data(), dtype::i32, i32.data(), pr.shape, w,
                                  pr.wshape, pr.origins, mode, cval);
        correlate_in_scipys_order(b, dtype::i16, x.data(), dtype::i16, i16.data(), pr.shape, w,
                                  pr.wshape, pr.origins, mode, cval);
        for (std::size_t at = 0; at < count; ++at) {
          ASSERT_EQ(std::bit_cast<std::uint64_t>(f64[at]), std::bit_cast<std::uint64_t>(want[at]))
              << name_of(b) << " " << name_of(mode) << " rank " << pr.shape.size() << " at " << at;
          ASSERT_EQ(f32[at], float(want[at]));
          ASSERT_EQ(u8[at], detail::scipy_integer<std::uint8_t>(want[at]));
          ASSERT_EQ(i32[at], std::int32_t(std::trunc(want[at])));
          ASSERT_EQ(i16[at], detail::scipy_integer<std::int16_t>(want[at]));
        }
      }
  }
}

TEST(ScipyCorrelate, BadCalls) {
  std::vector<float> x(12, 1.0f), out(12);
  const std::vector<std::size_t> shape = {3, 4}, three = {3, 3};
  const std::vector<double> w(9, 1.0);
  const std::vector<long> zero = {0, 0};
  auto refused = [&](backend b, const void* in, void* o, std::vector<std::size_t> ws,
                     std::vector<long> origins, std::size_t weights, const std::string& words) {
    expect_error(
        errc::invalid_argument,
        [&] {
          correlate_in_scipys_order(b, dtype::f32, in, dtype::f32, o, shape,
                                    std::span<const double>(w.data(), weights), ws, origins,
                                    boundary::reflect, 0.0);
        },
        words);
  };
  refused(backend::seq, x.data(), out.data(), {3}, {0}, 3, "one entry per axis");
  refused(backend::seq, x.data(), out.data(), three, {0, 2}, 9, "invalid origin");
  refused(backend::seq, x.data(), out.data(), {3, 0}, zero, 0, "empty");
  refused(backend::seq, x.data(), out.data(), three, zero, 8, "holds 9 values");
  refused(backend::mpi, x.data(), out.data(), three, zero, 9, "host arrays on seq, cpu or cuda");
  refused(backend::cpu, x.data(), x.data() + 2, three, zero, 9, "overlap");
}

}  // namespace
}  // namespace pplab::test
