// pplab::correlate and pplab::convolve: the checks of the call (every rank's, agreed on), the
// mask in the image's type (flipped for convolve), the policy's rung, and the run path: in place
// on the host, the image copied in and the output copied out row by row on a device. Also the
// reference and the tolerance that the tests and the lab check every rung against.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "convolution/boundary.hpp"
#include "convolution/rung.hpp"
#include "core/pieces.hpp"
#include "core/verify.hpp"
#include "pplab/convolution.hpp"
#include "pplab/device.hpp"
#include "pplab/interrupt.hpp"
#include "pplab/job.hpp"

namespace pplab {

std::string_view name_of(boundary b) noexcept {
  switch (b) {
  case boundary::reflect:
    return "reflect";
  case boundary::constant:
    return "constant";
  case boundary::nearest:
    return "nearest";
  case boundary::mirror:
    return "mirror";
  case boundary::wrap:
    return "wrap";
  }
  return "?";
}

boundary parse_boundary(std::string_view name) {
  for (boundary b :
       {boundary::reflect, boundary::constant, boundary::nearest, boundary::mirror, boundary::wrap})
    if (name == name_of(b)) return b;
  if (name == "grid-mirror") return boundary::reflect;
  if (name == "grid-constant") return boundary::constant;
  if (name == "grid-wrap") return boundary::wrap;
  fail(errc::invalid_argument, "unknown boundary mode '" + std::string(name) +
                                   "'; choose one of reflect, constant, nearest, mirror, wrap");
}

namespace {

bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const char *x = static_cast<const char*>(a), *y = static_cast<const char*>(b);
  return a_bytes && b_bytes && x < y + b_bytes && y < x + a_bytes;
}

// The mask's values in the signature a job's ranks compare: every rank must filter with the same.
std::uint64_t hash_of(const double* mask, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, mask + i, sizeof bits);
    h = (h ^ bits) * 1099511628211ull;
  }
  return h;
}

// The variant "split_tf32" names a precision rather than a rung: the first of the policy's split
// rungs that can run the problem and whose scratch fits, as the API's own choice.
std::string_view split_tf32_rung(const std::string& what, backend where,
                                 const detail::convolution_problem& p) {
  if (p.type != dtype::f32)
    fail(errc::invalid_argument,
         what + ": split_tf32 filters f32 images, not " +
             (p.type == dtype::u8 ? std::string("u8 images") : std::string(name_of(p.type))));
  if (const detail::convolution_rung* r = detail::first_fitting<detail::convolution_rung>(
          detail::split_tf32_policy(where, p), p, detail::free_bytes_when_asked(where),
          detail::find_by_id_or_end<detail::convolution_rung>))
    return r->info.id;
  fail(errc::unsupported, what +
                              ": split_tf32 runs on the cuda backend, on a GPU with TF32 tensor "
                              "cores (sm_80 on); not on backend " +
                              std::string(name_of(where)));
}

// Whether the policy for a stack of images has a rung that filters the whole stack in one call
// (on the GPU: c07's outer products, the 1-D passes); the others take one plane at a time.
bool policy_takes_stack(backend where, const detail::convolution_problem& stack) {
  for (std::string_view id : detail::policy(where, stack)) {
    const detail::convolution_rung* r = detail::find_by_id_or_end<detail::convolution_rung>(id);
    if (r && r->can_run(stack)) return true;
  }
  return false;
}

