// pplab::reduce: checks the call, takes the backend's rung from its policy, runs it through the
// backend's executor. Host data on a device backend is streamed in fixed 64 MiB chunks (each
// chunk's answer written on the device), and the chunk answers are combined on the host in chunk
// order, so the result is deterministic and no chunk needs more than 2 x 64 MiB of device memory.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/pieces.hpp"
#include "core/verify.hpp"
#include "pplab/device.hpp"
#include "pplab/interrupt.hpp"
#include "reduce/reduce_common.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail {
namespace {

constexpr std::size_t chunk_bytes = std::size_t(64) << 20;

// Per-chunk answers combined in chunk order. A mean's chunks are means (a chunk's sum may not fit
// the 64 bits of a scalar): weighted by their lengths and added in long double. An argmin's or
// argmax's chunks are indices into their chunk: each pair is made again from the host data.
scalar combine_in_order(const reduce_problem& p, const std::vector<scalar>& parts,
                        std::size_t per_chunk, const void* host_in) {
  if (is_arg(p.what)) {
    return visit_reduce<true, false, true>(p.type, p.what, [&](auto tag, auto otag) {
      using T = decltype(tag);
      constexpr op O = decltype(otag)::value;
      acc_t<T, O> acc = identity<T, O>();
      for (std::size_t c = 0; c < parts.size(); ++c) {
        if constexpr (is_arg(O)) {
          if (parts[c].i < 0) continue;
          const std::size_t at = c * per_chunk + std::size_t(parts[c].i);
          acc = combine<T, O>(acc, lift<T, O>(static_cast<const T*>(host_in)[at], at));
        }
      }
      return answer_of(acc, p.what, p.n);
    });
  }
  if (p.what == op::mean) {
    long double total = 0;
    for (std::size_t c = 0; c < parts.size(); ++c)
      total += (long double)parts[c].f * (long double)std::min(per_chunk, p.n - c * per_chunk);
    return scalar::of(double(total / (long double)p.n));
  }
  return visit_reduce<false, false, true>(p.type, p.what, [&](auto tag, auto otag) {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    using A = acc_t<T, O>;
    A acc = identity<T, O>();
    for (const scalar& s : parts) acc = combine<T, O>(acc, s.as<A>());
    return answer_of(acc, p.what, p.n);
  });
}

}  // namespace

bool close_enough(const scalar& got, const scalar& want, double scale, std::size_t n,
                  bool float_accumulator, double& rel) {
  rel = 0;
  if (got.k != want.k) return rel = 1, false;
  if (got.k == scalar::kind::i64) return got.i == want.i;
  if (got.k == scalar::kind::u64) return got.u == want.u;
  if (got.f == want.f) return true;  // also the infinite identities of min and max
  if (std::isnan(want.f) || std::isnan(got.f))
    return rel = 1, std::isnan(want.f) && std::isnan(got.f);
  // Below the smallest normal number a rounding step errs by a fixed amount, not a relative one
  // (a product of a thousand normal values can land there: 3.7e-315 in one order, one subnormal
  // step away in another), so the scale is never below that number.
  const double tiny = float_accumulator ? double(std::numeric_limits<float>::min())
                                        : std::numeric_limits<double>::min();
  const double s = std::max({scale, std::abs(want.f), tiny});
  rel = std::abs(got.f - want.f) / s;
  return rel <= sum_tolerance(n, float_accumulator);
}

