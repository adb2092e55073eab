// pplab histogram: count values into bins; a bar chart on the terminal, or JSON, or CSV.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "common.hpp"

namespace pplab::cli {
namespace {

struct histogram_cli {
  data_options data;
  std::size_t bins = 0;
  backend_options backend;
  std::string range, variant;
  int numpy = 0;  // numpy.histogram's rules as NumPy 1 or 2; 0: pplab's own (edges in double)
  bool json = false, csv = false;
  std::string edges, weights;  // files: the bins' edges, and one weight per value
  bool density = false;
};

// Every element of a .npy array as a double.
std::vector<double> doubles_of(const io::array& a) {
  std::vector<double> out(a.size());
  visit_dtype(a.type, [&](auto tag) {
    using T = decltype(tag);
    const T* v = static_cast<const T*>(a.data());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = double(v[i]);
  });
  return out;
}

// The edges from a .npy file (any numeric dtype) or a text file of numbers (separated by
// spaces, commas or lines).
std::vector<double> read_edges(const std::string& path) {
  if (path.ends_with(".npy")) {
    const io::array a = io::read_npy(path);
    if (a.shape.size() != 1)
      fail(errc::invalid_argument, "--edges: " + path + " must hold a 1-D array of edges");
    return doubles_of(a);
  }
  const std::vector<std::byte> bytes = io::read_file(path);
  std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::vector<double> out;
  std::size_t at = 0;
  while (true) {
    at = text.find_first_not_of(" \t\r\n,", at);
    if (at == std::string::npos) break;
    const std::size_t end = std::min(text.find_first_of(" \t\r\n,", at), text.size());
    double v = 0;
    const char* b = text.data() + at;
    if (*b == '+') ++b;
    auto [p, ec] = std::from_chars(b, text.data() + end, v);
    if (ec != std::errc() || p != text.data() + end)
      fail(errc::invalid_argument,
           "--edges: '" + text.substr(at, end - at) + "' in " + path + " is not a number");
    out.push_back(v);
    at = end;
  }
  return out;
}

std::pair<double, double> parse_range(const std::string& s) {
  const std::size_t colon = s.find(':', 1);
  double lo = 0, hi = 0;
  const auto parse = [&](const char* b, const char* e, double& v) {
    if (b != e && *b == '+') ++b;
    auto [p, ec] = std::from_chars(b, e, v);
    return ec == std::errc() && p == e;
  };
  if (colon == std::string::npos || !parse(s.data(), s.data() + colon, lo) ||
      !parse(s.data() + colon + 1, s.data() + s.size(), hi))
    fail(errc::invalid_argument,
         "--range wants LO:HI, two numbers such as 0:1 or -5:5; got '" + s + "'");
  return {lo, hi};
}

// Weights of an integer type converted to double (the histograms sum f32 or f64 weights).
void as_float_weights(io::array& w) {
  if (w.type == dtype::f32 || w.type == dtype::f64) return;
  const std::vector<double> as_double = doubles_of(w);
  w.type = dtype::f64;
  w.bytes.resize(as_double.size() * sizeof(double));
  std::memcpy(w.bytes.data(), as_double.data(), w.bytes.size());
}

// What each bin holds, as the command prints it: its count, its sum of weights, or with
// --density numpy.histogram's density.
std::vector<double> values_of(const histogram_result& h, bool density) {
  if (density) return h.density();
  if (h.weighted) return h.sums;
  return std::vector<double>(h.counts.begin(), h.counts.end());
}

nlohmann::json to_json(const histogram_result& h, bool density) {
  std::vector<double> edge_values(h.bins() + 1);
  h.edges_into(edge_values.data());
  nlohmann::json edges = nlohmann::json::array(), values = nlohmann::json::array();
  for (double e : edge_values) edges.push_back(e);
  nlohmann::json out = {{"edges", edges}, {"rung", h.rung}};
  if (density) {
    for (double v : h.density()) values.push_back(v);
    out["density"] = values;
  } else if (h.weighted) {
    for (double v : h.sums) values.push_back(v);
    out["sums"] = values;
  } else {
    for (std::uint64_t c : h.counts) values.push_back(c);
    out["counts"] = values;
  }
  if (h.weighted) {
    out["underflow"] = h.underflow_sum, out["overflow"] = h.overflow_sum, out["nan"] = h.nan_sum;
  } else {
    out["underflow"] = h.underflow, out["overflow"] = h.overflow, out["nan"] = h.nan;
  }
  return out;
}

// How a row names its bin: as a range of values, as the one value of a natural bin (bytes'
// 256 bins), or as that value and its character (a file read as bytes: a text's letters).
enum class labels { ranges, values, characters };

std::string label(const histogram_result& h, std::size_t first, std::size_t last, labels how) {
  if (how == labels::values && first == last) return fmt::format("{:>3}", first);
  if (how == labels::characters && first == last) {
    const unsigned char c = static_cast<unsigned char>(first);
    if (c > 32 && c < 127) return fmt::format("{:>3} '{}'", first, char(c));
    if (c == ' ') return fmt::format("{:>3} ' '", first);
    if (c == '\n') return fmt::format("{:>3} \\n ", first);
    return fmt::format("{:>3}    ", first);
  }
  return fmt::format("[{:.6g}, {:.6g}{}", h.edge(first), h.edge(last + 1),
                     (last + 1 == h.bins() && h.closed_last) ? "]" : ")");
}

// All bins up to 64; else only the non-empty ones up to 128 (a text's letters); else bins merged
// into 64 groups.
void print_chart(const histogram_result& h, const std::vector<double>& values,
                 const std::string& title, labels how) {
  constexpr std::size_t max_rows = 64, width = 50;
  std::vector<std::pair<std::size_t, std::size_t>> rows;  // [first, last] bins
  std::size_t nonzero = 0;
  for (double c : values) nonzero += c != 0;
  std::string note;
  if (h.bins() <= max_rows) {
    for (std::size_t i = 0; i < h.bins(); ++i) rows.push_back({i, i});
  } else if (nonzero <= 2 * max_rows) {
    for (std::size_t i = 0; i < h.bins(); ++i)
      if (values[i] != 0) rows.push_back({i, i});
    if (nonzero < h.bins()) note = fmt::format("({} empty bins not shown)", h.bins() - nonzero);
  } else {
    const std::size_t group = (h.bins() + max_rows - 1) / max_rows;
    for (std::size_t i = 0; i < h.bins(); i += group)
      rows.push_back({i, std::min(h.bins(), i + group) - 1});
    note = fmt::format("({} bins shown as {} rows of {})", h.bins(), rows.size(), group);
  }
  // Groups of bins: their counts or sums added; densities averaged over the group's width.
  std::vector<double> sums;
  double top = 0;
  for (auto [a, b] : rows) {
    double s = 0;
    for (std::size_t i = a; i <= b; ++i) s += values[i];
    sums.push_back(s);
    top = std::max(top, std::fabs(s));
  }
  if (!(top > 0)) top = 1;
  std::vector<std::string> names;
  std::size_t label_width = 0;
  for (auto [a, b] : rows) {
    names.push_back(label(h, a, b, how));
    label_width = std::max(label_width, names.back().size());
  }
  fmt::print("{}{}\n", title, note.empty() ? "" : " " + note);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double share = std::fabs(sums[r]) / top;  // NaN for a NaN sum: no bar
    const std::size_t len = share == share ? std::size_t(share * width + 0.5) : 0;
    fmt::print(
        "  {:<{}} {:>12} {}\n", names[r], label_width, fmt::format("{:.6g}", sums[r]),
        std::string(len ? len : (sums[r] != 0 && share == share ? 1 : 0), sums[r] < 0 ? '-' : '#'));
  }
  if (h.weighted)
    fmt::print("  weights below {:.6g}, above {:.6g}, of NaN values {:.6g}\n", h.underflow_sum,
               h.overflow_sum, h.nan_sum);
  else
    fmt::print("  underflow {}, overflow {}, NaN {}; total {}\n", h.underflow, h.overflow, h.nan,
               h.total());
}

void run(const histogram_cli& o) {
  if (o.json && o.csv) fail(errc::invalid_argument, "choose one of --json and --csv");
  // Checked here, not by a CLI11 validator: some CLI11 versions check the unset default (0) too.
  if (o.numpy != 0 && o.numpy != 1 && o.numpy != 2)
    fail(errc::invalid_argument, "--numpy=" + std::to_string(o.numpy) +
                                     ": give --numpy alone, or --numpy=1 or --numpy=2 (NumPy 1's "
                                     "or 2's rules)");
  histogram_options opt;
  opt.bins = o.bins;
  opt.closed_last = o.numpy != 0;
  if (o.numpy) opt.edges = o.numpy == 1 ? edge_rule::numpy1 : edge_rule::numpy;
  if (!o.range.empty()) std::tie(opt.lo, opt.hi) = parse_range(o.range);
  std::vector<double> edges;
  if (!o.edges.empty()) {
    if (!o.range.empty() || o.bins)
      fail(errc::invalid_argument, "--edges are the bins and their range: give --edges alone, "
                                   "or --bins and --range");
    edges = read_edges(o.edges);
    opt.bin_edges = edges;
  }
  const backend where = o.backend.resolve("histogram", o.variant);
  if (!o.weights.empty() && where == backend::mpi)
    fail(errc::unsupported, "--weights with --backend mpi: each rank's part of the weights file "
                            "is not read yet; run without mpirun, or from Python");
  const loaded data = load_data(o.data, where);
  const io::input& in = data.in;
  io::array weights;
  if (!o.weights.empty()) {
    weights = io::read_npy(o.weights);
    if (in.channels.size() != 1)
      fail(errc::invalid_argument, "--weights: the data has " + std::to_string(in.channels.size()) +
                                       " channels; weights go with one array of values");
    if (weights.size() != in.channels[0].size())
      fail(errc::invalid_argument, "--weights: " + o.weights + " holds " +
                                       std::to_string(weights.size()) + " weights for " +
                                       std::to_string(in.channels[0].size()) + " values");
    as_float_weights(weights);
    opt.weights = weights.data(), opt.weight_type = weights.type;
  }
  std::vector<histogram_result> results;
  for (const io::array& a : in.channels)
    results.push_back(histogram(where, a.type, a.data(), a.size(), opt, {o.variant}));
  if (!prints(where)) return;
  const bool several = results.size() > 1;
  if (o.json) {
    if (!several) {
      fmt::print("{}\n", to_json(results[0], o.density).dump());
      return;
    }
    nlohmann::json channels = nlohmann::json::array();
    for (std::size_t c = 0; c < results.size(); ++c) {
      nlohmann::json j = to_json(results[c], o.density);
      j["channel"] = in.names[c];
      channels.push_back(j);
    }
    fmt::print("{}\n", nlohmann::json{{"channels", channels}}.dump());
    return;
  }
  if (o.csv) {
    const bool weighted = !o.weights.empty();
    fmt::print("{}kind,lo,hi,{}\n", several ? "channel," : "",
               o.density  ? "density"
               : weighted ? "sum"
                          : "count");
    for (std::size_t c = 0; c < results.size(); ++c) {
      const histogram_result& h = results[c];
      const std::string ch = several ? in.names[c] + "," : "";
      const std::vector<double> v = values_of(h, o.density);
      for (std::size_t i = 0; i < h.bins(); ++i)
        fmt::print("{}bin,{:.17g},{:.17g},{:.17g}\n", ch, h.edge(i), h.edge(i + 1), v[i]);
      if (weighted)
        fmt::print("{}underflow,,{:.17g},{:.17g}\n{}overflow,{:.17g},,{:.17g}\n{}nan,,,{:.17g}\n",
                   ch, h.lo, h.underflow_sum, ch, h.hi, h.overflow_sum, ch, h.nan_sum);
      else
        fmt::print("{}underflow,,{:.17g},{}\n{}overflow,{:.17g},,{}\n{}nan,,,{}\n", ch, h.lo,
                   h.underflow, ch, h.hi, h.overflow, ch, h.nan);
    }
    return;
  }
  for (std::size_t c = 0; c < results.size(); ++c) {
    const histogram_result& h = results[c];
    const std::string title = fmt::format(
        "histogram of {}{}: {} bins over [{:.6g}, {:.6g}{}{}", describe(o.data, data),
        several ? " channel " + in.names[c] : "", h.bins(), h.lo, h.hi, h.closed_last ? "]" : ")",
        o.numpy ? fmt::format(" (numpy.histogram's rules, as NumPy {})", o.numpy) : "");
    const bool natural = in.natural_bytes && h.bins() == 256 && h.lo == 0;
    print_chart(
        h, values_of(h, o.density),
        title + (o.weights.empty() ? "" : ", sums of weights") + (o.density ? ", density" : ""),
        !natural ? labels::ranges : (in.format == "bytes" ? labels::characters : labels::values));
  }
}

}  // namespace

