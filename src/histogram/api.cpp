// pplab::histogram: resolves the options into bins and a range, picks the backend's rung, runs it.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "core/pieces.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"
#include "pplab/device.hpp"
#include "pplab/histogram.hpp"
#include "pplab/interrupt.hpp"

namespace pplab {

namespace {

// Edges first to last of r (all of them: first 0, last bins), each as edge(i) gives it.
template <class F>
void write_edges(const histogram_result& r, std::size_t first, std::size_t last, F* out) {
  const std::size_t bins = r.bins();
  if (r.edges != edge_rule::f64 && bins > 0) {
    const detail::f32_edges e(r.lo, r.hi, bins, r.edges);
    std::size_t i = first;
    const std::size_t below = std::min(last + 1, bins);  // the edges before the last, hi
    if (e.in_float)
      for (; i < below; ++i) *out++ = F(e.float_edge(unsigned(i)));
    else
      for (; i < below; ++i) *out++ = F(e.rounded_edge(unsigned(i)));
    for (; i <= last; ++i) *out++ = F(e.hi_f);
    return;
  }
  const double step = (r.hi - r.lo) / double(bins);
  for (std::size_t i = first; i <= last; ++i)
    *out++ = F(i >= bins ? r.hi : double(i) * step + r.lo);
}

}  // namespace

double histogram_result::edge(std::size_t i) const noexcept {
  if (!bin_edges.empty()) return bin_edges[i];
  double e = 0;
  write_edges(*this, i, i, &e);
  return e;
}
void histogram_result::edges_into(double* out) const noexcept {
  if (!bin_edges.empty()) std::copy(bin_edges.begin(), bin_edges.end(), out);
  else write_edges(*this, 0, bins(), out);
}
void histogram_result::edges_into(float* out) const noexcept {
  if (!bin_edges.empty())
    std::transform(bin_edges.begin(), bin_edges.end(), out, [](double e) { return float(e); });
  else write_edges(*this, 0, bins(), out);
}

std::vector<double> histogram_result::density() const {
  // As numpy.histogram: n / diff(edges) / n.sum(), the widths and the total in double.
  std::vector<double> widths(bins() + 1), out(bins());
  edges_into(widths.data());
  for (std::size_t i = 0; i < bins(); ++i) widths[i] = widths[i + 1] - widths[i];
  double total = 0;
  for (std::size_t i = 0; i < bins(); ++i) total += weighted ? sums[i] : double(counts[i]);
  for (std::size_t i = 0; i < bins(); ++i)
    out[i] = (weighted ? sums[i] : double(counts[i])) / widths[i] / total;
  return out;
}

std::uint64_t histogram_result::total() const noexcept {
  std::uint64_t t = underflow + overflow + nan;
  for (std::uint64_t c : counts) t += c;
  return t;
}

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

void detail::check_bin_edges(std::span<const double> e, const std::string& call) {
  if (e.size() < 2)
    fail(errc::invalid_argument, call + ": an array of edges needs at least two (one bin); got " +
                                     std::to_string(e.size()));
  if (e.size() - 1 > max_bins)
    fail(errc::invalid_argument, call + ": at most 2^24 (16777216) bins; got " +
                                     std::to_string(e.size() - 1) + " from the edges");
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (std::isnan(e[i]))
      fail(errc::invalid_argument, call + ": edge " + std::to_string(i) + " is NaN");
    if (i && e[i] < e[i - 1])
      fail(errc::invalid_argument,
           call +
               ": the edges must not decrease (bins must increase monotonically, when an "
               "array); edge " +
               std::to_string(i) + " = " + num(e[i]) + " is below edge " + std::to_string(i - 1) +
               " = " + num(e[i - 1]));
  }
}

