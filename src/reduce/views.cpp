// pplab::reduce_view: a strided view of host memory (NumPy's shape and strides: a transposed,
// reversed or sliced array) reduced where it lies, whole or along one axis, with no copy.
// The view is walked in lines: runs along one axis, each a pointer, a stride and a length. A
// whole reduction takes its lines along the axis of the smallest stride (the one that walks
// memory most nearly in order), in groups of lines reduced each into one partial, the partials
// combined in group order: the same bits on every run, whatever the thread count. An axis
// reduction walks each answer's line where that axis has the smallest stride; else it keeps the
// accumulators of 64 neighbouring answers (along the kept axis of the smallest stride) and walks
// down the reduced axis once for all of them, as reduce_axis does for C-ordered arrays.
// argmin and argmax count indices in the view's own C order (the whole view), or along the axis.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "reduce/reduce_common.hpp"
#include "reduce/rung.hpp"

namespace pplab {
namespace {

using detail::acc_t;
using detail::combine;
using detail::identity;
using detail::lift_less;

// One line's elements p[i * step], i < len, the i-th with index index0 + i * index_step, folded
// into 8 accumulators (the adds of neighbours do not wait on each other) met in a fixed order.
// var's and std's moments are of the values less `shift` (shift_for, reduce_common.hpp).
template <class T, op O>
acc_t<T, O> fold_line(const T* p, std::ptrdiff_t step, std::size_t len, std::size_t index0,
                      std::size_t index_step, double shift) {
  using A = acc_t<T, O>;
  constexpr std::size_t k = 8;
  A acc[k];
  for (A& a : acc) a = identity<T, O>();
  std::size_t i = 0;
  for (; i + k <= len; i += k)
    for (std::size_t j = 0; j < k; ++j)
      acc[j] = combine<T, O>(acc[j], lift_less<T, O>(p[std::ptrdiff_t(i + j) * step],
                                                     index0 + (i + j) * index_step, shift));
  for (; i < len; ++i)
    acc[0] = combine<T, O>(
        acc[0], lift_less<T, O>(p[std::ptrdiff_t(i) * step], index0 + i * index_step, shift));
  for (std::size_t j = 1; j < k; ++j) acc[0] = combine<T, O>(acc[0], acc[j]);
  return acc[0];
}

// The view's axes other than `skip`, as mixed-radix digits: for the q-th combination in C
// order, the element offset (in elements, from data) and the C-order index in the whole view.
struct odometer {
  std::vector<std::size_t> extent;
  std::vector<std::ptrdiff_t> stride;
  std::vector<std::size_t> weight;  // the axis's step of the view's C-order index
  void at(std::size_t q, std::ptrdiff_t& offset, std::size_t& index) const {
    offset = 0, index = 0;
    for (std::size_t d = extent.size(); d-- > 0;) {
      const std::size_t c = q % extent[d];
      q /= extent[d];
      offset += std::ptrdiff_t(c) * stride[d], index += c * weight[d];
    }
  }
};

odometer axes_but(std::span<const std::size_t> shape, std::span<const std::ptrdiff_t> strides,
                  std::size_t skip) {
  odometer od;
  std::size_t w = 1;
  std::vector<std::size_t> weight(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) weight[d] = w, w *= shape[d];
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (d != skip)
      od.extent.push_back(shape[d]), od.stride.push_back(strides[d]),
          od.weight.push_back(weight[d]);
  return od;
}

// The axis (of those in `axes`, longer than one) of the smallest |stride|, the later on ties;
// shape.size() when there is none.
std::size_t smallest_stride(std::span<const std::size_t> shape,
                            std::span<const std::ptrdiff_t> strides,
                            const std::vector<std::size_t>& axes) {
  std::size_t best = shape.size();
  for (std::size_t d : axes)
    if (shape[d] > 1 && (best == shape.size() || std::abs(strides[d]) <= std::abs(strides[best])))
      best = d;
  return best;
}

constexpr std::size_t group_elements = std::size_t(1) << 16;  // a whole reduction's task
constexpr std::size_t column_block = 64;

template <class T, op O>
scalar reduce_whole(backend where, const T* data, std::span<const std::size_t> shape,
                    std::span<const std::ptrdiff_t> strides, op what, std::size_t n) {
  using A = acc_t<T, O>;
  std::vector<std::size_t> all(shape.size());
  for (std::size_t d = 0; d < all.size(); ++d) all[d] = d;
  std::size_t axis = smallest_stride(shape, strides, all);
  if (axis == shape.size()) axis = shape.empty() ? 0 : shape.size() - 1;  // every axis of one
  const std::size_t len = shape.empty() ? 1 : shape[axis];
  const std::ptrdiff_t step = shape.empty() ? 1 : strides[axis];
  const odometer od = shape.empty() ? odometer{} : axes_but(shape, strides, axis);
  std::size_t index_step = 1;
  for (std::size_t d = axis + 1; d < shape.size(); ++d) index_step *= shape[d];
  const std::size_t lines = len ? n / len : 0;
  const std::size_t per_group = std::max<std::size_t>(1, group_elements / std::max<std::size_t>(len, 1));
  const std::size_t groups = (lines + per_group - 1) / per_group;
  std::vector<A> partial(groups, identity<T, O>());
  // one shift for every line: that of the first line (the view's first element on)
  const double shift = n ? detail::shift_for<T, O>(data, len, step) : 0.0;
#pragma omp parallel for schedule(static) if (where == backend::cpu && groups > 1)
  for (std::ptrdiff_t g = 0; g < std::ptrdiff_t(groups); ++g) {
    A acc = identity<T, O>();
    const std::size_t q1 = std::min(lines, (std::size_t(g) + 1) * per_group);
    for (std::size_t q = std::size_t(g) * per_group; q < q1; ++q) {
      std::ptrdiff_t offset;
      std::size_t index;
      od.at(q, offset, index);
      acc = combine<T, O>(acc, fold_line<T, O>(data + offset, step, len, index, index_step, shift));
    }
    partial[std::size_t(g)] = acc;
  }
  A acc = identity<T, O>();
  for (const A& p : partial) acc = combine<T, O>(acc, p);
  return detail::answer_of(detail::shifted_back<T, O>(acc, shift), what, n);
}

template <class T, op O>
void reduce_along(backend where, const T* data, std::span<const std::size_t> shape,
                  std::span<const std::ptrdiff_t> strides, std::size_t axis, op what,
                  scalar* out) {
  using A = acc_t<T, O>;
  const std::size_t len = shape[axis];
  const std::ptrdiff_t step = strides[axis];
  std::vector<std::size_t> kept;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (d != axis) kept.push_back(d);
  const std::size_t j = smallest_stride(shape, strides, kept);
  std::size_t answers = 1;
  for (std::size_t d : kept) answers *= shape[d];
  // The kept axes as an odometer over the answers (C order of the answers).
  std::vector<std::size_t> ashape;
  std::vector<std::ptrdiff_t> astrides;
  for (std::size_t d : kept) ashape.push_back(shape[d]), astrides.push_back(strides[d]);
  if (j == shape.size() || std::abs(step) <= std::abs(strides[j])) {
    // Each answer's own line along the axis.
    const odometer od = axes_but(ashape, astrides, ashape.size());
#pragma omp parallel for schedule(static) if (where == backend::cpu && answers > 1)
    for (std::ptrdiff_t q = 0; q < std::ptrdiff_t(answers); ++q) {
      std::ptrdiff_t offset;
      std::size_t index;
      od.at(std::size_t(q), offset, index);
      const double shift = detail::shift_for<T, O>(data + offset, len, step);
      out[q] = detail::answer_of(
          detail::shifted_back<T, O>(fold_line<T, O>(data + offset, step, len, 0, 1, shift), shift),
          what, len);
    }
    return;
  }
  // Blocks of 64 answers along kept axis j, walked down the axis together.
  const std::size_t jk = std::size_t(std::find(kept.begin(), kept.end(), j) - kept.begin());
  const std::size_t width = ashape[jk];
  const std::ptrdiff_t jstep = astrides[jk];
  std::size_t out_step = 1;  // the answers' C-order step along j
  for (std::size_t d = jk + 1; d < ashape.size(); ++d) out_step *= ashape[d];
  const odometer od = axes_but(ashape, astrides, jk);
  const std::size_t outer = answers / width, blocks = (width + column_block - 1) / column_block;
#pragma omp parallel for schedule(static) if (where == backend::cpu && outer * blocks > 1)
  for (std::ptrdiff_t t = 0; t < std::ptrdiff_t(outer * blocks); ++t) {
    const std::size_t q = std::size_t(t) / blocks, x0 = std::size_t(t) % blocks * column_block;
    const std::size_t w = std::min(column_block, width - x0);
    std::ptrdiff_t offset;
    std::size_t index;
    od.at(q, offset, index);
    const T* first = data + offset + std::ptrdiff_t(x0) * jstep;
    A acc[column_block];
    double shift[column_block];
    for (std::size_t c = 0; c < w; ++c)
      acc[c] = identity<T, O>(),
      shift[c] = detail::shift_for<T, O>(first + std::ptrdiff_t(c) * jstep, len, step);
    for (std::size_t y = 0; y < len; ++y) {
      const T* row = first + std::ptrdiff_t(y) * step;
      for (std::size_t c = 0; c < w; ++c)
        acc[c] =
            combine<T, O>(acc[c], lift_less<T, O>(row[std::ptrdiff_t(c) * jstep], y, shift[c]));
    }
    for (std::size_t c = 0; c < w; ++c)
      out[index + (x0 + c) * out_step] =
          detail::answer_of(detail::shifted_back<T, O>(acc[c], shift[c]), what, len);
  }
}

}  // namespace

void reduce_view(backend where, dtype t, const void* data, std::span<const std::size_t> shape,
                 std::span<const std::ptrdiff_t> strides, int axis, op o, scalar* out) {
  o = detail::as_for(t, o);
  if (where != backend::seq && where != backend::cpu)
    fail(errc::unsupported, "reduce_view: a strided view is reduced on the host backends (seq, "
                            "cpu), not on '" + std::string(name_of(where)) + "'");
  if (shape.size() != strides.size())
    fail(errc::invalid_argument, "reduce_view: " + std::to_string(shape.size()) +
                                     " extents but " + std::to_string(strides.size()) +
                                     " strides");
  if (axis >= int(shape.size()))
    fail(errc::invalid_argument, "reduce_view: axis " + std::to_string(axis) +
                                     " is out of bounds for a view of " +
                                     std::to_string(shape.size()) + " axes");
  std::size_t n = 1;
  for (std::size_t e : shape) {
    if (e && n > std::size_t(-1) / e)
      fail(errc::invalid_argument, "reduce_view: the view's size overflows the size type");
    n *= e;
  }
  if (!out) fail(errc::invalid_argument, "reduce_view: out is null");
  if (n && !data) fail(errc::invalid_argument, "reduce_view: data is null");
  const std::size_t len = axis < 0 ? n : shape[std::size_t(axis)];
  if (axis >= 0 && n == 0 && len != 0) return;  // no answers
  if (len == 0 && (o == op::mean || is_arg(o)))
    fail(errc::invalid_argument, "reduce_view: " + std::string(name_of(o)) + " of an empty " +
                                     (axis < 0 ? "sequence" : "axis"));
  detail::visit_reduce<true, true, true>(t, o, [&](auto tag, auto otag) {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    const auto* x = static_cast<const T*>(data);
    if (axis < 0) *out = reduce_whole<T, O>(where, x, shape, strides, o, n);
    else reduce_along<T, O>(where, x, shape, strides, std::size_t(axis), o, out);
  });
}

}  // namespace pplab