// `on_device`: in and out are in the memory of the cuda backend's GPU, and stay there.
void filter_call(const char* what, bool flip, backend where, dtype t, const void* in,
                 std::size_t rows, std::size_t cols, std::size_t ld_in, const double* mask,
                 std::size_t kh, std::size_t kw, void* out, std::size_t ld_out,
                 const filter_options& o, const rung_choice& how, bool on_device = false) {
  detail::require_backend(where);
  detail::executor& ex = detail::executor_for(where);
  const part mine = ex.my_part(rows);  // this rank's rows on mpi; all of them elsewhere
  const std::size_t channels = t == dtype::u8 ? o.channels : 1;
  ld_in = ld_in ? ld_in : cols * channels, ld_out = ld_out ? ld_out : cols * channels;
  const std::size_t planes = o.planes;
  char numbers[192];
  std::snprintf(numbers, sizeof numbers,
                " %zux%zux%zux%zu%s mask %zux%zu %016llx mode %s cval %.17g", planes, rows, cols,
                o.channels, o.u8_output ? " to u8" : "", kh, kw,
                (unsigned long long)(mask && kh <= 64 && kw <= 64 ? hash_of(mask, kh * kw) : 0),
                std::string(name_of(o.mode)).c_str(), o.cval);
  const std::string signature = std::string(what) + " " + std::string(name_of(t)) + numbers;
  detail::agree_on_call(where, signature, mine.count, [&] {
    const std::string w = what;
    if (t != dtype::f32 && t != dtype::f64 && t != dtype::u8)
      fail(errc::invalid_argument, w + ": dtype " + std::string(name_of(t)) +
                                       " is not supported; use f32, f64 or a u8 image");
    if (t == dtype::u8 && o.channels != 1 && o.channels != 3 && o.channels != 4)
      fail(errc::invalid_argument,
           w + ": a u8 image has 1, 3 or 4 channels, not " + std::to_string(o.channels));
    if (t != dtype::u8 && (o.channels != 1 || o.u8_output))
      fail(errc::invalid_argument, w + ": channels and a u8 output are for u8 images; an " +
                                       std::string(name_of(t)) +
                                       " image has one channel and an output of its type");
    if (!mask) fail(errc::invalid_argument, w + ": the mask is null");
    // A line (one row or one column) of an f32 or f64 image may be max_line_taps long, an outer
    // product max_separable_side on each side.
    const bool line = t != dtype::u8 && (kh == 1 || kw == 1);
    std::vector<double> col, row;
    const bool outer = t != dtype::u8 && !line && (kh > max_mask_side || kw > max_mask_side) &&
                       kh <= max_separable_side && kw <= max_separable_side &&
                       detail::factor_mask(mask, kh, kw, col, row);
    const std::size_t most = line ? max_line_taps : outer ? max_separable_side : max_mask_side;
    for (auto [side, name] : {std::pair{kh, "height"}, {kw, "width"}})
      if (side % 2 == 0 || side > most)
        fail(errc::invalid_argument,
             w + ": the mask's " + name + " is " + std::to_string(side) +
                 "; it must be odd, 1 to " + std::to_string(max_mask_side) + " (1 to " +
                 std::to_string(max_line_taps) +
                 " for a mask of one row or one column of an f32 or f64 image, 1 to " +
                 std::to_string(max_separable_side) + " for an outer product of two such)");
    if (ld_in < cols * channels || ld_out < cols * channels)
      fail(errc::invalid_argument,
           w + ": a row stride (" + std::to_string(std::min(ld_in, ld_out)) +
               ") is less than the image's width " + std::to_string(cols * channels) + " elements");
    // A plane's span of elements, from its first to past its last
    const std::size_t span_in = (mine.count - 1) * ld_in + cols * channels,
                      span_out = (mine.count - 1) * ld_out + cols * channels;
    if (planes > 1 && where == backend::mpi)
      fail(errc::unsupported, w + ": a stack of images (planes) is not split over a job's ranks; "
                                  "filter its planes one call each");
    if (planes > 1 && mine.count && cols && o.plane_out < span_out)
      fail(errc::invalid_argument,
           w + ": the outputs' planes overlap: a plane stride of " + std::to_string(o.plane_out) +
               " elements, less than a plane's " + std::to_string(span_out));
    if (mine.count && cols && planes && (!in || !out))
      fail(errc::invalid_argument, w + ": the image or the output is null");
    if (on_device && mine.count && cols && (!ex.holds(in) || !ex.holds(out)))
      fail(errc::invalid_argument, w +
                                       ": the image or the output is not in GPU memory; pass "
                                       "host data through pplab::" +
                                       w + "(pplab::backend::cuda, ...)");
    const std::size_t e = size_of(t), eo = t == dtype::u8 && !o.u8_output ? 4 : e;
    const std::size_t more = planes > 1 ? planes - 1 : 0;
    if (mine.count && cols && planes && (ex.host_memory() || on_device) &&
        overlap(in, (more * o.plane_in + span_in) * e, out, (more * o.plane_out + span_out) * eo))
      fail(errc::invalid_argument,
           w + ": the output overlaps the image; write the output to its own memory");
  });
  detail::together([&] {
    if (rows == 0 || cols == 0 || planes == 0) return;
    // The mask in the image's type, flipped in both axes for a convolution, and its factors
    // after it when it is an outer product.
    std::vector<double> m(mask, mask + kh * kw), col, row;
    if (flip) std::reverse(m.begin(), m.end());
    const bool separable = detail::factor_mask(m.data(), kh, kw, col, row);
    m.insert(m.end(), col.begin(), col.end());
    m.insert(m.end(), row.begin(), row.end());
    const detail::convolution_problem p{
        t, rows, cols, kh, kw, o.mode, o.cval, separable, channels, t == dtype::u8 && o.u8_output};
    std::vector<float> m32;
    if (detail::compute_type(p) == dtype::f32) m32.assign(m.begin(), m.end());
    const void* typed = m32.empty() ? static_cast<const void*>(m.data()) : m32.data();
    const rung_choice named{how.rung == "split_tf32" ? split_tf32_rung(what, where, p) : how.rung,
                            how.ran};
    detail::convolution_problem stack = p;
    stack.planes = planes;
    // A stack in GPU memory is chosen for as a stack where the policy has a rung that takes one
    // (a 3 x 3 outer product: c07's launch over the stack, not c06's launch per plane).
    const bool as_stack = on_device && planes > 1 && how.rung.empty() &&
                          policy_takes_stack(where, stack);
    const detail::convolution_rung& r =
        detail::chosen_rung<detail::convolution_rung>(where, as_stack ? stack : p, named);
    const std::size_t e = size_of(t), eo = size_of(detail::output_type(p));
    if (on_device && (planes == 1 || r.can_run(stack))) {  // the stack in one call
      // A rung that asks for no scratch gets none: no allocation and no zeroing a call
      detail::buffer scratch = detail::scratch_of(ex, r, stack);
      r.run({stack, in, ld_in, typed, out, ld_out, scratch.get(), ex.stream(), o.plane_in,
             o.plane_out});
      ex.finish_in_place();  // queued on a caller's stream: returned at once
      return;
    }
    // Plane by plane, through the rung chosen for one
    detail::buffer scratch = on_device ? detail::scratch_of(ex, r, p) : detail::buffer{};
    for (std::size_t i = 0; i < planes; ++i) {
      if (i) stop_if_interrupted();
      const void* plane = static_cast<const char*>(in) + i * o.plane_in * e;
      void* plane_out = static_cast<char*>(out) + i * o.plane_out * eo;
      if (on_device) r.run({p, plane, ld_in, typed, plane_out, ld_out, scratch.get(), ex.stream()});
      else detail::run_rung(r, ex, {p, plane, ld_in, typed, plane_out, ld_out, nullptr, nullptr});
    }
    if (on_device) ex.synchronize();
  });
}

}  // namespace