namespace {

// The problem of bins given as an array of edges (histogram_options::bin_edges).
detail::histogram_problem resolve_edges(dtype t, std::size_t n, const histogram_options& o) {
  const std::span<const double> e = o.bin_edges;
  detail::check_bin_edges(e, "histogram");
  if (o.lo || o.hi)
    fail(errc::invalid_argument, "histogram: give a range or an array of edges, not both (the "
                                 "edges are the range)");
  if (o.bins && o.bins != e.size() - 1)
    fail(errc::invalid_argument, "histogram: bins = " + std::to_string(o.bins) + " but " +
                                     std::to_string(e.size()) + " edges make " +
                                     std::to_string(e.size() - 1) + " bins");
  detail::histogram_problem p{t, n, e.size() - 1, e.front(), e.back(), true, false};
  p.edge_array = true;
  p.weighted = o.weights != nullptr;
  p.weight_type = o.weight_type;
  return p;
}

// min_max: the data's smallest and largest values (asked only when the range is inferred).
detail::histogram_problem
resolve_agreed(dtype t, std::size_t n, std::uint64_t total, const histogram_options& o,
               const std::function<std::pair<double, double>()>& min_max) {
  if (o.lo.has_value() != o.hi.has_value())
    fail(errc::invalid_argument, "histogram: give both ends of the range (lo and hi), or neither");
  if (o.weights && o.weight_type != dtype::f32 && o.weight_type != dtype::f64)
    fail(errc::invalid_argument,
         "histogram: weights are float32 or float64, not " + std::string(name_of(o.weight_type)));
  if (!o.bin_edges.empty()) return resolve_edges(t, n, o);
  const bool numpy_rules = o.edges == edge_rule::numpy || o.edges == edge_rule::numpy1;
  // 8- and 16-bit integers get their natural bins, unless NumPy's rules are asked for.
  const bool small_int = !is_float(t) && size_of(t) <= 2 && !numpy_rules;
  // 256 or 65536 for 8- and 16-bit integers (computed for them alone: a shift by 64 is undefined).
  const std::size_t natural_bins = small_int ? std::size_t(1) << (8 * size_of(t)) : 0;
  detail::histogram_problem p{t, n, o.bins, 0, 0, o.closed_last, false};
  // NumPy's float32 edges (edge_rule::numpy: from double arithmetic for a range given, from
  // float32 arithmetic for one inferred from the data).
  if (t == dtype::f32 && o.edges != edge_rule::f64)
    p.edges = !numpy_rules                                         ? o.edges
              : o.edges == edge_rule::numpy1 || o.lo || total == 0 ? edge_rule::f32_rounded
                                                                   : edge_rule::f32_arithmetic;
  if (o.lo) {
    p.lo = *o.lo, p.hi = *o.hi;
    if (!std::isfinite(p.lo) || !std::isfinite(p.hi))
      fail(errc::invalid_argument,
           "histogram: the range must be finite; got [" + num(p.lo) + ", " + num(p.hi) + ")");
    if (!(p.lo < p.hi))
      fail(errc::invalid_argument,
           "histogram: lo must be below hi; got lo = " + num(p.lo) + ", hi = " + num(p.hi));
    if (!std::isfinite(p.hi - p.lo))
      fail(errc::invalid_argument, "histogram: the range [" + num(p.lo) + ", " + num(p.hi) +
                                       ") is too wide for double precision");
    if (!p.bins) p.bins = small_int ? natural_bins : 10;
  } else if (small_int) {
    const std::int64_t lo = is_signed_int(t) ? -std::int64_t(natural_bins / 2) : 0;
    p.lo = double(lo), p.hi = double(lo + std::int64_t(natural_bins));
    if (!p.bins) p.bins = natural_bins;
    p.natural = p.bins == natural_bins;
  } else {
    // numpy.histogram's rule: the range is [min, max] of the data, last bin closed.
    if (!p.bins) p.bins = 10;
    p.closed_last = true;
    if (total == 0) {
      p.lo = 0, p.hi = 1;
    } else {
      const auto [mn, mx] = min_max();
      if (std::isnan(mn) || std::isnan(mx))
        fail(errc::bad_data, "histogram: cannot infer the range: the data holds NaN; give a range "
                             "(range=(lo, hi); --range LO:HI on the command line) and NaN will "
                             "be counted apart");
      if (!std::isfinite(mn) || !std::isfinite(mx))
        fail(errc::bad_data,
             "histogram: the data's range [" + num(mn) + ", " + num(mx) +
                 "] is not finite; give a finite range (range=(lo, hi); --range LO:HI "
                 "on the command line)");
      if (!std::isfinite(mx - mn))
        fail(errc::bad_data, "histogram: the data's range [" + num(mn) + ", " + num(mx) +
                                 "] is wider than a double can hold (max - min overflows); "
                                 "give a narrower range (range=(lo, hi); --range LO:HI on the "
                                 "command line)");
      p.lo = mn, p.hi = mx;
      if (mn == mx) {
        if (p.edges == edge_rule::f32_arithmetic)  // as NumPy 2 widens a float32 minimum
          p.lo = double(float(mn) - 0.5f), p.hi = double(float(mx) + 0.5f);
        else p.lo -= 0.5, p.hi += 0.5;
      }
      if (!(p.lo < p.hi))
        fail(errc::bad_data,
             "histogram: every value is " + num(mn) +
                 ", too large to widen by 0.5 into a range; give one (range=(lo, hi); "
                 "--range LO:HI on the command line)");
    }
  }
  if (p.bins < 1 || p.bins > max_bins)
    fail(errc::invalid_argument,
         "histogram: bins must be between 1 and 2^24 (16777216); got " + std::to_string(p.bins));
  // As numpy.histogram: bins narrower than the spacing of doubles at the range's ends would have
  // equal edges (and some no values at all).
  const double step = (p.hi - p.lo) / double(p.bins);
  const double widest = std::max(std::abs(p.lo), std::abs(p.hi));
  if (!(step >= std::nextafter(widest, HUGE_VAL) - widest))
    fail(errc::invalid_argument, "histogram: " + std::to_string(p.bins) + " bins over [" +
                                     num(p.lo) + ", " + num(p.hi) +
                                     "] are narrower than a double can tell apart; use fewer bins "
                                     "or a wider range");
  // NumPy finds a float32 value's bin from an estimate in float32 arithmetic, corrected by one
  // step against its float32 edges: its answer is the bin its edges give only while the estimate
  // is within one bin. A bound on the estimate's error in bins: the subtract, divide and multiply
  // (2^-24 n each, the divisor's rounding too) and the edges' own distance from their ideal
  // places (2^-24 |edge| each, three times over in bins, and 2^-24 n for a step rounded twice).
  // Where it reaches one bin, pplab cannot promise NumPy's counts and says so.
  if (p.edges != edge_rule::f64) {
    const double width = double(float(p.hi)) - double(float(p.lo));
    const double widest = std::max(std::abs(p.lo), std::abs(p.hi)), n = double(p.bins);
    if (!(width > 0) || !(std::ldexp(7 * n + 3 * n / width * widest, -24) < 1))
      fail(errc::invalid_argument,
           "histogram: " + std::to_string(p.bins) + " bins over [" + num(p.lo) + ", " + num(p.hi) +
               "] are too narrow for NumPy's float32 binning: its float32 index can miss its own "
               "edges there, so its counts cannot be matched; use fewer bins or a range nearer "
               "zero, or edges in double (edge_rule::f64: float64 data in Python, the "
               "command line without --numpy)");
  }
  p.weighted = o.weights != nullptr;
  p.weight_type = o.weight_type;
  return p;
}

}  // namespace