void add_histogram(CLI::App& app) {
  auto o = std::make_shared<histogram_cli>();
  auto* cmd = app.add_subcommand(
      "histogram",
      "count values into even bins; values outside the range and NaN are counted apart.\n"
      "Bytes, 8-bit images and 16-bit integers default to their natural 256 / 65536 bins;\n"
      "other data to 10 bins over [min, max] (as numpy.histogram). Bins are [lo, hi) with\n"
      "edges computed in double, unless --numpy asks for numpy.histogram's rules. Images give\n"
      "one histogram per colour channel.");
  cmd->add_option("--bins", o->bins, "number of bins, 1 to 2^24")
      ->check(CLI::Range(std::size_t(1), max_bins));
  cmd->add_option("--range", o->range, "LO:HI, the range the bins cover (default: see above)");
#ifndef PPLAB_NUMPY_MAJOR
#define PPLAB_NUMPY_MAJOR 2
#endif
  // `--numpy` alone: the NumPy this build found (PPLAB_NUMPY_MAJOR); `--numpy=1` or `=2` chooses.
  cmd->add_flag("--numpy{" + std::to_string(PPLAB_NUMPY_MAJOR) + "}", o->numpy,
                "numpy.histogram's rules, bit for bit: 10 bins over [min, max] for every dtype "
                "unless given, the last bin closed, [lo, hi], and float32 data binned against "
                "float32 edges, computed as NumPy " +
                    std::to_string(PPLAB_NUMPY_MAJOR) +
                    " (the one this build found) computes them; --numpy=1 or --numpy=2 for the "
                    "other (NumPy 2 computes an inferred range's float32 edges in float32)");
  o->backend.add_to(*cmd);
  cmd->add_option("--rung,--variant", o->variant,
                  "run one rung by id, or by its last part (h05_lane_sub_histograms); see `pplab "
                  "list histogram`");
  cmd->add_option("--edges", o->edges,
                  "FILE: the bins as an array of edges (.npy, or numbers in a text file), "
                  "increasing, as numpy.histogram's bins=array: [e0, e1), ..., [e(n-1), en]");
  cmd->add_option("--weights", o->weights,
                  "FILE.npy: one weight per value; each bin sums its values' weights "
                  "(numpy.histogram's weights=)");
  cmd->add_flag("--density", o->density,
                "print numpy.histogram's density=True: each bin over its width and the total");
  cmd->add_flag("--json", o->json,
                "print one JSON object {edges, counts (sums, density), underflow, overflow, nan}");
  cmd->add_flag("--csv", o->csv, "print CSV rows: kind,lo,hi,count (sum, density)");
  o->data.add_to(*cmd, "u8");
  cmd->callback([o] { run(*o); });
}

}  // namespace pplab::cli