namespace {

// The answer and the rung's scratch in one allocation (the answer in its first bytes, then
// the scratch, its first 256 bytes zeroed as scratch_for gives it): on a GPU each allocation is a
// call to the driver and a wait for the stream, paid on every call. Arrays split over several
// GPUs (nccl) are named by their own pointers, never by offsets into one: two allocations there.
// The answer, answer_bytes(p) of them, is copied to `answer` on the host.
void answer_in_place(const reduce_rung& r, executor& ex, const reduce_problem& p, const void* in,
                     void* answer) {
  const std::size_t answer_room = ceil_div(answer_bytes(p), 256) * 256;
  const std::size_t scratch_bytes = std::max<std::size_t>(r.scratch(p), 256);
  const bool one = ex.addressable();
  buffer out(ex, one ? answer_room + scratch_bytes : answer_room);
  buffer apart = one ? buffer() : buffer(ex, scratch_bytes);
  void* scratch = one ? static_cast<char*>(out.get()) + answer_room : apart.get();
  ex.fill(scratch, 0, 256);
  r.run({p, in, out.as<scalar>(), scratch, ex.stream()});
  ex.copy_out(answer, out.get(), answer_bytes(p));
}

// The moments of a problem's parts (answer_bytes(p) each, in `bytes`) merged in part order.
moments merged_moments(const std::vector<std::byte>& bytes) {
  moments whole;
  for (std::size_t at = 0; at < bytes.size(); at += sizeof(moments)) {
    moments m;
    std::memcpy(&m, bytes.data() + at, sizeof m);
    whole = combine<double, op::var>(whole, m);
  }
  return whole;
}

// The exact totals of a problem's parts (answer_bytes(p) each, in `bytes`) added: exactly.
exact_total merged(const std::vector<std::byte>& bytes) {
  exact_total whole;
  for (std::size_t at = 0; at < bytes.size(); at += sizeof(exact_total)) {
    exact_total t;
    std::memcpy(&t, bytes.data() + at, sizeof t);
    whole.merge(t);
  }
  return whole;
}

// The answers of p's parts, answer_bytes(p) each, as run_rung cuts host data: one part in place
// (the host's data, or an array split over several GPUs copied in whole); parts of
// piece_elements() on the host; chunks streamed to a GPU. `per_part`: the elements of each part
// but the last.
std::vector<std::byte> answers_of_parts(const reduce_rung& r, executor& ex, const reduce_problem& p,
                                        const void* host_in, std::size_t& per_part) {
  // Many values on one machine's cores (seq, cpu) are reduced in parts so that a stop asked
  // from outside (pplab/interrupt.hpp) is taken between them. Not a plain mean, whose integer
  // sum is exact in one piece (128 bits) and would be rounded in parts; an exact one's parts
  // are exact.
  const bool one_host = (r.info.where == backend::seq || r.info.where == backend::cpu) &&
                        (p.what != op::mean || p.exact);
  const std::size_t piece = piece_elements(), elem = size_of(p.type), answer = answer_bytes(p);
  const auto part_problem = [&](std::size_t len) {
    reduce_problem q = p;
    q.n = len;
    return q;
  };
  per_part = p.n;
  std::vector<std::byte> one(answer);
  if (ex.host_memory() && (!one_host || p.n < 2 * piece)) {
    answer_in_place(r, ex, p, host_in, one.data());
    return one;
  }
  if (ex.host_memory()) {
    per_part = piece;
    std::vector<std::byte> parts(ceil_div(p.n, piece) * answer);
    for (std::size_t i0 = 0, c = 0; i0 < p.n; i0 += piece, ++c) {
      stop_if_interrupted();
      answer_in_place(r, ex, part_problem(std::min(piece, p.n - i0)),
                      static_cast<const std::byte*>(host_in) + i0 * elem,
                      parts.data() + c * answer);
    }
    return parts;
  }
  if (!ex.addressable()) {
    // Arrays split over several GPUs: the data copied in whole (to every GPU at once).
    buffer in(ex, p.n * elem);
    ex.copy_in(in.get(), host_in, in.size());
    answer_in_place(r, ex, p, in.get(), one.data());
    return one;
  }
  const std::size_t per_chunk = chunk_bytes / elem;
  per_part = per_chunk;
  const std::size_t chunks = p.n ? ceil_div(p.n, per_chunk) : 1;
  const std::size_t scratch = std::max(r.scratch(part_problem(std::min(per_chunk, p.n))),
                                       r.scratch(part_problem(p.n - (chunks - 1) * per_chunk)));
  buffer scratches[2] = {scratch_for(ex, scratch), scratch_for(ex, scratch)};
  buffer answers(ex, chunks * answer);
  ex.fill(answers.get(), 0xab, answers.size());  // poison: the rung must write
  ex.synchronize();                              // before the chunk streams use them
  ex.stream_in(
      host_in, p.n * elem, per_chunk * elem,
      [&](const void* data, std::size_t bytes, std::size_t c, int slot, void* stream) {
        r.run({part_problem(bytes / elem), data,
               reinterpret_cast<scalar*>(answers.as<std::byte>() + c * answer),
               scratches[slot].get(), stream});
      },
      [](int) {});
  std::vector<std::byte> parts(chunks * answer);
  ex.copy_out(parts.data(), answers.get(), parts.size());
  return parts;
}

}  // namespace

