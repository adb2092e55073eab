#pragma once
// The convolution module's types: what a rung is asked (the problem), where its image, mask and
// output are (the call), its ladder's policy, and the run path the API, the CLI, the lab and the
// tests share. Rungs compute the correlation; convolve flips the mask before (api.cpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convolution/boundary.hpp"
#include "core/run.hpp"
#include "pplab/convolution.hpp"
#include "pplab/dtype.hpp"

namespace pplab::detail {

struct convolution_problem {
  static constexpr std::string_view pattern = "convolution";
  dtype type;              // f32 or f64
  std::size_t rows, cols;  // the image's and the output's (on mpi: the whole image's)
  std::size_t kh, kw;      // the mask's, each odd, 1 to max_mask_side
  boundary mode;
  double cval;
  // The mask is an outer product, mask[i][j] = col[i] * row[j] (a Gaussian, a box, a Sobel
  // part): the call's mask buffer then holds the kh x kw values followed by col (kh values) and
  // row (kw values), and the separable rungs can run it as two 1-D passes.
  bool separable = false;
  // A u8 image (type u8): its interleaved channels (1, 3 or 4), each filtered on its own in f32
  // (the call's mask in f32), and the output's type: f32, or u8 rounded and saturated
  // (pplab/convolution.hpp). An f32 or f64 image has one channel and an output of its type.
  std::size_t channels = 1;
  bool u8_out = false;
  // A stack of images of rows x cols (filter_options::planes), the call's plane_in and plane_out
  // apart. Only a rung that says so takes more than one (float_stack); the API runs the others
  // plane by plane.
  std::size_t planes = 1;
};
struct convolution_call {
  convolution_problem p;
  const void* in;  // rows x cols (x channels), row stride ld_in elements (mpi: this rank's rows)
  std::size_t ld_in;
  // kh x kw in the problem's type, in HOST memory on every backend: a parameter of the call, as
  // matmul's alpha is (a device rung copies it to its constant or global memory on the stream).
  // A separable problem's factors follow it (convolution_problem::separable).
  const void* mask;
  void* out;  // rows x cols, row stride ld_out elements
  std::size_t ld_out;
  void* scratch;
  void* stream;
  std::size_t plane_in = 0, plane_out = 0;  // elements from one plane to the next (p.planes > 1)
};
using convolution_rung = basic_rung<convolution_problem, convolution_call>;
// The ladder: defined by the build from the backend folders compiled (cmake/patterns.cmake).
template <> const std::vector<convolution_rung>& rungs_of<convolution_rung>();
template <> const std::vector<convolution_rung>& rungs_on<convolution_rung>(backend b);

// The problem's class for `pplab tune`'s choices (pplab/tuning.hpp), such as "f32 7x7 px~2^26".
std::string tune_key(const convolution_problem& p);

// The API's rungs for backend b, in order of preference (policy.cpp).
std::vector<std::string_view> policy(backend b, const convolution_problem& p);
// The variant "split_tf32"'s rungs for backend b, in order of preference (policy.cpp).
std::vector<std::string_view> split_tf32_policy(backend b, const convolution_problem& p);

// f32 or f64 images (one channel, an output of its type), a stack of them too, the mask of any
// size the API takes (a line of up to max_line_taps taps too).
inline bool float_stack(const convolution_problem& p) {
  return (p.type == dtype::f32 || p.type == dtype::f64) && p.channels == 1 && !p.u8_out;
}
// The same, one image: the rungs whose taps are a run-time loop.
inline bool float_image(const convolution_problem& p) { return float_stack(p) && p.planes == 1; }
// The same with each side at most max_mask_side: what the other rungs take.
inline bool float_or_double(const convolution_problem& p) {
  return float_image(p) && p.kh <= max_mask_side && p.kw <= max_mask_side;
}
// An outer-product mask of one f32 or f64 image, each side to max_separable_side: the separable
// rungs whose taps are a run-time count.
inline bool float_separable(const convolution_problem& p) {
  return float_image(p) && p.separable && p.kh <= max_separable_side && p.kw <= max_separable_side;
}
inline bool u8_image(const convolution_problem& p) { return p.type == dtype::u8 && p.planes == 1; }
// The type the rungs compute in and take the mask in (f32 for a u8 image), and the output's.
inline dtype compute_type(const convolution_problem& p) {
  return p.type == dtype::u8 ? dtype::f32 : p.type;
}
inline dtype output_type(const convolution_problem& p) {
  return p.type == dtype::u8 && p.u8_out ? dtype::u8 : compute_type(p);
}
// A computed value stored as a u8 output: rounded to nearest, ties to even, saturated, NaN as 0.
inline std::uint8_t saturate_u8(double v) {
  if (!(v > 0)) return 0;  // NaN too
  if (v >= 255) return 255;
  return std::uint8_t(std::nearbyint(v));  // ties to even in the default rounding mode
}

// The input rows that output rows [first, first + count) read, as image row indices before the
// mode maps them (boundary_index): [from, to), kh/2 rows past each end, except in constant mode,
// where they stop at the image's edges. Filtered as an image of their own by any rung, these
// rows give output rows [first, first + count) at rows [first - from, ...) of its output, with the
// taps (and the bits) of the whole image: the rung's boundary at the band's own edges reaches only
// the rows before and after them, or, in constant mode, is the image's own. How a host image is
// streamed through a GPU in slabs (api.cpp) and how the nccl rung fills its GPUs' edge rows.
struct halo_rows {
  std::int64_t from, to;
  std::size_t rows() const { return std::size_t(to - from); }
};
inline halo_rows rows_with_halo(const convolution_problem& p, std::size_t first,
                                std::size_t count) {
  const auto rh = std::int64_t(p.kh / 2), lo = std::int64_t(first) - rh,
             hi = std::int64_t(first + count) + rh;
  if (p.mode != boundary::constant) return {lo, hi};
  return {std::max<std::int64_t>(lo, 0), std::min(hi, std::int64_t(p.rows))};
}

// The rows of h in order as runs of consecutive image rows: f(the run's first image row, its
// rows, its first row's place in h). The interior is one run; a halo the mode maps backwards
// (reflect, mirror) comes a row at a time.
template <class F> void for_each_row_run(const convolution_problem& p, halo_rows h, F&& f) {
  const auto rows = std::int64_t(p.rows);
  for (std::int64_t y = h.from; y < h.to;) {
    const std::int64_t at = boundary_index(y, rows, p.mode);
    std::int64_t run = 1;
    while (y + run < h.to && boundary_index(y + run, rows, p.mode) == at + run) ++run;
    f(std::size_t(at), std::size_t(run), std::size_t(y - h.from));
    y += run;
  }
}

// From this many bytes of input up, a host image on a device is streamed in row slabs with their
// halos (executor::stream_slabs), its copies in and out overlapping the filtering, so that it
// need not fit the device; below, it is copied in whole.
inline constexpr std::size_t slab_streaming_bytes = std::size_t(32) << 20;

// The call's image and output are host memory (the mask always is), a stack of them too
// (p.planes, the call's plane strides); scratch and stream are ignored. Through the executor of r's backend (or `ex`): in place on the host, copied in and
// out elsewhere.
void run_rung(const convolution_rung& r, const convolution_call& host_call);
void run_rung(const convolution_rung& r, executor& ex, const convolution_call& host_call);

// The largest error a correct rung may make on each output, against the reference (seq c01,
// which accumulates in double as SciPy does): dot_tolerance (core/verify.hpp) of the mask's taps
// times the sum of |mask| x |input| over them (`scale`, computed by reference_scale).
// The factors col (kh) and row (kw) of a finite mask that is an outer product to within a few
// roundings of each weight (box, Gaussian and Sobel masks are), or nothing.
bool factor_mask(const double* mask, std::size_t kh, std::size_t kw, std::vector<double>& col,
                 std::vector<double>& row);

// The notes' "operations per loaded value" of a block that computes an out_w x out_h tile of
// outputs: the mask's multiply-adds per value loaded, if each input were loaded once (no halo)
// and with the tile's halo, as the lab's note on a tiled rung's row says it.
std::string tile_intensity(const convolution_problem& p, std::size_t out_w, std::size_t out_h);

// `tf32_split`: a rung whose products are each three TF32 products (rung_info::tf32_split), held
// to split_tf32_tolerance instead.
bool close_to_reference(dtype t, std::size_t taps, double got, double want, double scale,
                        bool tf32_split = false);
// The same for an output of problem p, as rung `held_as` computes it (null: the API's answer):
// a u8 output is the rounding of a value within the tolerance of `want`, or for a rung that
// truncates (rung_info::truncates) its truncation toward zero; a split-TF32 rung
// (rung_info::tf32_split) is held to split_tf32_tolerance.
bool output_close_to_reference(const convolution_problem& p, double got, double want, double scale,
                               const rung_info* held_as = nullptr);
// The reference answer in double (`want`, rows x cols x channels, packed) and the scale of each
// output's rounding error (`scale`: the sum of |mask| x |input| over its taps), the mask and the
// inputs taken in the image's type as the rungs take them; on every core.
void reference_correlation(const convolution_problem& p, const void* in, std::size_t ld_in,
                           const double* mask, double* want, double* scale);

}  // namespace pplab::detail
