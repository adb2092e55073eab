// pplab::histogramdd: numpy.histogramdd, the two-dimensional call's machinery over any number of
// axes (a joint colour histogram of red, green and blue; a 3-D heat map of points): each point's
// bin computed once, over its D axes in C order, as one 32-bit slot (points_nd.hpp), then counted,
// or its weights summed, by the 1-D histogram's rungs over bins one wide (the product of the
// axes' bins, and one for the points outside), as histogram2d's slots are.
#include <omp.h>

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

histogram_result slots_from_device(const std::uint64_t* device_counts, std::size_t entries,
                                   bool weighted, std::string rung) {
  histogram_result r;
  r.rung = std::move(rung);
  r.weighted = weighted;
  std::vector<std::uint64_t> raw(entries);
  executor_for(backend::cuda).copy_out(raw.data(), device_counts, entries * 8);
  if (weighted) {
    r.sums.resize(entries);
    std::memcpy(r.sums.data(), raw.data(), entries * 8);
  } else {
    r.counts = std::move(raw);
  }
  return r;
}

// Calls f(slot_of) with the points' dtype: slot_of(i) is point i's slot on the host, its bins
// in C order over the axes, or p.outside() for a point past any axis.
template <class F> void with_slots_nd(dtype t, const nd_points& p, F&& f) {
  std::vector<edge_lookup_binner> binners;
  for (unsigned d = 0; d < p.count; ++d)
    binners.emplace_back(p.axes[d].edges, p.axes[d].bins, p.axes[d].table);
  const std::size_t outside = p.outside();
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    f([&](std::size_t i) {
      std::size_t slot = 0;
      for (unsigned d = 0; d < p.count; ++d) {
        const std::size_t b = binners[d](static_cast<const T*>(p.data[d])[i * p.stride]);
        if (b >= p.axes[d].bins) return outside;
        slot = slot * p.axes[d].bins + b;
      }
      return slot;
    });
  });
}

void bin_points_nd_host(dtype t, const nd_points& p, std::size_t n, std::uint32_t* slots,
                        bool threads) {
  with_slots_nd(t, p, [&](const auto& slot_of) {
#pragma omp parallel for schedule(static) if (threads)
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i)
      slots[i] = std::uint32_t(slot_of(std::size_t(i)));
  });
}

}  // namespace detail

