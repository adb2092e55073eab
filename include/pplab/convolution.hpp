#pragma once
// 2-D correlation and convolution of an image with a small mask, the output the image's size, as
// scipy.ndimage.correlate and scipy.ndimage.convolve compute them, with their boundary modes:
//
//   correlate: out[y][x] = sum over i < kh, j < kw of mask[i][j] * in[y + i - kh/2][x + j - kw/2]
//   convolve:  the same with the mask flipped in both axes
//
// where a position outside the image is read as the boundary mode says (for the row
// "a b c d"): reflect "d c b a | a b c d | d c b a", mirror "d c b | a b c d | c b a", nearest
// "a a a | a b c d | d d d", wrap "a b c d | a b c d | a b c d", constant "k k k | a b c d | k k
// k" (k = cval). The mask is kh x kw, each side odd, 1 to 31 (to max_line_taps for one row or one
// column, to max_separable_side for an outer product). f32 and f64 images, row-major with
// a row stride (in elements); the mask is given in double and used in the image's type.
//
// u8 images (dtype u8) have 1, 3 or 4 interleaved channels per pixel (filter_options::channels),
// each filtered on its own, in f32 (the mask taken in f32): `cols` counts pixels, ld_in counts
// bytes and ld_out output elements (each at least cols x channels). The output is f32, or u8
// when filter_options::u8_output asks: rounded to nearest (ties to even) and saturated to 0..255,
// NaN as 0 (as OpenCV's saturate_cast and NPP's filters round).
//
// On the mpi backend `in` and `out` are this rank's rows of the image (pplab::part_of(rows, rank,
// ranks): rank r holds rows [first, first + count)); `rows` is the whole image's, and every rank
// passes the same shape, mask and options.
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "backend.hpp"
#include "dtype.hpp"