scalar run_in_place(const reduce_rung& r, executor& ex, const reduce_problem& asked,
                    const void* in) {
  const reduce_problem p = as_asked(asked);
  if (p.exact) {
    exact_total t;
    answer_in_place(r, ex, p, in, &t);
    return rounded(p, t);
  }
  if (is_moments(p.what)) {
    moments m;
    answer_in_place(r, ex, p, in, &m);
    return answer_of(m, p.what, p.n);
  }
  scalar s;
  answer_in_place(r, ex, p, in, &s);
  return s;
}

moments moments_of(const reduce_rung& r, executor& ex, const reduce_problem& p,
                   const void* host_in) {
  std::size_t per_part = 0;
  return merged_moments(answers_of_parts(r, ex, as_asked(p), host_in, per_part));
}

exact_total exact_total_of(const reduce_rung& r, executor& ex, const reduce_problem& p,
                           const void* host_in) {
  std::size_t per_part = 0;
  return merged(answers_of_parts(r, ex, p, host_in, per_part));
}

scalar run_rung(const reduce_rung& r, executor& ex, const reduce_problem& asked,
                const void* host_in) {
  const reduce_problem p = as_asked(asked);
  std::size_t per_part = 0;
  const std::vector<std::byte> bytes = answers_of_parts(r, ex, p, host_in, per_part);
  if (p.exact) return rounded(p, merged(bytes));  // the totals added, rounded once
  if (is_moments(p.what)) return answer_of(merged_moments(bytes), p.what, p.n);
  std::vector<scalar> answers(bytes.size() / sizeof(scalar));
  std::memcpy(answers.data(), bytes.data(), bytes.size());
  if (answers.size() == 1) return answers[0];
  return combine_in_order(p, answers, per_part, host_in);  // combined in part order
}

scalar run_rung(const reduce_rung& r, const reduce_problem& p, const void* host_in) {
  require_backend(r.info.where);
  return run_rung(r, executor_for(r.info.where), p, host_in);
}

}  // namespace pplab::detail