namespace {

using axis = detail::host_axis;

// Each axis's edges checked, with the call's other arguments.
std::vector<axis> axes_of(std::span<const void* const> data, std::size_t stride, std::size_t n,
                          const histogramdd_options& o) {
  const std::size_t count = data.size();
  if (count < 1 || count > detail::nd_points::max_axes)
    fail(errc::invalid_argument, "histogramdd: 1 to " +
                                     std::to_string(detail::nd_points::max_axes) + " axes; got " +
                                     std::to_string(count));
  if (o.edges.size() != count)
    fail(errc::invalid_argument, "histogramdd: " + std::to_string(count) + " axes of points but " +
                                     std::to_string(o.edges.size()) + " arrays of edges");
  if (stride < 1) fail(errc::invalid_argument, "histogramdd: the stride is at least 1");
  for (std::size_t d = 0; d < count; ++d)
    if (n && !data[d])
      fail(errc::invalid_argument, "histogramdd: axis " + std::to_string(d) +
                                       "'s coordinates are null but n = " + std::to_string(n));
  if (o.weights && o.weight_type != dtype::f32 && o.weight_type != dtype::f64)
    fail(errc::invalid_argument,
         "histogramdd: weights are float32 or float64, not " + std::string(name_of(o.weight_type)));
  std::vector<axis> axes;
  std::size_t inside = 1;
  std::string sizes;
  for (std::size_t d = 0; d < count; ++d) {
    axes.emplace_back(o.edges[d], "histogramdd (axis " + std::to_string(d) + "'s edges)");
    sizes += (d ? " x " : "") + std::to_string(axes[d].bins());
    inside *= axes[d].bins();  // each at most 2^24: no wrap before the check below
    if (inside + 1 > max_bins)
      fail(errc::invalid_argument, "histogramdd: " + sizes + (d + 1 < count ? " ..." : "") +
                                       " bins; at most 2^24 - 1 (16777215) together");
  }
  return axes;
}

std::size_t inside_of(const std::vector<axis>& axes) {
  std::size_t inside = 1;
  for (const axis& a : axes) inside *= a.bins();
  return inside;
}

// The 1-D histogram of the slots: bins one wide over [0, inside], the last the points outside.
histogram_options slot_options(const std::vector<axis>& axes, const histogramdd_options& o) {
  const std::size_t inside = inside_of(axes);
  histogram_options s;
  s.bins = inside + 1, s.lo = 0.0, s.hi = double(inside + 1);
  s.weights = o.weights, s.weight_type = o.weight_type;
  return s;
}

detail::nd_points points_of(std::span<const void* const> data, std::size_t stride) {
  detail::nd_points p;
  p.count = unsigned(data.size());
  p.stride = stride;
  for (unsigned d = 0; d < p.count; ++d) p.data[d] = data[d];
  return p;
}

histogramdd_result shape_of(const std::vector<axis>& axes, bool weighted, std::string rung) {
  histogramdd_result out;
  for (const axis& a : axes) {
    out.bins.push_back(a.bins());
    out.edges.emplace_back(a.edges.begin(), a.edges.end());
  }
  out.weighted = weighted;
  out.rung = std::move(rung);
  return out;
}

histogramdd_result result_of(const std::vector<axis>& axes, histogram_result r) {
  histogramdd_result out = shape_of(axes, r.weighted, r.rung);
  detail::slots_into(out, std::move(r), inside_of(axes));
  return out;
}

// The id the result gives for the points counted where their bins are found (points_nd.hpp).
constexpr const char* counted_where_found = "histogramdd/cuda/counted_where_found";

// The points on the GPU counted (or their weights summed) into device_counts: the bins, then the
// points outside. Returns the rung that counted.
std::string counted_on_device(dtype t, std::span<const void* const> data, std::size_t stride,
                              std::size_t n, const std::vector<axis>& axes,
                              const histogramdd_options& o, const rung_choice& how,
                              std::uint64_t* device_counts) {
  detail::executor& ex = detail::executor_for(backend::cuda);
  for (std::size_t d = 0; d < data.size(); ++d)
    if (n && !ex.holds(data[d]))
      fail(errc::invalid_argument, "histogramdd: axis " + std::to_string(d) +
                                       "'s coordinates are not device memory; pass host points "
                                       "through pplab::histogramdd(pplab::cuda, ...)");
  if (n && o.weights && !ex.holds(o.weights))
    fail(errc::invalid_argument, "histogramdd: the weights are not device memory, where the "
                                 "points are");
  // Every axis's edges, then every table, on the GPU in one buffer sent with one copy (each copy
  // of pageable memory is waited for).
  std::vector<unsigned char> packed;
  std::vector<std::size_t> edges_at, table_at;
  for (const axis& a : axes) {
    edges_at.push_back(packed.size());
    const auto* from = reinterpret_cast<const unsigned char*>(a.edges.data());
    packed.insert(packed.end(), from, from + a.edges.size() * 8);
  }
  for (const axis& a : axes) {
    table_at.push_back(packed.size());
    const auto* from = reinterpret_cast<const unsigned char*>(a.table.data());
    packed.insert(packed.end(), from, from + a.table.size() * 4);
  }
  const detail::buffer tables = detail::buffer::in_stream_order(ex, packed.size());
  ex.copy_in(tables.get(), packed.data(), packed.size());
  const auto* base = tables.as<unsigned char>();
  detail::nd_points p = points_of(data, stride);
  for (std::size_t d = 0; d < axes.size(); ++d)
    p.axes[d] = {reinterpret_cast<const double*>(base + edges_at[d]),
                 reinterpret_cast<const unsigned*>(base + table_at[d]), axes[d].bins()};
  if (!o.weights && how.rung.empty() &&
      detail::count_points_nd_device(t, p, n, device_counts, ex.stream())) {
    ex.finish_in_place();
    return counted_where_found;
  }
  // Each point's slot, then the 1-D histogram of the slots (its bins + 3 entries, of which the
  // last three stay 0: every slot is at most the bins' product), of which the first inside + 1
  // are the answer. Only this stream writes and reads the slots: no wait for the allocation.
  const std::size_t entries = inside_of(axes) + 1;
  const detail::buffer slots = detail::buffer::in_stream_order(ex, std::max<std::size_t>(n, 1) * 4),
                       all = detail::buffer::in_stream_order(ex, (entries + 3) * 8);
  detail::bin_points_nd_device(t, p, n, slots.as<std::uint32_t>(), ex.stream());
  const histogram_result r = histogram_device_into(
      dtype::u32, slots.get(), n, all.as<std::uint64_t>(), entries + 3, slot_options(axes, o), how);
  ex.copy_within(device_counts, all.get(), entries * 8);
  ex.finish_in_place();
  return r.rung;
}

}  // namespace