detail::histogram_problem detail::resolve_histogram(backend where, dtype t, const void* data,
                                                    std::size_t n, const histogram_options& o) {
  // On the mpi backend, data is this rank's part: the ranks agree on the call and on the total
  // length first, and a range inferred from the data is the whole job's.
  // Host data: its minimum and maximum taken where it is (on the cpu backend when it was to go
  // to a GPU, else it would cross the bus once for each); a job's (mpi) over every rank's part.
  const backend min_max_on =
      where == backend::cuda || where == backend::nccl ? backend::cpu : where;
  return resolve_histogram_in_place(
      where, t, n, o, [&](op what) { return reduce(min_max_on, t, data, n, what); },
      [&] {
        if (n > 0 && data == nullptr)
          fail(errc::invalid_argument, "histogram: data is null but n = " + std::to_string(n));
      });
}

namespace {

// Adds one part's slots into the whole's: counts, or sums of weights (doubles).
void add_slots(const detail::histogram_problem& p, std::uint64_t* whole,
               const std::uint64_t* part) {
  const std::size_t width = slots(p);
  if (!p.weighted) {
    for (std::size_t s = 0; s < width; ++s) whole[s] += part[s];
    return;
  }
  auto* w = reinterpret_cast<double*>(whole);
  const auto* q = reinterpret_cast<const double*>(part);
  for (std::size_t s = 0; s < width; ++s) w[s] += q[s];
}

// The result of problem p, its bins + 3 slots written by `count`.
template <class Count>
histogram_result result_of(const detail::histogram_problem& p, std::span<const double> edges,
                           Count&& count) {
  histogram_result out;
  out.lo = p.lo, out.hi = p.hi, out.closed_last = p.closed_last, out.edges = p.edges;
  out.bin_count = p.bins;
  if (p.edge_array) out.bin_edges.assign(edges.begin(), edges.end());
  std::vector<std::uint64_t> raw(detail::slots(p));
  count(raw.data());
  if (p.weighted) {
    out.weighted = true;
    out.sums.resize(raw.size());
    std::memcpy(out.sums.data(), raw.data(), raw.size() * sizeof(double));
    out.underflow_sum = out.sums[p.bins];
    out.overflow_sum = out.sums[p.bins + 1];
    out.nan_sum = out.sums[p.bins + 2];
    out.sums.resize(p.bins);
    return out;
  }
  out.counts = std::move(raw);
  out.underflow = out.counts[p.bins];
  out.overflow = out.counts[p.bins + 1];
  out.nan = out.counts[p.bins + 2];
  out.counts.resize(p.bins);
  return out;
}

// Runs r on data (and weights) already in ex's memory, the edges copied there from the host; the
// slots written into host_slots.
void run_in_place(const detail::histogram_rung& r, detail::executor& ex,
                  const detail::histogram_problem& p, const void* in, const void* weights,
                  const double* host_edges, std::uint64_t* host_slots) {
  using namespace detail;
  buffer edges;
  if (p.edge_array && !ex.host_memory()) {
    edges = buffer(ex, (p.bins + 1) * sizeof(double));
    ex.copy_in(edges.get(), host_edges, edges.size());
  }
  const double* e = p.edge_array && !ex.host_memory() ? edges.as<double>() : host_edges;
  buffer counts(ex, slots(p) * 8), scratch = scratch_of(ex, r, p);
  r.run({p, in, counts.as<std::uint64_t>(), scratch.get(), ex.stream(), weights, e});
  ex.copy_out(host_slots, counts.get(), slots(p) * 8);
}

}  // namespace