void correlate(backend where, dtype t, const void* in, std::size_t rows, std::size_t cols,
               std::size_t ld_in, const double* mask, std::size_t kh, std::size_t kw, void* out,
               std::size_t ld_out, const filter_options& o, const rung_choice& how) {
  filter_call("correlate", false, where, t, in, rows, cols, ld_in, mask, kh, kw, out, ld_out, o,
              how);
}

void convolve(backend where, dtype t, const void* in, std::size_t rows, std::size_t cols,
              std::size_t ld_in, const double* mask, std::size_t kh, std::size_t kw, void* out,
              std::size_t ld_out, const filter_options& o, const rung_choice& how) {
  filter_call("convolve", true, where, t, in, rows, cols, ld_in, mask, kh, kw, out, ld_out, o, how);
}

void correlate_device(dtype t, const void* in, std::size_t rows, std::size_t cols,
                      std::size_t ld_in, const double* mask, std::size_t kh, std::size_t kw,
                      void* out, std::size_t ld_out, const filter_options& o,
                      const rung_choice& how) {
  filter_call("correlate", false, backend::cuda, t, in, rows, cols, ld_in, mask, kh, kw, out,
              ld_out, o, how, true);
}

void convolve_device(dtype t, const void* in, std::size_t rows, std::size_t cols, std::size_t ld_in,
                     const double* mask, std::size_t kh, std::size_t kw, void* out,
                     std::size_t ld_out, const filter_options& o, const rung_choice& how) {
  filter_call("convolve", true, backend::cuda, t, in, rows, cols, ld_in, mask, kh, kw, out, ld_out,
              o, how, true);
}

}  // namespace pplab

