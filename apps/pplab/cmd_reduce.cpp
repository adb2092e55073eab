// pplab reduce --op OP: one reduction over a file or generated data; with --axis K, numpy.sum(x,
// axis=K)'s reduction of one axis of a .npy array, written to --out or printed.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <optional>

#include "common.hpp"
#include "pplab/stopwatch.hpp"

namespace pplab::cli {
namespace {

struct reduce_options {
  data_options data;
  backend_options backend;
  std::string op_name, variant, out_path;
  std::optional<long long> axis;
  bool json = false, exact = false;
};

// The answers of reduce_axis as a .npy array of their kind (int64, uint64 or float64).
io::array as_array(const std::vector<scalar>& values, std::vector<std::size_t> shape) {
  io::array a;
  const scalar::kind k = values.empty() ? scalar::kind::f64 : values.front().k;
  a.type = k == scalar::kind::i64 ? dtype::i64 : k == scalar::kind::u64 ? dtype::u64 : dtype::f64;
  a.shape = std::move(shape);
  a.bytes.resize(values.size() * 8);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const scalar& s = values[i];
    if (s.k == scalar::kind::i64) std::memcpy(a.bytes.data() + i * 8, &s.i, 8);
    else if (s.k == scalar::kind::u64) std::memcpy(a.bytes.data() + i * 8, &s.u, 8);
    else std::memcpy(a.bytes.data() + i * 8, &s.f, 8);
  }
  return a;
}

// --axis K: one axis of the array reduced (reduce_axis, on seq, cpu or cuda; with --exact each
// line's exact sum, reduce_rows_exact, on seq or cpu), its answers an array of the other axes'
// shape.
void run_axis(const reduce_options& o, op what, backend where) {
  if (where != backend::seq && where != backend::cpu && (o.exact || where != backend::cuda))
    fail(errc::unsupported, std::string("--axis reduces on seq, cpu") +
                                (o.exact ? "" : " and cuda") + "; --backend " +
                                std::string(name_of(where)) + " reduces whole arrays");
  if (!o.out_path.empty()) check_output_name(o.out_path, {".npy"});
  const loaded data = load_data(o.data, where);
  if (data.in.channels.size() != 1)
    fail(errc::invalid_argument, "--axis: the input has several channels; give a .npy array");
  const io::array& a = data.in.channels.front();
  const std::vector<std::size_t> shape =
      a.shape.empty() ? std::vector<std::size_t>{a.size()} : a.shape;
  const auto ndim = static_cast<long long>(shape.size());
  if (*o.axis < -ndim || *o.axis >= ndim)
    fail(errc::invalid_argument, "--axis " + std::to_string(*o.axis) +
                                     " is out of bounds for an array of " + std::to_string(ndim) +
                                     " dimensions");
  const std::size_t k = std::size_t(*o.axis < 0 ? *o.axis + ndim : *o.axis);
  std::size_t outer = 1, cols = 1;
  for (std::size_t d = 0; d < k; ++d) outer *= shape[d];
  for (std::size_t d = k + 1; d < shape.size(); ++d) cols *= shape[d];
  std::vector<scalar> values(outer * cols);
  if (o.exact) {
    // Each line along the axis made a row (the axis moved last, a slab at a time, unless it is
    // last already), each row's exact sum its own.
    const std::size_t rows = shape[k], w = size_of(a.type);
    std::vector<double> sums(outer * cols);
    if (cols == 1) {
      reduce_rows_exact(where, a.type, a.data(), outer, rows, rows, what, sums.data());
    } else {
      std::vector<std::byte> lines(cols * rows * w);
      for (std::size_t s = 0; s < outer; ++s) {
        const auto* slab = static_cast<const std::byte*>(a.data()) + s * rows * cols * w;
        for (std::size_t y = 0; y < rows; ++y)
          for (std::size_t c = 0; c < cols; ++c)
            std::memcpy(lines.data() + (c * rows + y) * w, slab + (y * cols + c) * w, w);
        reduce_rows_exact(where, a.type, lines.data(), cols, rows, rows, what,
                          sums.data() + s * cols);
      }
    }
    for (std::size_t i = 0; i < sums.size(); ++i) values[i] = scalar::of(sums[i]);
  } else {
    reduce_axis(where, a.type, a.data(), outer, shape[k], cols, what, values.data());
  }
  std::vector<std::size_t> kept;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (d != k) kept.push_back(shape[d]);
  if (!o.out_path.empty()) {
    io::output_file out(o.out_path);
    io::write_npy(out, as_array(values, kept));
  }
  if (o.json) {
    nlohmann::json j = {
        {"op", name_of(what)}, {"dtype", name_of(a.type)}, {"axis", k}, {"shape", kept}};
    nlohmann::json v = nlohmann::json::array();
    for (const scalar& s : values) v.push_back(json_scalar(s));
    j["values"] = v;
    fmt::print("{}\n", j.dump());
    return;
  }
  fmt::print("{} of {} along axis {}: {} values, shape ({})\n", name_of(what),
             describe(o.data, data), k, values.size(), fmt::join(kept, ", "));
  for (std::size_t i = 0; i < std::min<std::size_t>(values.size(), 8); ++i)
    fmt::print("  [{}] {}\n", i, format_scalar(values[i]));
  if (values.size() > 8)
    fmt::print("  ... ({})\n", o.out_path.empty() ? "give --out FILE.npy to save them all"
                                                  : "all in " + o.out_path);
}

void run(const reduce_options& o) {
  const op what = parse_op(o.op_name);
  const backend where = o.backend.resolve("reduce", o.variant);
  if (o.axis) return run_axis(o, what, where);
  if (!o.out_path.empty())
    fail(errc::invalid_argument, "--out is for --axis (the answers of one axis reduced)");
  loaded data = load_data(o.data, where);
  // An image's channels are reduced together: every sample value counts once. An index into
  // them would name no pixel of the file, so argmin and argmax take one channel.
  if (is_arg(what) && data.in.channels.size() > 1)
    fail(errc::invalid_argument,
         std::string(name_of(what)) + " of an image of " + std::to_string(data.in.channels.size()) +
             " channels: the index would name no pixel; convert it to one channel or a .npy");
  io::array& a = data.in.channels.front();
  for (std::size_t c = 1; c < data.in.channels.size(); ++c)
    a.bytes.insert(a.bytes.end(), data.in.channels[c].bytes.begin(),
                   data.in.channels[c].bytes.end());
  stopwatch clock;
  scalar value;
  std::string used;
  if (o.exact) {
    if (what != op::sum && what != op::mean)
      fail(errc::invalid_argument,
           "--exact is for --op sum and mean, not " + std::string(name_of(what)));
    const rung_choice how{o.variant, &used};
    value = scalar::of(what == op::sum ? sum_exact(where, a.type, a.data(), a.size(), how)
                                       : mean_exact(where, a.type, a.data(), a.size(), how));
  } else {
    value = reduce(where, a.type, a.data(), a.size(), what, {o.variant, &used});
  }
  const double ms = clock.seconds() * 1e3;
  if (!prints(where)) return;
  if (o.json) {
    nlohmann::json j = {{"op", name_of(what)},
                        {"dtype", name_of(a.type)},
                        {"n", data.whole},
                        {"value", json_scalar(value)},
                        {"rung", used}};
    fmt::print("{}\n", j.dump());
    return;
  }
  fmt::print("{} of {}: {}\n", name_of(what), describe(o.data, data), format_scalar(value));
  fmt::print("  {} in {:.3f} ms\n", used, ms);
}

}  // namespace