histogram_result detail::run_histogram_into_result(const histogram_rung& r,
                                                   const histogram_problem& p,
                                                   const histogram_data& data) {
  const std::span<const double> edges(data.edges, p.edge_array ? p.bins + 1 : 0);
  histogram_result out =
      result_of(p, edges, [&](std::uint64_t* counts) { run_rung(r, p, data, counts); });
  out.rung = r.info.id;
  return out;
}

namespace {

// 64-bit FNV-1a of the edges' bytes: the ranks of a job agree on them by this.
std::uint64_t fingerprint(std::span<const double> e) {
  std::uint64_t h = 14695981039346656037ull;
  for (double v : e) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, 8);
    for (int k = 0; k < 8; ++k) h = (h ^ ((bits >> (8 * k)) & 0xff)) * 1099511628211ull;
  }
  return h;
}

}  // namespace

detail::histogram_problem detail::resolve_histogram_in_place(
    backend where, dtype t, std::size_t n, const histogram_options& o,
    const std::function<scalar(op)>& reduce_it, const std::function<void()>& checks) {
  const std::string signature =
      "histogram " + std::string(name_of(t)) + " bins " + std::to_string(o.bins) + " range " +
      (o.lo ? num(*o.lo) : "none") + ":" + (o.hi ? num(*o.hi) : "none") +
      (o.closed_last ? " closed" : "") + " edges " + std::to_string(int(o.edges)) +
      (o.bin_edges.empty() ? ""
                           : " edge array " + std::to_string(o.bin_edges.size()) + " #" +
                                 std::to_string(fingerprint(o.bin_edges))) +
      (o.weights ? " weights " + std::string(name_of(o.weight_type)) : "");
  const std::uint64_t total = agree_on_call(where, signature, n, checks);
  return together([&] {
    return resolve_agreed(t, n, total, o, [&] {
      return std::pair(reduce_it(op::min).to_double(), reduce_it(op::max).to_double());
    });
  });
}

