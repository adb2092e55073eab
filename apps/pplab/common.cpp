#include "common.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <string_view>

#include "pplab/lab.hpp"

namespace pplab::cli {

void data_options::add_to(CLI::App& cmd, const char* dflt) {
  default_dtype = dflt;
  cmd.add_option("-i,--input", input,
                 "read data from a file: .npy, .txt/.csv numbers, .png/.jpg/.ppm images, "
                 "anything else as bytes (or say --format)");
  cmd.add_option("--format", format, "override the format: npy, raw, text, bytes, image")
      ->check(CLI::IsMember({"npy", "raw", "text", "bytes", "image"}));
  cmd.add_option("--dtype", dtype_name,
                 std::string("element type of generated or raw data: i8 i16 i32 i64 u8 u16 u32 "
                             "u64 f32 f64 (default ") +
                     dflt + ")");
  cmd.add_option("-n,--n", n, "number of generated elements (default 2^20)");
  cmd.add_option("--dist", dist,
                 "generated data: uniform, normal, skewed (90% one value), constant, spread "
                 "(normal floats times 2^-60 to 2^60)")
      ->check(CLI::IsMember({"uniform", "normal", "skewed", "constant", "spread"}));
  cmd.add_option("--seed", seed, "seed of the generated data, 0 to 2^64 - 1 (default 1)")
      ->check(CLI::NonNegativeNumber);
}

namespace {

// The dtype a file's elements are read as when the format has none (raw, text), or null.
const dtype* file_dtype(const data_options& o, dtype& storage) {
  if (!o.dtype_name.empty() && o.format != "raw" && o.format != "text" &&
      !(o.format.empty() && (o.input.ends_with(".txt") || o.input.ends_with(".csv"))))
    fail(errc::invalid_argument,
         "--dtype applies to generated data and to --format raw or text inputs");
  if (o.format == "raw" && o.dtype_name.empty())
    fail(errc::invalid_argument, "--format raw needs --dtype (the file has no header)");
  if (o.dtype_name.empty()) return nullptr;
  storage = parse_dtype(o.dtype_name);
  return &storage;
}

// Generated data, elements [first, first + count) of the --n that the options ask for (all of
// them in one process; a rank's part in a job): the same values wherever they are made.
io::input generated(const data_options& o, int rank, int ranks) {
  if (o.n < 0) fail(errc::invalid_argument, "--n must be 0 or more; got " + std::to_string(o.n));
  const dtype t = parse_dtype(o.dtype_name.empty() ? o.default_dtype : o.dtype_name);
  const part mine = part_of(std::size_t(o.n), rank, ranks);
  io::array a;
  a.type = t;
  a.shape = {std::size_t(o.n)};
  a.bytes.resize(
      checked_bytes({mine.count, size_of(t)}, (ranks > 1 ? "this rank's part of --n " : "--n ") +
                                                  std::to_string(o.n) + " " +
                                                  std::string(name_of(t)) + " elements"));
  generate(t, a.data(), mine.count, parse_distribution(o.dist), o.seed, mine.first);
  io::input in;
  in.format = "generated";
  in.channels.push_back(std::move(a));
  in.names.push_back("");
  in.natural_bytes = t == dtype::u8;
  return in;
}

}  // namespace

io::input load_data(const data_options& o) {
  if (!o.input.empty()) {
    dtype t{};
    return io::read_input(o.input, o.format, file_dtype(o, t));
  }
  return generated(o, 0, 1);
}

void backend_options::add_to(CLI::App& cmd) {
  cmd.add_option(
      "--backend", name,
      "seq, cpu (the default), cuda, nccl (every GPU of this host) or mpi (under mpirun); "
      "`pplab info` says which run here");
  cmd.add_option("--local", local,
                 "with --backend mpi: the backend each rank runs on its part: seq, cpu or cuda "
                 "(default cpu)");
}

backend backend_options::resolve() const {
  const backend b = parse_backend(name);
  if (b == backend::mpi) set_mpi_local(parse_backend(local));
  else if (local != "cpu") fail(errc::invalid_argument, "--local applies to --backend mpi alone");
  require(b);
  return b;
}

backend backend_options::resolve(std::string_view pattern, const std::string& rung) const {
  const backend asked = resolve();
  if (rung.empty()) return asked;
  const backend its = lab::find_rung(pattern, rung).where;
  if (its != asked) require(its);
  return its;
}

bool prints(backend where) { return job_rank(where) == 0; }

std::string lowercase_extension(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0) return "";
  std::string ext = name.substr(dot);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

void check_output_name(const std::string& path, std::initializer_list<std::string_view> formats) {
  const std::string ext = lowercase_extension(path);
  if (ext.empty()) return;  // no extension: the first format
  std::string listed;
  for (std::string_view f : formats) {
    if (f == ext) return;
    listed += (listed.empty() ? "" : ", ") + std::string(f);
  }
  fail(errc::invalid_argument,
       "--out " + path + ": '" + ext + "' is no format this command writes; it writes " + listed);
}

loaded load_data(const data_options& o, backend where) {
  const int me = job_rank(where), ranks = job_ranks(where);
  loaded out;
  std::exception_ptr failed;
  std::string what;
  try {
    if (ranks == 1) {
      out.in = load_data(o);
    } else {
      out.part = true;
      const auto choose = [&](std::size_t count) {
        const part p = part_of(count, me, ranks);
        return std::pair{p.first, p.count};
      };
      if (!o.input.empty()) {
        dtype t{};
        out.in = io::read_input_part(o.input, o.format, file_dtype(o, t), choose);
      } else {
        out.in = generated(o, me, ranks);
      }
    }
    // What must be the same on every rank: the source, and the whole array's type and shape.
    what = "data from " +
           (o.input.empty() ? "generator " + o.dist + " seed " + std::to_string(o.seed) : o.input);
    for (const io::array& a : out.in.channels) {
      what += std::string(" ") + std::string(name_of(a.type)) + "[";
      for (std::size_t d : a.shape) what += std::to_string(d) + ",";
      what += "]";
    }
  } catch (...) {
    failed = std::current_exception();
  }
  std::size_t local = 0;
  for (const io::array& a : out.in.channels) local += a.size();
  out.whole = agree(where, what, local, failed);
  return out;
}

std::string describe(const data_options& o, const loaded& data) {
  std::string text = describe(o, data.in);
  if (data.part && o.input.empty())
    text = fmt::format("{} {} elements ({}, seed {})", data.whole,
                       name_of(data.in.channels.front().type), o.dist, o.seed);
  return text;
}

std::string describe(const data_options& o, const io::input& in) {
  const io::array& a = in.channels.front();
  if (o.input.empty())
    return fmt::format("{} {} elements ({}, seed {})", a.size(), name_of(a.type), o.dist, o.seed);
  std::string shape;
  for (std::size_t d : a.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  if (a.shape.empty()) shape = "() (a scalar)";
  return fmt::format("{} ({} {}{}, shape {}{})", o.input, in.format, name_of(a.type),
                     a.stored_as.empty() ? "" : " converted from " + a.stored_as, shape,
                     in.channels.size() > 1 ? fmt::format(", {} channels", in.channels.size())
                                            : "");
}

nlohmann::json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

nlohmann::json json_scalar(const scalar& s) {
  switch (s.k) {
  case scalar::kind::i64:
    return s.i;
  case scalar::kind::u64:
    return s.u;
  default:
    return json_number(s.f);
  }
}

std::string format_scalar(const scalar& s) {
  switch (s.k) {
  case scalar::kind::i64:
    return std::to_string(s.i);
  case scalar::kind::u64:
    return std::to_string(s.u);
  default:
    return fmt::format("{:.17g}", s.f);
  }
}

std::string pattern_argument_help() {
  std::string help;
  for (std::string_view p : lab::patterns()) help.append(help.empty() ? "" : ", ").append(p);
  return help + " (default: all)";
}

}  // namespace pplab::cli