namespace pplab::detail {

namespace {

// A host image on a device in row slabs (executor::stream_slabs): slab s's output rows
// [first, first + rows) are computed from its input rows with their halo (rows_with_halo),
// gathered as the boundary mode maps them (wrap reads the far end's rows, reflect the slab's
// neighbours'); the halo's own output rows are dropped.
struct row_slabs {
  const convolution_problem& p;
  std::size_t per_slab;  // output rows in a full slab

  std::size_t count() const { return (p.rows + per_slab - 1) / per_slab; }
  std::size_t first(std::size_t s) const { return s * per_slab; }
  std::size_t rows(std::size_t s) const { return std::min(per_slab, p.rows - first(s)); }
  std::int64_t from(std::size_t s) const { return rows_with_halo(p, first(s), rows(s)).from; }
  std::int64_t to(std::size_t s) const { return rows_with_halo(p, first(s), rows(s)).to; }
  std::size_t input_rows(std::size_t s) const { return std::size_t(to(s) - from(s)); }
  std::size_t most_input_rows() const { return per_slab + 2 * (p.kh / 2); }
};

void run_in_slabs(const convolution_rung& r, executor& ex, const convolution_call& host) {
  const convolution_problem& p = host.p;
  const std::size_t n = p.cols * p.channels, e = size_of(p.type), eo = size_of(output_type(p));
  const std::size_t in_row = n * e, out_row = n * eo, halo = 2 * (p.kh / 2);
  // About 16 slabs, each 8 to 64 MiB of rows: enough slabs that the first copy in and the last
  // copy out, which nothing overlaps, are a small part; large enough that a slab's fixed costs
  // (a launch, two copies, a wait) are too. The slots' input and output on the device take at
  // most half of what is free.
  const std::size_t row = std::max(in_row, out_row);
  const std::size_t slab_bytes =
      std::clamp(p.rows * row / 16, std::size_t(8) << 20, std::size_t(64) << 20);
  std::size_t per_slab = std::max<std::size_t>(slab_bytes / row, 1);
  while (per_slab > 1 &&
         2 * executor::slab_slots * (per_slab + halo) * (in_row + out_row) > ex.free_bytes())
    per_slab /= 2;
  const row_slabs slabs{p, std::min(per_slab, p.rows)};
  convolution_problem most = p;
  most.rows = slabs.most_input_rows();
  buffer scratch[executor::slab_slots];
  for (buffer& b : scratch) b = scratch_for(ex, r.scratch(most));
  const char* in = static_cast<const char*>(host.in);
  char* out = static_cast<char*>(host.out);
  ex.stream_slabs(
      slabs.count(), in_row, most.rows, out_row, most.rows * out_row,
      [&](std::size_t s) {
        executor::slab_rows rows{
            {}, out + slabs.first(s) * host.ld_out * eo, host.ld_out * eo, slabs.rows(s)};
        for_each_row_run(p, {slabs.from(s), slabs.to(s)},
                         [&](std::size_t at, std::size_t count, std::size_t) {
                           rows.in.push_back({in + at * host.ld_in * e, host.ld_in * e, count});
                         });
        return rows;
      },
      [&](std::size_t s, const void* slab_in, void* slab_out, int slot, void* stream) {
        convolution_problem q = p;
        q.rows = slabs.input_rows(s);
        r.run({q, slab_in, n, host.mask, slab_out, n, scratch[slot].get(), stream});
        const std::size_t kept = std::size_t(std::int64_t(slabs.first(s)) - slabs.from(s));
        return static_cast<const void*>(static_cast<const char*>(slab_out) + kept * out_row);
      });
}

}  // namespace

// Host data on a device backend: a small image copied in row by row into a packed buffer (its
// row stride stays on the host side) and the output copied out the same way; a large one in row
// slabs (run_in_slabs).
namespace {

// A long filter on one machine's cores (seq, cpu) in bands of rows, so that a stop asked from
// outside (pplab/interrupt.hpp) is taken between them: each band is the image's rows around it
// (kh / 2 more each way, fewer at the image's edges), filtered as an image of its own; its rows
// within kh / 2 of a cut are wrong there (the cut is no edge) and are the neighbours' rows: those
// above were already right, so they are saved first and put back; those below are written again
// by the next band. Every output is computed from the same values by the same rung, so the bits
// are the same as in one piece. A band is at least 32 (kh / 2) rows, so the rows filtered twice
// are at most 1/16 of the work. Not for wrap mode, whose edges reach the far side of the image.
void run_in_bands(const convolution_rung& r, const convolution_call& call) {
  const convolution_problem& p = call.p;
  const std::size_t h = p.kh / 2, n = p.cols * p.channels;
  const double per_row = double(n) * double(p.kh) * double(p.kw);
  const bool one_host = r.info.where == backend::seq || r.info.where == backend::cpu;
  const std::size_t band =
      one_host && p.mode != boundary::wrap && per_row > 0
          ? std::max<std::size_t>(std::max<std::size_t>(64, 32 * h),
                                  std::size_t(std::ceil(piece_work() / per_row)))
          : p.rows;
  if (band >= p.rows) {
    r.run(call);
    return;
  }
  const std::size_t e = size_of(p.type), eo = size_of(output_type(p));
  const auto* in = static_cast<const std::byte*>(call.in);
  auto* out = static_cast<std::byte*>(call.out);
  std::vector<std::byte> above(h * n * eo);  // the rows above a band that it writes again
  for (std::size_t r0 = 0; r0 < p.rows;) {
    stop_if_interrupted();
    const std::size_t r1 = std::min(p.rows, r0 + band);
    const std::size_t s0 = r0 >= h ? r0 - h : 0, s1 = std::min(p.rows, r1 + h);
    for (std::size_t i = s0; i < r0; ++i)
      std::memcpy(&above[(i - s0) * n * eo], out + i * call.ld_out * eo, n * eo);
    convolution_call piece = call;
    piece.p.rows = s1 - s0;
    piece.in = in + s0 * call.ld_in * e;
    piece.out = out + s0 * call.ld_out * eo;
    r.run(piece);
    for (std::size_t i = s0; i < r0; ++i)
      std::memcpy(out + i * call.ld_out * eo, &above[(i - s0) * n * eo], n * eo);
    r0 = r1;
  }
}

}  // namespace

void run_rung(const convolution_rung& r, executor& ex, const convolution_call& host) {
  const convolution_problem& p = host.p;
  if (p.planes > 1 && !ex.host_memory()) {  // a stack: copied in and out whole, plane by plane
    const std::size_t e = size_of(p.type), eo = size_of(output_type(p)), n = p.cols * p.channels;
    const std::size_t plane = p.rows * n;
    buffer in(ex, p.planes * plane * e), out(ex, p.planes * plane * eo);
    for (std::size_t i = 0; i < p.planes; ++i)
      ex.copy_rows_in(static_cast<char*>(in.get()) + i * plane * e, n * e,
                      static_cast<const char*>(host.in) + i * host.plane_in * e, host.ld_in * e,
                      n * e, p.rows);
    buffer scratch = scratch_for(ex, r.scratch(p));
    r.run({p, in.get(), n, host.mask, out.get(), n, scratch.get(), ex.stream(), plane, plane});
    for (std::size_t i = 0; i < p.planes; ++i)
      ex.copy_rows_out(static_cast<char*>(host.out) + i * host.plane_out * eo, host.ld_out * eo,
                       static_cast<const char*>(out.get()) + i * plane * eo, n * eo, n * eo,
                       p.rows);
    return;
  }
  if (ex.host_memory()) {
    buffer scratch = scratch_for(ex, r.scratch(p));
    convolution_call call = host;
    call.scratch = scratch.get(), call.stream = ex.stream();
    if (p.planes > 1) r.run(call);  // a stack's rung cuts it as it likes
    else run_in_bands(r, call);
    return;
  }
  const std::size_t e = size_of(p.type), eo = size_of(output_type(p)), n = p.cols * p.channels;
  if (ex.addressable() && p.rows * n * e >= slab_streaming_bytes) return run_in_slabs(r, ex, host);
  buffer in(ex, p.rows * n * e), out(ex, p.rows * n * eo);
  ex.copy_rows_in(in.get(), n * e, host.in, host.ld_in * e, n * e, p.rows);
  buffer scratch = scratch_for(ex, r.scratch(p));
  r.run({p, in.get(), n, host.mask, out.get(), n, scratch.get(), ex.stream()});
  ex.copy_rows_out(host.out, host.ld_out * eo, out.get(), n * eo, n * eo, p.rows);
}

void run_rung(const convolution_rung& r, const convolution_call& host_call) {
  require_backend(r.info.where);
  run_rung(r, executor_for(r.info.where), host_call);
}

void reference_correlation(const convolution_problem& p, const void* in, std::size_t ld_in,
                           const double* mask, double* want, double* scale) {
  visit_dtype(p.type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, std::uint8_t>) {
      // As the rungs see them: the values in the image's type, the mask in the type they compute
      // in (f32 for a u8 image).
      using M = std::conditional_t<std::is_same_v<T, std::uint8_t>, float, T>;
      const T* x = static_cast<const T*>(in);
      const auto rows = std::int64_t(p.rows), cols = std::int64_t(p.cols);
      const auto ch = std::int64_t(p.channels);
      const auto rh = std::int64_t(p.kh / 2), rw = std::int64_t(p.kw / 2);
      const double outside =
          std::is_same_v<T, std::uint8_t> ? double(float(p.cval)) : double(T(p.cval));
#pragma omp parallel for schedule(static)
      for (std::int64_t y = 0; y < rows; ++y)
        for (std::int64_t c = 0; c < cols; ++c)
          for (std::int64_t k = 0; k < ch; ++k) {
            double acc = 0, size = 0;
            for (std::int64_t i = 0; i < std::int64_t(p.kh); ++i) {
              const std::int64_t r = boundary_index(y + i - rh, rows, p.mode);
              for (std::int64_t j = 0; j < std::int64_t(p.kw); ++j) {
                const std::int64_t q = boundary_index(c + j - rw, cols, p.mode);
                const double v =
                    r < 0 || q < 0 ? outside : double(x[r * std::int64_t(ld_in) + q * ch + k]);
                const double m = double(M(mask[i * std::int64_t(p.kw) + j]));
                acc += m * v;
                size += std::abs(m * v);
              }
            }
            want[(y * cols + c) * ch + k] = acc;
            scale[(y * cols + c) * ch + k] = size;
          }
    }
  });
}