histogram_result detail::histogram_in_place(const histogram_rung& r, executor& ex,
                                            const histogram_problem& p, const histogram_data& in) {
  const std::span<const double> edges(in.edges, p.edge_array ? p.bins + 1 : 0);
  histogram_result out = result_of(p, edges, [&](std::uint64_t* host_slots) {
    run_in_place(r, ex, p, in.in, in.weights, in.edges, host_slots);
  });
  out.rung = r.info.id;
  return out;
}

namespace {

// Host data, weights and edges through a device executor, for the problems with weights or an
// array of edges: copied in whole where they fit the free memory, else chunk after chunk (each
// chunk's slots added on the host).
void run_copied(const detail::histogram_rung& r, detail::executor& ex,
                const detail::histogram_problem& p, const detail::histogram_data& host,
                std::uint64_t* host_slots) {
  using namespace detail;
  const std::size_t elem = size_of(p.type), welem = p.weighted ? size_of(p.weight_type) : 0;
  const std::size_t width = slots(p);
  std::size_t chunk = p.n;
  const auto fits = [&](std::size_t len) {
    histogram_problem q = p;
    q.n = len;
    return scratch_fits(len * (elem + welem) + r.scratch(q), [&] { return ex.free_bytes(); });
  };
  if (!fits(p.n)) chunk = std::max<std::size_t>((std::size_t(256) << 20) / (elem + welem), 1);
  std::fill_n(host_slots, width, 0);
  std::vector<std::uint64_t> part(width);
  for (std::size_t i0 = 0; i0 < p.n || i0 == 0; i0 += chunk) {
    histogram_problem q = p;
    q.n = std::min(chunk, p.n - i0);
    buffer in(ex, q.n * elem), weights(ex, q.n * welem);
    ex.copy_in(in.get(), static_cast<const std::byte*>(host.in) + i0 * elem, q.n * elem);
    if (welem)
      ex.copy_in(weights.get(), static_cast<const std::byte*>(host.weights) + i0 * welem,
                 q.n * welem);
    run_in_place(r, ex, q, in.get(), weights.get(), host.edges, part.data());
    add_slots(p, host_slots, part.data());
    if (p.n == 0) break;
  }
}

}  // namespace

