// pplab::histogram2d: numpy.histogram2d as the histogram notes' two-dimensional application (a
// joint colour histogram, a heat map of points): each point's 2-D bin computed once, as one
// 32-bit slot (points_2d.hpp), then counted, or its weights summed, by the 1-D histogram's
// rungs over bins one wide (x_bins x y_bins of them and one for the points outside), so every
// rung, backend and check of the 1-D histogram serves the 2-D one.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/executor.hpp"
#include "core/run.hpp"
#include "core/visit.hpp"
#include "histogram/binning.hpp"
#include "histogram/counted_on_host.hpp"
#include "histogram/points_nd.hpp"
#include "histogram/rung.hpp"
#include "pplab/device.hpp"
#include "pplab/histogram.hpp"

namespace pplab {

namespace detail {

// Calls f(slot_of) with the points' dtype: slot_of(i) is point i's slot on the host, x's bin
// times y's bin count plus y's, or ax.bins x ay.bins (outside) for a point past either axis.
template <class F>
void with_slots_2d(dtype t, const void* x, const void* y, axis_edges ax, axis_edges ay, F&& f) {
  const edge_lookup_binner bx(ax.edges, ax.bins, ax.table), by(ay.edges, ay.bins, ay.table);
  const std::size_t outside = ax.bins * ay.bins;
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x);
    const T* py = static_cast<const T*>(y);
    f([&](std::size_t i) {
      const std::size_t i_x = bx(px[i]), i_y = by(py[i]);
      return i_x < ax.bins && i_y < ay.bins ? i_x * ay.bins + i_y : outside;
    });
  });
}

void bin_points_2d_host(dtype t, const void* x, const void* y, std::size_t n, axis_edges ax,
                        axis_edges ay, std::uint32_t* slots, bool threads) {
  with_slots_2d(t, x, y, ax, ay, [&](const auto& slot_of) {
#pragma omp parallel for schedule(static) if (threads)
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i)
      slots[i] = std::uint32_t(slot_of(std::size_t(i)));
  });
}

}  // namespace detail

namespace {

using axis = detail::host_axis;

// The 1-D histogram of the slots: bins one wide over [0, x_bins x y_bins], the last the points
// outside.
histogram_options slot_options(const axis& ax, const axis& ay, const histogram2d_options& o) {
  const std::size_t inside = ax.bins() * ay.bins();
  if (inside + 1 > max_bins)
    fail(errc::invalid_argument, "histogram2d: " + std::to_string(ax.bins()) + " x " +
                                     std::to_string(ay.bins()) +
                                     " bins; at most 2^24 - 1 (16777215) together");
  histogram_options s;
  s.bins = inside + 1, s.lo = 0.0, s.hi = double(inside + 1);
  s.weights = o.weights, s.weight_type = o.weight_type;
  return s;
}

histogram2d_result result_of(const axis& ax, const axis& ay, histogram_result r) {
  histogram2d_result out;
  out.x_bins = ax.bins(), out.y_bins = ay.bins();
  out.x_edges.assign(ax.edges.begin(), ax.edges.end());
  out.y_edges.assign(ay.edges.begin(), ay.edges.end());
  detail::slots_into(out, std::move(r), out.x_bins * out.y_bins);
  return out;
}

void check_points(const void* x, const void* y, std::size_t n, const histogram2d_options& o) {
  if (n && (!x || !y))
    fail(errc::invalid_argument, "histogram2d: x or y is null but n = " + std::to_string(n));
  if (o.weights && o.weight_type != dtype::f32 && o.weight_type != dtype::f64)
    fail(errc::invalid_argument,
         "histogram2d: weights are float32 or float64, not " + std::string(name_of(o.weight_type)));
}

}  // namespace