namespace pplab {

enum class boundary { reflect, constant, nearest, mirror, wrap };
std::string_view name_of(boundary b) noexcept;
// "reflect", "constant", "nearest", "mirror", "wrap" (SciPy's names; "grid-mirror",
// "grid-constant" and "grid-wrap" are SciPy's synonyms of reflect, constant and wrap for filters).
boundary parse_boundary(std::string_view name);

struct filter_options {
  boundary mode = boundary::reflect;  // SciPy's default
  double cval = 0;                    // the value outside the image in constant mode
  std::size_t channels = 1;           // a u8 image's interleaved channels: 1, 3 or 4
  bool u8_output = false;             // a u8 image's output as u8 (rounded, saturated), not f32
  // A stack of `planes` images of rows x cols, each filtered on its own: image i at in +
  // i * plane_in elements, its output at out + i * plane_out (a 3-D array's middle axis as
  // (planes, rows, cols), filtered down its rows with a k x 1 mask, where no copy moves the axis).
  // The outputs' planes may not overlap; plane_in may be 0 (one image, every output the same).
  // Not on the mpi backend, whose ranks hold rows of one image.
  std::size_t planes = 1, plane_in = 0, plane_out = 0;
};

inline constexpr std::size_t max_mask_side = 31;
// A mask of one row (1 x k) or one column (k x 1) of an f32 or f64 image, a 1-D pass (SciPy's
// correlate1d, one axis of a Gaussian of large sigma), may be longer: up to max_line_taps taps.
inline constexpr std::size_t max_line_taps = 255;
// A mask that is an outer product (mask[i][j] = col[i] row[j]: a Gaussian, a box) of an f32 or f64
// image may have sides up to max_separable_side (a Gaussian of sigma 4 is 33 x 33, of sigma 7 57 x
// 57): filtered as two 1-D passes.
inline constexpr std::size_t max_separable_side = 63;

void correlate(backend where, dtype t, const void* in, std::size_t rows, std::size_t cols,
               std::size_t ld_in, const double* mask, std::size_t kh, std::size_t kw, void* out,
               std::size_t ld_out, const filter_options& o = {}, const rung_choice& how = {});
void convolve(backend where, dtype t, const void* in, std::size_t rows, std::size_t cols,
              std::size_t ld_in, const double* mask, std::size_t kh, std::size_t kw, void* out,
              std::size_t ld_out, const filter_options& o = {}, const rung_choice& how = {});

// scipy.ndimage's 1-D kernels, from which its named filters (gaussian_filter, uniform_filter,
// sobel, correlate1d) are made: one per axis, their outer product a separable mask.
//
// gaussian_filter's kernel, by SciPy's formula: exp(-0.5 / sigma^2 * x^2) for |x| <= radius
// (int(truncate * sigma + 0.5), or `radius` when it is 0 or more), over its sum (added in
// NumPy's pairwise order). The C library's exp may differ from NumPy's vectorized one in the last
// bit of a tap (a relative 2e-16). A sigma of 1e-15 or less is the one tap 1 (SciPy leaves
// such an axis alone). A negative or non-finite sigma, or a radius past 2^20, is an error.
// `order` > 0: the order-th derivative of that Gaussian, as SciPy's _gaussian_kernel1d builds it
// (a polynomial q(x) times the normalised kernel, q from q' + q p' applied `order` times with
// p'(x) = -x / sigma^2); like SciPy's, it is the kernel before gaussian_filter1d reverses it for
// the correlation. A negative order is an error.
std::vector<double> gaussian_kernel(double sigma, double truncate = 4.0, long radius = -1,
                                    int order = 0);

// The weights w placed as scipy.ndimage.correlate1d places them, out[i] = sum over j of
// w[j] * x[i + j - size(w) / 2 - origin], as the odd-length mask of the same answer (centred,
// with zeros where an even length or the origin moves w off the centre). The origin must lie in
// SciPy's range, -(size / 2) to (size - 1) / 2.
std::vector<double> placed_kernel(std::span<const double> w, long origin = 0);

// scipy.ndimage.correlate1d into an integer type, as SciPy computes it (its named filters' passes
// into integers: gaussian_filter, sobel, prewitt, correlate1d of a uint8 image): the array `in`
// (any dtype) is (outer, n, inner) in C order, the pass along n; `out` (an integer dtype, C order,
// the same shape) gets out[i] = sum over j of weights[j] * in[i + j - size / 2 - origin] (the line
// extended as `mode` says, cval outside in constant mode), over `divisor` (uniform_filter's mean:
// `size` ones over size), converted as C converts (toward zero, modulo the type's range). Each
// answer is added in double in SciPy's order (symmetric and antisymmetric odd weights by pairs,
// the outermost first; others the last weight first), so that an answer near a whole number
// truncates as SciPy's does. Host arrays, on seq (one thread) or cpu (all).
void correlate1d_in_scipys_order(backend where, dtype in_type, const void* in, dtype out_type,
                                 void* out, std::size_t outer, std::size_t n, std::size_t inner,
                                 std::span<const double> weights, long origin, boundary mode,
                                 double cval, double divisor = 1.0);

// scipy.ndimage.correlate of an array of any rank, as SciPy computes it (pplab::correlate and
// the separable rungs compute in the image's type, and only 2-D images with odd masks): `in`
// (any dtype) and `out` (any dtype, apart from `in`) of `shape` in C order, the weights of
// `weights_shape` (as many axes, each at least 1) in C order: out[i] = sum over the weights'
// positions j of w[j] * in[i + j - weights_shape / 2 - origins] (each axis extended as `mode`
// says; in constant mode a position outside on any axis reads cval). As NI_Correlate adds it:
// in double from 0, the weights of magnitude above DBL_EPSILON alone, in the weights' C order,
// each product and sum rounded on its own; converted to out's type as C converts (integers
// toward zero and modulo their range, float32 rounded to nearest). So every answer is SciPy's,
// bit for bit, for every input and output type. Each origin in SciPy's range, -(k / 2) to
// (k - 1) / 2. Host arrays, on seq (one thread), cpu (all) or cuda (copied to the GPU whole and
// back; the same bits).
void correlate_in_scipys_order(backend where, dtype in_type, const void* in, dtype out_type,
                               void* out, std::span<const std::size_t> shape,
                               std::span<const double> weights,
                               std::span<const std::size_t> weights_shape,
                               std::span<const long> origins, boundary mode, double cval);

}  // namespace pplab