bool factor_mask(const double* mask, std::size_t kh, std::size_t kw, std::vector<double>& col,
                 std::vector<double>& row) {
  // A mask with a NaN or an infinite weight is never factored: NaN compares false with every
  // bound below, and inf / inf has no meaning.
  for (std::size_t i = 0; i < kh * kw; ++i)
    if (!std::isfinite(mask[i])) return false;
  std::size_t i0 = 0, j0 = 0;
  double top = 0;
  for (std::size_t i = 0; i < kh; ++i)
    for (std::size_t j = 0; j < kw; ++j)
      if (std::abs(mask[i * kw + j]) > top) top = std::abs(mask[i * kw + j]), i0 = i, j0 = j;
  if (!(top > 0)) return false;  // all zero: direct
  col.resize(kh), row.resize(kw);
  for (std::size_t i = 0; i < kh; ++i) col[i] = mask[i * kw + j0];
  for (std::size_t j = 0; j < kw; ++j) row[j] = mask[i0 * kw + j] / mask[i0 * kw + j0];
  // Each weight must come back to within a few roundings of itself, relative to its own size
  // (not the largest weight's: a tap of 1e-10 beside one of 1e6 is kept, and a zero must come
  // back as an exact zero). col[i] * row[j] is three roundings from the weight of a true outer
  // product, so 8 ulps of slack hold Gaussian and box masks built in double. The factored mask
  // M' then satisfies |M' - M| <= 8 ulp |M| weight by weight, so the two passes differ from the
  // direct sum by at most 8 ulp x sum |M| |x|: far inside the dot-product tolerance that every
  // rung is held to (taps x ulp of the compute type x the same sum).
  for (std::size_t i = 0; i < kh; ++i)
    for (std::size_t j = 0; j < kw; ++j) {
      const double w = mask[i * kw + j], back = col[i] * row[j];
      if (!std::isfinite(back) || std::abs(w - back) > 8 * 0x1.0p-52 * std::abs(w)) {
        col.clear(), row.clear();
        return false;
      }
    }
  return true;
}