std::vector<double> histogramdd_result::density() const {
  // As numpy.histogramdd: each bin over its widths on every axis, then over the bins' total.
  std::size_t inside = 1;
  for (std::size_t b : bins) inside *= b;
  std::vector<double> out(inside);
  double total = 0;
  for (std::size_t i = 0; i < inside; ++i) total += weighted ? sums[i] : double(counts[i]);
  for (std::size_t i = 0; i < inside; ++i) {
    double v = weighted ? sums[i] : double(counts[i]);
    std::size_t rest = i;
    for (std::size_t d = bins.size(); d-- > 0;) {
      const std::size_t k = rest % bins[d];
      rest /= bins[d];
      v /= edges[d][k + 1] - edges[d][k];
    }
    out[i] = v / total;
  }
  return out;
}

histogramdd_result histogramdd(backend where, dtype t, std::span<const void* const> data,
                               std::size_t stride, std::size_t n, const histogramdd_options& o,
                               const rung_choice& how) {
  detail::require_backend(where);
  const std::vector<axis> axes = axes_of(data, stride, n, o);
  detail::nd_points p = points_of(data, stride);
  for (std::size_t d = 0; d < axes.size(); ++d) p.axes[d] = axes[d].on_host();
  if (const std::size_t inside = inside_of(axes);
      how.rung.empty() && detail::counted_on_host_fits(where, inside + 1)) {
    // Counted where found (counted_on_host.hpp)
    histogram_result r;
    detail::with_slots_nd(t, p, [&](const auto& slot_of) {
      r = detail::counted_on_host("histogramdd", where, n, inside + 1, o.weights, o.weight_type,
                                  slot_of);
    });
    if (how.ran) *how.ran = r.rung;
    return result_of(axes, std::move(r));
  }
  // The slots on the host's cores (a rank's own points on mpi), then counted on `where`.
  std::vector<std::uint32_t> slots(n);
  detail::bin_points_nd_host(t, p, n, slots.data(), where != backend::seq);
  return result_of(axes, histogram(where, dtype::u32, slots.data(), n, slot_options(axes, o), how));
}

histogramdd_result histogramdd_device(dtype t, std::span<const void* const> data,
                                      std::size_t stride, std::size_t n,
                                      const histogramdd_options& o, const rung_choice& how) {
  detail::require_backend(backend::cuda);
  const std::vector<axis> axes = axes_of(data, stride, n, o);
  const std::size_t entries = inside_of(axes) + 1;
  detail::executor& ex = detail::executor_for(backend::cuda);
  const detail::buffer counts = detail::buffer::in_stream_order(ex, entries * 8);
  std::string rung =
      counted_on_device(t, data, stride, n, axes, o, how, counts.as<std::uint64_t>());
  return result_of(axes, detail::slots_from_device(counts.as<std::uint64_t>(), entries,
                                                   o.weights != nullptr, std::move(rung)));
}

histogramdd_result histogramdd_device_into(dtype t, std::span<const void* const> data,
                                           std::size_t stride, std::size_t n,
                                           std::uint64_t* device_counts, std::size_t slots,
                                           const histogramdd_options& o, const rung_choice& how) {
  detail::require_backend(backend::cuda);
  const std::vector<axis> axes = axes_of(data, stride, n, o);
  const std::size_t entries = inside_of(axes) + 1;
  if (slots != entries)
    fail(errc::invalid_argument, "histogramdd: the counts hold " + std::to_string(slots) +
                                     " entries; the bins need " + std::to_string(entries) +
                                     " (the bins' product, then the outside)");
  if (!detail::executor_for(backend::cuda).holds(device_counts))
    fail(errc::invalid_argument, "histogramdd: the counts are not device memory");
  return shape_of(axes, o.weights != nullptr,
                  counted_on_device(t, data, stride, n, axes, o, how, device_counts));
}

}  // namespace pplab