// Host data on a device backend is streamed in chunks of at least 64 MiB (larger when the
// counts are large, so that copying them back stays small beside the data); each chunk's counts
// are copied back and added on the host once the chunk is done.
void detail::run_rung(const histogram_rung& r, executor& ex, const histogram_problem& p,
                      const histogram_data& host, std::uint64_t* host_counts) {
  const std::size_t width = slots(p);
  if (ex.host_memory()) {
    buffer scratch = scratch_for(ex, r.scratch(p));
    // Many values on one machine's cores (seq, cpu) are counted in parts of piece_elements(),
    // so that a stop asked from outside (pplab/interrupt.hpp) is taken between them; each part's
    // counts are added to the whole's (integers: the same counts). Only where the counts are
    // small beside a part (at most 1/256 of its values: 2^20 bins by default), so that making
    // and adding them costs nothing beside counting the part. Sums of weights are added part
    // by part in the same order on every run: the same bits again.
    const std::size_t piece = piece_elements();
    const bool one_host = r.info.where == backend::seq || r.info.where == backend::cpu;
    if (!one_host || p.n < 2 * piece || width * 256 > piece) {
      r.run({p, host.in, host_counts, scratch.get(), ex.stream(), host.weights, host.edges});
      return;
    }
    std::vector<std::uint64_t> part(width);
    std::fill(host_counts, host_counts + width, 0);
    const std::size_t welem = p.weighted ? size_of(p.weight_type) : 0;
    for (std::size_t i0 = 0; i0 < p.n; i0 += piece) {
      stop_if_interrupted();
      histogram_problem q = p;
      q.n = std::min(piece, p.n - i0);
      r.run({q, static_cast<const std::byte*>(host.in) + i0 * size_of(p.type), part.data(),
             scratch.get(), ex.stream(),
             p.weighted ? static_cast<const std::byte*>(host.weights) + i0 * welem : nullptr,
             host.edges});
      add_slots(p, host_counts, part.data());
    }
    return;
  }
  if (!ex.addressable() || p.weighted || p.edge_array) {
    // Arrays split over several GPUs, and weights or edges: copied in whole where they fit.
    run_copied(r, ex, p, host, host_counts);
    return;
  }
  const std::size_t elem = size_of(p.type);
  const std::size_t per_chunk =
      std::max<std::size_t>(std::size_t(64) << 20, 4 * width * sizeof(std::uint64_t)) / elem;
  const auto chunk_problem = [&](std::size_t len) {
    histogram_problem q = p;
    q.n = len;
    return q;
  };
  const std::size_t scratch = r.scratch(chunk_problem(std::min(per_chunk, p.n)));
  buffer scratches[2] = {scratch_for(ex, scratch), scratch_for(ex, scratch)};
  buffer counts[2] = {buffer(ex, width * 8), buffer(ex, width * 8)};
  ex.synchronize();
  std::fill_n(host_counts, width, 0);
  std::vector<std::uint64_t> part(width);
  ex.stream_in(
      host.in, p.n * elem, per_chunk * elem,
      [&](const void* data, std::size_t bytes, std::size_t, int slot, void* stream) {
        r.run({chunk_problem(bytes / elem), data, counts[slot].as<std::uint64_t>(),
               scratches[slot].get(), stream});
      },
      [&](int slot) {
        ex.copy_out(part.data(), counts[slot].get(), width * 8);
        for (std::size_t i = 0; i < width; ++i) host_counts[i] += part[i];
      });
}

void detail::run_rung(const histogram_rung& r, const histogram_problem& p,
                      const histogram_data& host, std::uint64_t* host_counts) {
  require_backend(r.info.where);
  run_rung(r, executor_for(r.info.where), p, host, host_counts);
}

histogram_result histogram(backend where, dtype t, const void* data, std::size_t n,
                           const histogram_options& options, const rung_choice& how) {
  detail::require_backend(where);
  // A range inferred from host data on the GPU: when the data fits with room to spare, it crosses
  // the bus once and stays while its minimum, maximum and counts are taken there. Else the
  // minimum and maximum are taken on the host (resolve_histogram) and the counts streamed.
  const bool inferred =
      !options.lo && !options.hi && options.bin_edges.empty() && (is_float(t) || size_of(t) > 2);
  const std::size_t bytes = n * size_of(t);
  detail::executor& ex = detail::executor_for(where);
  if (where == backend::cuda && inferred && !options.weights && data && n &&
      detail::scratch_fits(bytes, [&] { return ex.free_bytes(); })) {
    detail::buffer on_device(ex, bytes);
    ex.copy_in(on_device.get(), data, bytes);
    return histogram_device(t, on_device.get(), n, options, how);
  }
  const detail::histogram_problem p = detail::resolve_histogram(where, t, data, n, options);
  return detail::run_histogram_into_result(
      detail::chosen_rung<detail::histogram_rung>(where, p, how), p,
      detail::histogram_data(data, options.weights, options.bin_edges.data()));
}