namespace pplab::cli {
namespace {

struct histogram2d_cli {
  std::string x_path, y_path, bins = "10", range, weights, out_path;
  backend_options backend;
  bool json = false;
};

// --weights W.npy (or none, where the path is empty): one weight per point, as floats.
io::array point_weights(const std::string& path, std::size_t points) {
  io::array w;
  if (path.empty()) return w;
  w = io::read_npy(path);
  if (w.size() != points)
    fail(errc::invalid_argument, "--weights: " + std::to_string(w.size()) + " weights for " +
                                     std::to_string(points) + " points");
  as_float_weights(w);
  return w;
}

// The bins of a 2-D or n-D histogram as a float64 .npy of `shape` (as NumPy's H).
void write_bins(const std::string& path, std::vector<std::size_t> shape,
                const std::vector<double>& values) {
  io::array h;
  h.type = dtype::f64, h.shape = std::move(shape);
  h.bytes.resize(values.size() * 8);
  std::memcpy(h.bytes.data(), values.data(), h.bytes.size());
  io::output_file out(path);
  io::write_npy(out, h);
}

// One axis's edges: even bins over `range` (A:B), or over the values' minimum and maximum
// (widened by 0.5 when equal, as NumPy's) when none is given; `call` names the command.
std::vector<double> axis_edges(const std::vector<double>& v, std::size_t bins,
                               const std::string& range, const std::string& call) {
  if (!range.empty()) {
    const auto [lo, hi] = parse_range(range);
    return even_edges(lo, hi, bins);
  }
  if (v.empty()) return even_edges(0, 1, bins);
  const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
  if (!std::isfinite(*mn) || !std::isfinite(*mx))
    fail(errc::bad_data, call + ": the data's range is not finite (NaN or infinity); give --range "
                                "with a lo:hi for every axis");
  return *mn == *mx ? even_edges(*mn - 0.5, *mx + 0.5, bins) : even_edges(*mn, *mx, bins);
}
std::vector<double> axis_edges(const io::array& a, std::size_t bins, const std::string& range) {
  return axis_edges(range.empty() ? doubles_of(a) : std::vector<double>{}, bins, range,
                    "histogram2d");
}

// "N" (every axis) or "N1xN2x...": each axis's number of bins, 1 to 2^24.
std::vector<std::size_t> bin_counts(const std::string& text, std::size_t axes) {
  std::vector<std::size_t> out;
  std::size_t at = 0;
  while (true) {
    const std::size_t x = text.find('x', at);
    const std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
    std::size_t v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || v < 1 ||
        v > max_bins)
      fail(errc::invalid_argument, "--bins wants N or one number per axis joined by x, such as 16 "
                                   "or 16x16x8 (each 1 to 2^24); got '" +
                                       text + "'");
    out.push_back(v);
    if (x == std::string::npos) break;
    at = x + 1;
  }
  if (out.size() == 1) out.assign(axes, out[0]);
  if (out.size() != axes)
    fail(errc::invalid_argument, "--bins: " + std::to_string(out.size()) + " numbers for " +
                                     std::to_string(axes) + " axes");
  return out;
}

void run2d(const histogram2d_cli& o) {
  if (!o.out_path.empty()) check_output_name(o.out_path, {".npy"});
  const io::array x = io::read_npy(o.x_path), y = io::read_npy(o.y_path);
  if (x.type != y.type || x.size() != y.size())
    fail(errc::invalid_argument, "histogram2d: --x and --y must hold as many values of one dtype");
  const std::size_t cross = o.bins.find('x');
  const auto whole = [&](const std::string& s, std::size_t& v) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  std::size_t nx = 0, ny = 0;
  if (!whole(o.bins.substr(0, cross), nx) ||
      !whole(cross == std::string::npos ? o.bins : o.bins.substr(cross + 1), ny))
    fail(errc::invalid_argument,
         "--bins wants N or NXxNY, such as 256 or 64x32; got '" + o.bins + "'");
  if (nx < 1 || ny < 1 || nx > max_bins || ny > max_bins)
    fail(errc::invalid_argument, "--bins: each axis 1 to 2^24 bins; got " + o.bins);
  const std::size_t comma = o.range.find(',');
  if (!o.range.empty() && comma == std::string::npos)
    fail(errc::invalid_argument, "--range wants X0:X1,Y0:Y1; got '" + o.range + "'");
  const std::vector<double> xe = axis_edges(x, nx, o.range.empty() ? "" : o.range.substr(0, comma));
  const std::vector<double> ye =
      axis_edges(y, ny, o.range.empty() ? "" : o.range.substr(comma + 1));
  histogram2d_options opt;
  opt.x_edges = xe, opt.y_edges = ye;
  const io::array w = point_weights(o.weights, x.size());
  if (!o.weights.empty()) opt.weights = w.data(), opt.weight_type = w.type;
  const backend where = o.backend.resolve("histogram", "");
  if (where == backend::mpi || where == backend::nccl)
    fail(errc::unsupported, "histogram2d on the command line runs on seq, cpu or cuda");
  const histogram2d_result r = histogram2d(where, x.type, x.data(), y.data(), x.size(), opt);
  std::vector<double> values =
      r.weighted ? r.sums : std::vector<double>(r.counts.begin(), r.counts.end());
  if (!o.out_path.empty()) write_bins(o.out_path, {r.x_bins, r.y_bins}, values);
  if (o.json) {
    nlohmann::json j = {{"x_edges", r.x_edges}, {"y_edges", r.y_edges}, {"rung", r.rung}};
    if (r.weighted) j["sums"] = values;
    else j["counts"] = r.counts;
    if (r.weighted) j["outside"] = r.outside_sum;
    else j["outside"] = r.outside;
    fmt::print("{}\n", j.dump());
    return;
  }
  fmt::print("histogram2d of {} points: {} x {} bins, {} outside{}\n", x.size(), r.x_bins, r.y_bins,
             r.weighted ? fmt::format("{:.6g}", r.outside_sum) : std::to_string(r.outside),
             o.out_path.empty() ? " (give --out H.npy for the bins)"
                                : ", the bins in " + o.out_path);
}

struct histogramdd_cli {
  std::string input, bins = "10", range, weights, out_path;
  backend_options backend;
  bool json = false;
};

void run_dd(const histogramdd_cli& o) {
  if (!o.out_path.empty()) check_output_name(o.out_path, {".npy"});
  // The points: an image's pixels (its channels the axes, each a plane: stride 1; a gray image
  // one axis), or an (N, D) array's rows (its columns the axes: stride D), or a 1-D array's
  // values (one axis).
  const io::input in = io::read_input(o.input, "", nullptr);
  std::vector<const void*> axes;
  std::size_t n = 0, stride = 1;
  dtype type = dtype::f64;
  std::vector<std::vector<double>> values;  // each axis's, for a range from the data
  if (in.format == "image") {
    for (const io::array& c : in.channels) axes.push_back(c.data());
    n = in.channels[0].size(), type = in.channels[0].type;
    for (const io::array& c : in.channels) values.push_back(doubles_of(c));
  } else {
    const io::array& a = in.channels.at(0);
    if (a.shape.size() > 2)
      fail(errc::invalid_argument, "histogramdd: --input must be an (N, D) array, a 1-D array or "
                                   "an image; it has " +
                                       std::to_string(a.shape.size()) + " axes");
    const std::size_t d = a.shape.size() == 2 ? a.shape[1] : 1;
    n = a.shape.empty() ? 0 : a.shape[0], stride = d, type = a.type;
    const std::vector<double> all = doubles_of(a);
    for (std::size_t k = 0; k < d; ++k) {
      axes.push_back(static_cast<const std::byte*>(a.data()) + k * size_of(a.type));
      std::vector<double> column(n);
      for (std::size_t i = 0; i < n; ++i) column[i] = all[i * d + k];
      values.push_back(std::move(column));
    }
  }
  const std::vector<std::size_t> bins = bin_counts(o.bins, axes.size());
  std::vector<std::string> ranges(axes.size());
  if (!o.range.empty()) {
    std::size_t at = 0, k = 0;
    for (; k < axes.size(); ++k) {
      const std::size_t comma = o.range.find(',', at);
      ranges[k] = o.range.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (k + 1 != axes.size() || ranges.back().empty())
      fail(errc::invalid_argument, "--range wants one lo:hi per axis (" +
                                       std::to_string(axes.size()) + "), joined by commas; got '" +
                                       o.range + "'");
  }
  std::vector<std::vector<double>> edges;
  histogramdd_options opt;
  for (std::size_t k = 0; k < axes.size(); ++k)
    edges.push_back(axis_edges(values[k], bins[k], ranges[k], "histogramdd"));
  for (const auto& e : edges) opt.edges.emplace_back(e);
  const io::array w = point_weights(o.weights, n);
  if (!o.weights.empty()) opt.weights = w.data(), opt.weight_type = w.type;
  const backend where = o.backend.resolve("histogram", "");
  if (where == backend::mpi || where == backend::nccl)
    fail(errc::unsupported, "histogramdd on the command line runs on seq, cpu or cuda");
  const histogramdd_result r = histogramdd(where, type, axes, stride, n, opt);
  std::vector<double> cells =
      r.weighted ? r.sums : std::vector<double>(r.counts.begin(), r.counts.end());
  if (!o.out_path.empty()) write_bins(o.out_path, r.bins, cells);
  if (o.json) {
    nlohmann::json j = {{"bins", r.bins}, {"edges", r.edges}, {"rung", r.rung}};
    if (r.weighted) j["sums"] = cells, j["outside"] = r.outside_sum;
    else j["counts"] = r.counts, j["outside"] = r.outside;
    fmt::print("{}\n", j.dump());
    return;
  }
  std::string shape;
  for (std::size_t b : r.bins) shape += (shape.empty() ? "" : " x ") + std::to_string(b);
  fmt::print("histogramdd of {} points: {} bins, {} outside{}\n", n, shape,
             r.weighted ? fmt::format("{:.6g}", r.outside_sum) : std::to_string(r.outside),
             o.out_path.empty() ? " (give --out H.npy for the bins)"
                                : ", the bins in " + o.out_path);
}

}  // namespace

void add_histogramdd(CLI::App& app) {
  auto o = std::make_shared<histogramdd_cli>();
  auto* cmd = app.add_subcommand(
      "histogramdd",
      "count points of D coordinates into bins, as numpy.histogramdd: an (N, D) .npy array's\n"
      "rows, or an image's pixels (its channels the axes: a joint colour histogram); each axis's\n"
      "bins even over its range (or the data's minimum and maximum), the last bin closed; points\n"
      "outside any axis, or NaN, counted apart.");
  cmd->add_option("--input", o->input, "an (N, D) or 1-D .npy array, or an image (PNG, PPM, ...)")
      ->required();
  cmd->add_option("--bins", o->bins, "N (every axis) or one per axis joined by x, such as 16x16x8");
  cmd->add_option("--range", o->range,
                  "one lo:hi per axis joined by commas (0:256,0:256,0:256 for an RGB image)");
  cmd->add_option("--weights", o->weights, "W.npy: one weight per point; each bin sums them");
  o->backend.add_to(*cmd);
  cmd->add_option("--out", o->out_path, "H.npy: the bins, float64, one axis per coordinate");
  cmd->add_flag("--json", o->json, "print one JSON object {bins, edges, counts, outside}");
  cmd->callback([o] { run_dd(*o); });
}

void add_histogram2d(CLI::App& app) {
  auto o = std::make_shared<histogram2d_cli>();
  auto* cmd = app.add_subcommand(
      "histogram2d",
      "count points (x, y) into a grid of bins, as numpy.histogram2d: each axis's bins even over\n"
      "its range (or the data's minimum and maximum), the last bin of each closed; points\n"
      "outside either axis, or NaN, counted apart.");
  cmd->add_option("--x", o->x_path, "X.npy: the points' x values")->required();
  cmd->add_option("--y", o->y_path, "Y.npy: their y values, as many, of the same dtype")
      ->required();
  cmd->add_option("--bins", o->bins, "N (both axes) or NXxNY, such as 256 or 64x32");
  cmd->add_option("--range", o->range, "X0:X1,Y0:Y1: the ranges the bins cover");
  cmd->add_option("--weights", o->weights, "W.npy: one weight per point; each bin sums them");
  o->backend.add_to(*cmd);
  cmd->add_option("--out", o->out_path, "H.npy: the bins, NX x NY float64 (as numpy.histogram2d)");
  cmd->add_flag("--json", o->json, "print one JSON object {x_edges, y_edges, counts, outside}");
  cmd->callback([o] { run2d(*o); });
}

}  // namespace pplab::cli