void add_reduce(CLI::App& app) {
  auto o = std::make_shared<reduce_options>();
  auto* cmd = app.add_subcommand(
      "reduce",
      "reduce data to one value: sum, product, min, max, mean, argmin, argmax, var, std or\n"
      "count_nonzero.\n"
      "Integer sums and products are exact modulo 2^64; float sums accumulate in double;\n"
      "min and max return NaN if any element is NaN; an empty input gives the identity.\n"
      "argmin and argmax give the index of the first extreme element (the first NaN, if any),\n"
      "as numpy.argmax; of an empty input they are an error. var and std are numpy.var and\n"
      "numpy.std (ddof 0) in double, one pass; of an empty input NaN.\n"
      "nansum, nanprod, nanmin, nanmax, nanmean, nanargmin, nanargmax, nanvar and nanstd are\n"
      "NumPy's: every NaN left out (nanmin and nanmax of NaN alone: NaN; nanargmin and\n"
      "nanargmax of NaN alone: an error).\n"
      "count_nonzero is numpy.count_nonzero: the number of elements that are not zero (NaN\n"
      "counts; -0.0 is zero); numpy.any is that count above 0, numpy.all that count equal to n.");
  cmd->add_option("--op", o->op_name,
                  "sum, product, min, max, mean, argmin, argmax, var, std or count_nonzero, or "
                  "nan and one of the first nine (nansum ... nanstd: NaN left out)")
      ->required();
  o->backend.add_to(*cmd);
  cmd->add_option(
      "--rung,--variant", o->variant,
      "run one rung by id, or by its last part (r09_vector_loads); see `pplab list reduce`");
  cmd->add_flag("--json", o->json,
                "print one JSON object {op, dtype, n, value, rung} ({op, dtype, axis, shape, "
                "values} with --axis)");
  cmd->add_option(
      "--axis", o->axis,
      "K: reduce this axis of a .npy array alone (negative from the end), as "
      "numpy.sum(x, axis=K); the answers int64, uint64 or float64 (seq, cpu, cuda); argmin and "
      "argmax give each answer's index along the axis");
  cmd->add_option("--out", o->out_path, "FILE.npy: with --axis, write the answers there");
  cmd->add_flag("--exact", o->exact,
                "sum and mean of f32 or f64 data exactly: the real sum rounded once to double "
                "(math.fsum's answer), the same bits in any order, thread count and backend "
                "(seq, cpu, cuda, mpi); --rung may name an exact rung (pplab list reduce); with "
                "--axis, each line's own exact sum (seq, cpu)");
  o->data.add_to(*cmd, "f32");
  cmd->callback([o] { run(*o); });
}

}  // namespace pplab::cli