namespace pplab {

namespace {
// nanargmin's and nanargmax's answer: an index, or an error where every element is NaN (NumPy's
// "All-NaN slice encountered").
scalar index_of_a_number(const scalar& s, op o) {
  if (skips_nan(o) && is_arg(o) && s.i < 0)
    fail(errc::invalid_argument, "reduce: " + std::string(name_of(o)) +
                                     " of NaN alone (All-NaN slice encountered, as NumPy says)");
  return s;
}
}  // namespace

scalar reduce(backend where, dtype t, const void* data, std::size_t n, op o,
              const rung_choice& how) {
  detail::require_backend(where);
  o = detail::as_for(t, o);  // a nan op of integers: its plain op
  // On the mpi backend, data is this rank's part; the answer is the whole job's, on every rank.
  const std::uint64_t total = detail::agree_on_call(
      where, "reduce " + std::string(name_of(t)) + " " + std::string(name_of(o)), n, [&] {
        if (n > 0 && data == nullptr)
          fail(errc::invalid_argument, "reduce: data is null but n = " + std::to_string(n));
      });
  return detail::together([&] {
    if (o == op::mean && total == 0)
      fail(errc::invalid_argument,
           "reduce: the mean of an empty input is undefined; check n before asking for a mean");
    if (is_arg(o) && total == 0)
      fail(errc::invalid_argument,
           "reduce: attempt to get " + std::string(name_of(o)) + " of an empty sequence");
    if ((is_arg(o) || is_moments(o) || skips_nan(o)) && where == backend::nccl)
      fail(errc::unsupported, "reduce: " + std::string(name_of(o)) +
                                  " runs on seq, cpu, cuda and mpi; not on nccl yet");
    const detail::reduce_problem p{t, o, n};
    return index_of_a_number(
        detail::run_rung(detail::chosen_rung<detail::reduce_rung>(where, p, how), p, data), o);
  });
}

namespace {
// The mean and the argmin or argmax of no element are errors (`what`: a row, an axis).
void refuse_empty(const char* call, op o, const char* what) {
  if (o == op::mean)
    fail(errc::invalid_argument,
         std::string(call) + ": the mean of an empty " + what + " is undefined");
  if (is_arg(o))
    fail(errc::invalid_argument, std::string(call) + ": attempt to get " + std::string(name_of(o)) +
                                     " of an empty " + what);
}

// The row stride of a rows call (0: cols), refused below cols, and the mean of empty rows refused:
// what reduce_rows and reduce_rows_device check alike; `call` opens the errors.
std::size_t checked_row_stride(const char* call, std::size_t rows, std::size_t cols, std::size_t ld,
                               op o) {
  ld = ld ? ld : cols;
  if (ld < cols)
    fail(errc::invalid_argument, std::string(call) + ": the row stride " + std::to_string(ld) +
                                     " is less than the row's " + std::to_string(cols) +
                                     " elements");
  if (rows && cols == 0) refuse_empty(call, o, "row");
  return ld;
}

// The answers of an outer x rows x cols axis call (0: nothing to do), after the checks that
// reduce_axis and reduce_axis_device share; `call` opens the errors.
std::size_t checked_axis(const char* call, std::size_t outer, std::size_t rows, std::size_t cols,
                         op o) {
  const std::size_t answers = outer * cols;
  if (cols && answers / cols != outer)
    fail(errc::invalid_argument, std::string(call) + ": outer x cols overflows the size type");
  if (rows && answers && (answers * rows) / rows != answers)
    fail(errc::invalid_argument, std::string(call) + ": the array's size overflows the size type");
  if (answers && rows == 0) refuse_empty(call, o, "axis");
  return answers;
}

// The cuda backend's executor, once the data (where the call reads any) and the answers are
// its memory; `host` says what to call for host memory instead.
detail::executor& gpu_holding(const char* call, bool reads, const void* data, const void* out,
                              const char* host) {
  detail::require_backend(backend::cuda);
  detail::executor& ex = detail::executor_for(backend::cuda);
  if (reads && !ex.holds(data))
    fail(errc::invalid_argument,
         std::string(call) + ": the data is not device memory; reduce " + host);
  if (!ex.holds(out))
    fail(errc::invalid_argument, std::string(call) + ": the answers' memory is not device memory");
  return ex;
}
}  // namespace

// The kind of the answers along an axis (reduce_rows_device's wide types): double for a mean, a
// variance or a deviation, an index for argmin and argmax, else the kind of the reduction of
// nothing.
scalar::kind answer_kind(dtype t, op o) {
  if (o == op::mean || is_moments(o)) return scalar::kind::f64;
  if (is_arg(o)) return scalar::kind::i64;
  return reduce(backend::seq, t, nullptr, 0, o).k;
}

// A host array's rows or axis reduced on the GPU, for a caller who names cuda: the `elements`
// elements at data copied to the GPU, `reduce_there` run on the copy into `answers` wide answers
// in GPU memory, and those copied back as scalars.
template <class Reduce>
void reduced_on_the_gpu(dtype t, const void* data, std::size_t elements, op o, std::size_t answers,
                        scalar* out, Reduce&& reduce_there) {
  detail::require_backend(backend::cuda);
  detail::executor& ex = detail::executor_for(backend::cuda);
  const std::size_t bytes = elements * size_of(t);
  detail::buffer in(ex, std::max<std::size_t>(bytes, 1)), got(ex, answers * 8);
  if (bytes) ex.copy_in(in.get(), data, bytes);
  reduce_there(in.get(), got.get());
  std::vector<std::uint64_t> bits(answers);
  ex.copy_out(bits.data(), got.get(), answers * 8);
  const scalar::kind k = answer_kind(t, o);
  for (std::size_t i = 0; i < answers; ++i) {
    out[i].k = k;
    std::memcpy(&out[i].u, &bits[i], 8);  // the union's 8 bytes, as the GPU wrote them
  }
}

void reduce_rows(backend where, dtype t, const void* data, std::size_t rows, std::size_t cols,
                 std::size_t ld, op o, scalar* out) {
  o = detail::as_for(t, o);
  if (where != backend::seq && where != backend::cpu && where != backend::cuda)
    fail(errc::unsupported, "reduce_rows: rows are reduced on seq, cpu and cuda, not on '" +
                                std::string(name_of(where)) +
                                "'; reduce a whole array there with pplab::reduce");
  ld = checked_row_stride("reduce_rows", rows, cols, ld, o);
  if (rows && cols && !data) fail(errc::invalid_argument, "reduce_rows: data is null");
  if (rows && !out) fail(errc::invalid_argument, "reduce_rows: out is null");
  if (rows == 0) return;
  if (where == backend::cuda)
    return reduced_on_the_gpu(t, data, (rows - 1) * ld + cols, o, rows, out,
                              [&](const void* in, void* answers) {
                                reduce_rows_device(t, in, rows, cols, ld, o, answers);
                              });
  const detail::reduce_problem p{t, o, cols};
  // The backend's own rung on every row: each answer has the bits of reduce(where, row) (on cpu a
  // rung whose bits do not depend on the thread count), and on cpu the rows, not the elements of
  // a row, are shared among the threads (a rung's own parallel loop inside runs on one thread).
  const detail::reduce_rung& r = detail::default_rung<detail::reduce_rung>(where, p);
  const std::size_t scratch = r.scratch(p), bytes = ld * size_of(t);
  const auto* first = static_cast<const char*>(data);
#pragma omp parallel if (where == backend::cpu && rows > 1)
  {
    std::vector<std::byte> mine(std::max<std::size_t>(scratch, 256));
    detail::moments row_moments;  // var's and std's answer before its last step
#pragma omp for schedule(static)
    for (std::ptrdiff_t y = 0; y < std::ptrdiff_t(rows); ++y) {
      if (scratch) std::fill_n(mine.begin(), 256, std::byte{0});  // as scratch_for gives it
      if (!is_moments(o)) {
        r.run({p, first + std::size_t(y) * bytes, out + y, mine.data(), nullptr});
        continue;
      }
      r.run({p, first + std::size_t(y) * bytes, reinterpret_cast<scalar*>(&row_moments),
             mine.data(), nullptr});
      out[y] = detail::answer_of(row_moments, o, cols);
    }
  }
}

namespace {
// Columns reduced a block at a time: `width` accumulators, each row of the block read once, left
// to right, eight rows a pass (four: numpy.sum(axis=0) of 8192^2 f32 5.0 ms against 4.35 with
// eight, and the middle axis of 64x1024x1024 5.2-5.6 against 4.0-4.1, two threads of the 2-core
// EPYC). The same combine in the same order as seq's r01 on one column, whatever the block's width.
// Wide blocks, so that each page the walk down the rows touches gives many bytes: 4096 columns (16
// KiB of f32 per row, the accumulators in L1 or L2) where that leaves a block for every thread,
// else 512. A whole block has its width fixed at compile time, so that the compiler keeps the loop
// in vector registers. On the 2-core EPYC, numpy.sum(axis=0) of 8192^2 f32 went from 16.3
// to 8.8-9.1 ms with blocks of 4096 (512: 1.1x NumPy, 4096: 1.9-2.1x).
constexpr std::size_t narrow_block = 512, wide_block = 4096;
// var's and std's moments are of each column's values less its shift (shift_for,
// reduce_common.hpp: a merge a value rounds at the spread's scale, not the mean's).
template <class T, op O, std::size_t W>
void fold_columns(const T* first, std::size_t rows, std::size_t cols, std::size_t width,
                  detail::acc_t<T, O>* acc, const double* shift) {
  const std::size_t w = W ? W : width;
  const auto lift = [shift](T x, std::size_t y, std::size_t j) {
    if constexpr (is_moments(O)) return detail::lift_less<T, O>(x, y, shift[j]);
    else return detail::lift<T, O>(x, y);
  };
  std::size_t y = 0;
  // Each accumulator loaded and stored once per `pass` rows, the rows combined in order.
  constexpr std::size_t pass = 8;
  for (; y + pass <= rows; y += pass) {
    const T* r = first + y * cols;
    for (std::size_t j = 0; j < w; ++j) {
      detail::acc_t<T, O> a = acc[j];
#pragma GCC unroll 8
      for (std::size_t k = 0; k < pass; ++k)
        a = detail::combine<T, O>(a, lift(r[k * cols + j], y + k, j));
      acc[j] = a;
    }
  }
  for (; y < rows; ++y) {
    const T* row = first + y * cols;
    for (std::size_t j = 0; j < w; ++j) acc[j] = detail::combine<T, O>(acc[j], lift(row[j], y, j));
  }
}
template <class T, op O, std::size_t B>
void reduce_column_block(const T* first, std::size_t rows, std::size_t cols, std::size_t width,
                         op what, scalar* out) {
  using A = detail::acc_t<T, O>;
  std::vector<A> acc(width, detail::identity<T, O>());
  std::vector<double> shift(is_moments(O) ? width : 0);
  for (std::size_t j = 0; j < shift.size(); ++j)
    shift[j] = detail::shift_for<T, O>(first + j, rows, std::ptrdiff_t(cols));
  if (width == B) fold_columns<T, O, B>(first, rows, cols, width, acc.data(), shift.data());
  else fold_columns<T, O, 0>(first, rows, cols, width, acc.data(), shift.data());
  for (std::size_t j = 0; j < width; ++j)
    out[j] = detail::answer_of(detail::shifted_back<T, O>(acc[j], shift.empty() ? 0.0 : shift[j]),
                               what, rows);
}
template <class T, op O, std::size_t B>
void reduce_column_blocks(backend where, const T* in, std::size_t outer, std::size_t rows,
                          std::size_t cols, op o, scalar* out) {
  const std::size_t blocks = (cols + B - 1) / B;
#pragma omp parallel for schedule(static) if (where == backend::cpu && outer * blocks > 1)
  for (std::ptrdiff_t k = 0; k < std::ptrdiff_t(outer * blocks); ++k) {
    const std::size_t s = std::size_t(k) / blocks, x0 = std::size_t(k) % blocks * B;
    reduce_column_block<T, O, B>(in + s * rows * cols + x0, rows, cols, std::min(B, cols - x0), o,
                                 out + s * cols + x0);
  }
}
}  // namespace

void reduce_axis(backend where, dtype t, const void* data, std::size_t outer, std::size_t rows,
                 std::size_t cols, op o, scalar* out) {
  o = detail::as_for(t, o);
  if (where != backend::seq && where != backend::cpu && where != backend::cuda)
    fail(errc::unsupported, "reduce_axis: an axis is reduced on seq, cpu and cuda, not on '" +
                                std::string(name_of(where)) + "'");
  if (checked_axis("reduce_axis", outer, rows, cols, o) == 0) return;
  if (rows && !data) fail(errc::invalid_argument, "reduce_axis: data is null");
  if (!out) fail(errc::invalid_argument, "reduce_axis: out is null");
  if (where == backend::cuda)
    return reduced_on_the_gpu(t, data, outer * rows * cols, o, outer * cols, out,
                              [&](const void* in, void* answers) {
                                reduce_axis_device(t, in, outer, rows, cols, o, answers);
                              });
  const std::size_t threads = where == backend::cpu ? std::size_t(omp_get_max_threads()) : 1;
  const bool wide = outer * ((cols + wide_block - 1) / wide_block) >= threads;
  detail::visit_reduce<true, true, true>(t, o, [&](auto tag, auto otag) {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    const auto* in = static_cast<const T*>(data);
    if (wide) reduce_column_blocks<T, O, wide_block>(where, in, outer, rows, cols, o, out);
    else reduce_column_blocks<T, O, narrow_block>(where, in, outer, rows, cols, o, out);
  });
}

namespace detail {
// cuda_forward.cpp
void gpu_reduce_rows(dtype t, const void* in, std::size_t rows, std::size_t cols, std::size_t ld,
                     op o, void* out, bool own, void* stream);
std::size_t gpu_reduce_columns_scratch(dtype t, op o, std::size_t outer, std::size_t rows,
                                       std::size_t cols);
void gpu_reduce_columns(dtype t, const void* in, std::size_t outer, std::size_t rows,
                        std::size_t cols, op o, void* out, bool own, void* scratch, void* stream);
}  // namespace detail

void reduce_rows_device(dtype t, const void* device_data, std::size_t rows, std::size_t cols,
                        std::size_t ld, op o, void* device_out, answer_types answers) {
  o = detail::as_for(t, o);
  ld = checked_row_stride("reduce_rows_device", rows, cols, ld, o);
  if (rows == 0) return;
  detail::executor& ex = gpu_holding("reduce_rows_device", cols > 0, device_data, device_out,
                                     "rows with pplab::reduce_rows");
  detail::gpu_reduce_rows(t, device_data, rows, cols, ld, o, device_out,
                          answers == answer_types::numpy, ex.stream());
  ex.finish_in_place();
}

void reduce_axis_device(dtype t, const void* device_data, std::size_t outer, std::size_t rows,
                        std::size_t cols, op o, void* device_out, answer_types answers) {
  o = detail::as_for(t, o);
  if (checked_axis("reduce_axis_device", outer, rows, cols, o) == 0) return;
  if (cols == 1)
    return reduce_rows_device(t, device_data, outer, rows, rows, o, device_out, answers);
  if ((cols + 31) / 32 > std::size_t(std::numeric_limits<int>::max()) / outer)
    fail(errc::invalid_argument, "reduce_axis_device: more than 2^31 tiles of 32 columns");
  detail::executor& ex = gpu_holding("reduce_axis_device", rows > 0, device_data, device_out,
                                     "a host array's axis with pplab::reduce_axis");
  const std::size_t bytes = detail::gpu_reduce_columns_scratch(t, o, outer, rows, cols);
  // Only this stream uses the scratch: no wait for the allocation.
  detail::buffer scratch = bytes ? detail::buffer::in_stream_order(ex, bytes) : detail::buffer();
  detail::gpu_reduce_columns(t, device_data, outer, rows, cols, o, device_out,
                             answers == answer_types::numpy, scratch.get(), ex.stream());
  ex.finish_in_place();
}

scalar reduce_device(dtype t, const void* device_data, std::size_t n, op o) {
  o = detail::as_for(t, o);
  if (n > 0 && device_data == nullptr)
    fail(errc::invalid_argument, "reduce: device data is null but n = " + std::to_string(n));
  if (o == op::mean && n == 0)
    fail(errc::invalid_argument, "reduce: the mean of an empty input is undefined");
  if (is_arg(o) && n == 0)
    fail(errc::invalid_argument,
         "reduce: attempt to get " + std::string(name_of(o)) + " of an empty sequence");
  detail::require_backend(backend::cuda);
  detail::executor& ex = detail::executor_for(backend::cuda);
  if (n && !ex.holds(device_data))
    fail(errc::invalid_argument, "reduce: the pointer is not device memory; pass host data "
                                 "through pplab::reduce(pplab::cuda, host_range, op) instead");
  const detail::reduce_problem p{t, o, n};
  return index_of_a_number(
      detail::run_in_place(detail::default_rung<detail::reduce_rung>(backend::cuda, p), ex, p,
                           device_data),
      o);
}

scalar reduce_device_parts(dtype t, std::span<const device_part> parts, op o) {
  o = detail::as_for(t, o);
  detail::require_backend(backend::nccl);
  detail::executor& ex = detail::executor_for(backend::nccl);
  std::uint64_t local_n = 0;
  for (const device_part& p : parts) local_n += p.size;
  detail::buffer in;
  const std::uint64_t total = detail::agree_on_call(
      backend::nccl, "reduce " + std::string(name_of(t)) + " " + std::string(name_of(o)), local_n,
      [&] { in = detail::buffer::adopt(ex, parts, size_of(t), "reduce"); });
  return detail::together([&] {
    if (o == op::mean && total == 0)
      fail(errc::invalid_argument, "reduce: the mean of an empty input is undefined");
    if (is_arg(o) || is_moments(o) || skips_nan(o))
      fail(errc::unsupported, "reduce: " + std::string(name_of(o)) +
                                  " runs on seq, cpu, cuda and mpi; not on nccl yet");
    const detail::reduce_problem p{t, o, local_n};
    return detail::run_in_place(detail::default_rung<detail::reduce_rung>(backend::nccl, p), ex, p,
                                in.get());
  });
}

}  // namespace pplab