std::string tile_intensity(const convolution_problem& p, std::size_t out_w, std::size_t out_h) {
  if (out_w == 0 || out_h == 0) return "";
  // A separable mask's two passes: kw multiply-adds per value of the tile's rows with their
  // halo, then kh per output.
  const double outputs = double(out_w * out_h), rows_with_halo = double(out_h + p.kh - 1);
  const double fmas = p.separable
                          ? rows_with_halo * double(out_w) * double(p.kw) + outputs * double(p.kh)
                          : outputs * double(p.kh * p.kw);
  const double loaded = rows_with_halo * double(out_w + p.kw - 1);
  char text[160];
  std::snprintf(text, sizeof text,
                "tile of %zux%zu outputs: %.1f multiply-adds per value loaded, %.1f without the "
                "halo",
                out_w, out_h, fmas / loaded, fmas / outputs);
  return text;
}

bool output_close_to_reference(const convolution_problem& p, double got, double want, double scale,
                               const rung_info* held_as) {
  const bool tf32_split = held_as && held_as->tf32_split, truncates = held_as && held_as->truncates;
  const std::size_t taps = p.kh * p.kw;
  if (output_type(p) != dtype::u8)
    return close_to_reference(compute_type(p), taps, got, want, scale, tf32_split);
  if (std::isnan(want)) return got == 0;
  const double slack = dot_tolerance(taps, dtype::f32) * scale + 0x1.0p-24 * std::abs(want);
  const auto to_u8 = [&](double v) {
    return double(truncates ? saturate_u8(std::trunc(v)) : saturate_u8(v));
  };
  return got >= to_u8(want - slack) && got <= to_u8(want + slack);
}

bool close_to_reference(dtype t, std::size_t taps, double got, double want, double scale,
                        bool tf32_split) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  const double tiny = t == dtype::f32 ? double(std::numeric_limits<float>::min())
                                      : std::numeric_limits<double>::min();
  const double per_term = tf32_split ? split_tf32_tolerance(taps) : dot_tolerance(taps, t);
  return std::abs(got - want) <=
         per_term * std::max(scale, tiny) + (t == dtype::f32 ? 0x1.0p-24 * std::abs(want) : 0.0);
}

}  // namespace pplab::detail