std::vector<double> even_edges(double lo, double hi, std::size_t bins) {
  if (bins < 1 || !std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
    fail(errc::invalid_argument, "even_edges: bins >= 1 over a finite range lo < hi");
  std::vector<double> e(bins + 1);
  const double step = (hi - lo) / double(bins);
  for (std::size_t i = 0; i < bins; ++i) e[i] = detail::mul_add_rounded(double(i), step, lo);
  e[bins] = hi;
  return e;
}

std::vector<double> histogram2d_result::density() const {
  // As numpy.histogramdd: each bin over its widths on both axes, then over the bins' total.
  std::vector<double> out(x_bins * y_bins);
  double total = 0;
  for (std::size_t b = 0; b < out.size(); ++b) total += weighted ? sums[b] : double(counts[b]);
  for (std::size_t i = 0; i < x_bins; ++i)
    for (std::size_t j = 0; j < y_bins; ++j) {
      const std::size_t b = i * y_bins + j;
      out[b] = (weighted ? sums[b] : double(counts[b])) / (x_edges[i + 1] - x_edges[i]) /
               (y_edges[j + 1] - y_edges[j]) / total;
    }
  return out;
}

namespace {

// Host points counted where their bins are found (counted_on_host.hpp).
histogram2d_result counted_on_host(backend where, dtype t, const void* x, const void* y,
                                   std::size_t n, const axis& ax, const axis& ay,
                                   const histogram2d_options& o) {
  histogram_result r;
  detail::with_slots_2d(t, x, y, ax.on_host(), ay.on_host(), [&](const auto& slot_of) {
    r = detail::counted_on_host("histogram2d", where, n, ax.bins() * ay.bins() + 1, o.weights,
                                o.weight_type, slot_of);
  });
  return result_of(ax, ay, std::move(r));
}

}  // namespace

histogram2d_result histogram2d(backend where, dtype t, const void* x, const void* y, std::size_t n,
                               const histogram2d_options& o, const rung_choice& how) {
  detail::require_backend(where);
  check_points(x, y, n, o);
  const axis ax(o.x_edges, "histogram2d (x edges)"), ay(o.y_edges, "histogram2d (y edges)");
  const histogram_options s = slot_options(ax, ay, o);
  if (how.rung.empty() && detail::counted_on_host_fits(where, s.bins)) {
    histogram2d_result out = counted_on_host(where, t, x, y, n, ax, ay, o);
    if (how.ran) *how.ran = out.rung;
    return out;
  }
  // The slots on the host's cores (a rank's own points on mpi), then counted on `where`.
  std::vector<std::uint32_t> slots(n);
  detail::bin_points_2d_host(t, x, y, n, ax.on_host(), ay.on_host(), slots.data(),
                             where != backend::seq);
  return result_of(ax, ay, histogram(where, dtype::u32, slots.data(), n, s, how));
}

namespace {

// The id the result gives for the points counted where their bins are found (points_2d.hpp).
constexpr const char* counted_where_found = "histogram2d/cuda/counted_where_found";

// The points on the GPU counted (or their weights summed) into device_counts: x_bins x y_bins
// entries, then the points outside. Returns the rung that counted.
std::string counted_on_device(dtype t, const void* x, const void* y, std::size_t n, const axis& ax,
                              const axis& ay, const histogram2d_options& o, const rung_choice& how,
                              std::uint64_t* device_counts) {
  detail::executor& ex = detail::executor_for(backend::cuda);
  if (n && (!ex.holds(x) || !ex.holds(y)))
    fail(errc::invalid_argument, "histogram2d: x and y are not device memory; pass host points "
                                 "through pplab::histogram2d(pplab::cuda, ...)");
  if (n && o.weights && !ex.holds(o.weights))
    fail(errc::invalid_argument, "histogram2d: the weights are not device memory, where x and y "
                                 "are");
  const histogram_options s = slot_options(ax, ay, o);
  // Both axes' edges and tables on the GPU in one buffer, sent with one copy (each copy of
  // pageable memory is waited for).
  const std::size_t x_edge_bytes = ax.edges.size() * 8, y_edge_bytes = ay.edges.size() * 8,
                    x_table_bytes = ax.table.size() * 4, y_table_bytes = ay.table.size() * 4;
  std::vector<unsigned char> packed(x_edge_bytes + y_edge_bytes + x_table_bytes + y_table_bytes);
  unsigned char* at = packed.data();
  for (const auto& [from, bytes] :
       {std::pair<const void*, std::size_t>{ax.edges.data(), x_edge_bytes},
        {ay.edges.data(), y_edge_bytes},
        {ax.table.data(), x_table_bytes},
        {ay.table.data(), y_table_bytes}}) {
    std::memcpy(at, from, bytes);
    at += bytes;
  }
  const detail::buffer tables = detail::buffer::in_stream_order(ex, packed.size());
  ex.copy_in(tables.get(), packed.data(), packed.size());
  const auto* base = tables.as<unsigned char>();
  const detail::axis_edges on_x{
      reinterpret_cast<const double*>(base),
      reinterpret_cast<const unsigned*>(base + x_edge_bytes + y_edge_bytes), ax.bins()},
      on_y{reinterpret_cast<const double*>(base + x_edge_bytes),
           reinterpret_cast<const unsigned*>(base + x_edge_bytes + y_edge_bytes + x_table_bytes),
           ay.bins()};
  if (!o.weights && how.rung.empty() &&
      detail::count_points_2d_device(t, x, y, n, on_x, on_y, device_counts, ex.stream())) {
    ex.finish_in_place();
    return counted_where_found;
  }
  // Each point's slot, then the 1-D histogram of the slots (its bins + 3 entries, of which the
  // last three stay 0: every slot is at most x_bins x y_bins), of which the first inside + 1 are
  // the answer. Only this stream writes and reads the slots: no wait for the allocation.
  const std::size_t entries = ax.bins() * ay.bins() + 1;
  const detail::buffer slots = detail::buffer::in_stream_order(ex, std::max<std::size_t>(n, 1) * 4),
                       all = detail::buffer::in_stream_order(ex, (entries + 3) * 8);
  detail::bin_points_2d_device(t, x, y, n, on_x, on_y, slots.as<std::uint32_t>(), ex.stream());
  const histogram_result r = histogram_device_into(dtype::u32, slots.get(), n,
                                                   all.as<std::uint64_t>(), entries + 3, s, how);
  ex.copy_within(device_counts, all.get(), entries * 8);
  ex.finish_in_place();
  return r.rung;
}

// A device call's checks, and its axes.
std::pair<axis, axis> device_axes(const void* x, const void* y, std::size_t n,
                                  const histogram2d_options& o) {
  detail::require_backend(backend::cuda);
  check_points(x, y, n, o);
  std::pair<axis, axis> both{axis(o.x_edges, "histogram2d (x edges)"),
                             axis(o.y_edges, "histogram2d (y edges)")};
  slot_options(both.first, both.second, o);  // the bins' count checked
  return both;
}

}  // namespace

histogram2d_result histogram2d_device(dtype t, const void* x, const void* y, std::size_t n,
                                      const histogram2d_options& o, const rung_choice& how) {
  const auto [ax, ay] = device_axes(x, y, n, o);
  const std::size_t entries = ax.bins() * ay.bins() + 1;
  detail::executor& ex = detail::executor_for(backend::cuda);
  const detail::buffer counts = detail::buffer::in_stream_order(ex, entries * 8);
  std::string rung = counted_on_device(t, x, y, n, ax, ay, o, how, counts.as<std::uint64_t>());
  return result_of(ax, ay,
                   detail::slots_from_device(counts.as<std::uint64_t>(), entries,
                                             o.weights != nullptr, std::move(rung)));
}

histogram2d_result histogram2d_device_into(dtype t, const void* x, const void* y, std::size_t n,
                                           std::uint64_t* device_counts, std::size_t slots,
                                           const histogram2d_options& o, const rung_choice& how) {
  const auto [ax, ay] = device_axes(x, y, n, o);
  const std::size_t entries = ax.bins() * ay.bins() + 1;
  if (slots != entries)
    fail(errc::invalid_argument, "histogram2d: the counts hold " + std::to_string(slots) +
                                     " entries; " + std::to_string(ax.bins()) + " x " +
                                     std::to_string(ay.bins()) + " bins need " +
                                     std::to_string(entries) + " (the bins, then the outside)");
  if (!detail::executor_for(backend::cuda).holds(device_counts))
    fail(errc::invalid_argument, "histogram2d: the counts are not device memory");
  histogram2d_result out;
  out.x_bins = ax.bins(), out.y_bins = ay.bins();
  out.x_edges.assign(ax.edges.begin(), ax.edges.end());
  out.y_edges.assign(ay.edges.begin(), ay.edges.end());
  out.weighted = o.weights != nullptr;
  out.rung = counted_on_device(t, x, y, n, ax, ay, o, how, device_counts);
  return out;
}

}  // namespace pplab