namespace {

// The problem of a histogram of device data, its range inferred on the GPU when not given.
detail::histogram_problem resolve_on_device(dtype t, const void* device_data, std::size_t n,
                                            const histogram_options& options) {
  detail::require_backend(backend::cuda);
  detail::executor& ex = detail::executor_for(backend::cuda);
  return detail::resolve_histogram_in_place(
      backend::cuda, t, n, options, [&](op o) { return reduce_device(t, device_data, n, o); },
      [&] {
        if (n > 0 && device_data == nullptr)
          fail(errc::invalid_argument,
               "histogram: device data is null but n = " + std::to_string(n));
        if (n && !ex.holds(device_data))
          fail(errc::invalid_argument,
               "histogram: the pointer is not device memory; pass host data through "
               "pplab::histogram(pplab::cuda, host_range, options) instead");
        if (n && options.weights && !ex.holds(options.weights))
          fail(errc::invalid_argument,
               "histogram: the weights are not device memory; the data and the weights are "
               "both on the GPU, or both on the host");
      });
}

}  // namespace

histogram_result histogram_device(dtype t, const void* device_data, std::size_t n,
                                  const histogram_options& options, const rung_choice& how) {
  const detail::histogram_problem p = resolve_on_device(t, device_data, n, options);
  return detail::histogram_in_place(
      detail::chosen_rung<detail::histogram_rung>(backend::cuda, p, how),
      detail::executor_for(backend::cuda), p,
      detail::histogram_data(device_data, options.weights, options.bin_edges.data()));
}

histogram_result histogram_device_into(dtype t, const void* device_data, std::size_t n,
                                       std::uint64_t* device_counts, std::size_t slots,
                                       const histogram_options& options, const rung_choice& how) {
  const detail::histogram_problem p = resolve_on_device(t, device_data, n, options);
  detail::executor& ex = detail::executor_for(backend::cuda);
  if (slots != detail::slots(p))
    fail(errc::invalid_argument, "histogram: the counts hold " + std::to_string(slots) +
                                     " slots; " + std::to_string(p.bins) + " bins need " +
                                     std::to_string(detail::slots(p)) +
                                     " (the bins, then underflow, overflow and NaN)");
  if (!ex.holds(device_counts))
    fail(errc::invalid_argument, "histogram: the counts are not device memory");
  const detail::histogram_rung& r =
      detail::chosen_rung<detail::histogram_rung>(backend::cuda, p, how);
  {
    detail::buffer edges;  // an array of edges goes where the rung reads it
    if (p.edge_array) {
      edges = detail::buffer(ex, (p.bins + 1) * sizeof(double));
      ex.copy_in(edges.get(), options.bin_edges.data(), edges.size());
    }
    detail::buffer scratch = detail::scratch_of(ex, r, p);
    r.run({p, device_data, device_counts, scratch.get(), ex.stream(), options.weights,
           edges.as<double>()});
  }
  ex.finish_in_place();  // the counts written, or on a caller's stream queued there
  histogram_result out;
  out.lo = p.lo, out.hi = p.hi, out.closed_last = p.closed_last, out.edges = p.edges;
  out.bin_count = p.bins;
  out.weighted = p.weighted;
  if (p.edge_array) out.bin_edges.assign(options.bin_edges.begin(), options.bin_edges.end());
  out.rung = r.info.id;
  return out;
}

histogram_result histogram_device_parts(dtype t, std::span<const device_part> parts,
                                        const histogram_options& options) {
  if (options.weights || !options.bin_edges.empty())
    fail(errc::unsupported, "histogram: arrays split over several GPUs are counted over even "
                            "bins without weights so far");
  detail::require_backend(backend::nccl);
  detail::executor& ex = detail::executor_for(backend::nccl);
  std::uint64_t local_n = 0;
  for (const device_part& p : parts) local_n += p.size;
  detail::buffer in;
  // A range inferred from the data: the whole job's minimum and maximum, over the same parts.
  const detail::histogram_problem p = detail::resolve_histogram_in_place(
      backend::nccl, t, local_n, options, [&](op o) { return reduce_device_parts(t, parts, o); },
      [&] { in = detail::buffer::adopt(ex, parts, size_of(t), "histogram"); });
  return detail::together([&] {
    return detail::histogram_in_place(
        detail::default_rung<detail::histogram_rung>(backend::nccl, p), ex, p,
        detail::histogram_data(in.get()));
  });
}

}  // namespace pplab
