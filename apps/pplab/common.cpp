#include "common.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/sizes.hpp"

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
                 "generated data: uniform, normal, skewed (90% one value), constant")
      ->check(CLI::IsMember({"uniform", "normal", "skewed", "constant"}));
  cmd.add_option("--seed", seed, "seed of the generated data (default 1)");
}

io::input load_data(const data_options& o) {
  if (!o.input.empty()) {
    if (!o.dtype_name.empty() && o.format != "raw" && o.format != "text" &&
        !(o.format.empty() && (o.input.ends_with(".txt") || o.input.ends_with(".csv"))))
      fail(errc::invalid_argument,
           "--dtype applies to generated data and to --format raw or text inputs");
    const dtype t = o.dtype_name.empty() ? dtype::u8 : parse_dtype(o.dtype_name);
    if (o.format == "raw" && o.dtype_name.empty())
      fail(errc::invalid_argument, "--format raw needs --dtype (the file has no header)");
    return io::read_input(o.input, o.format, o.dtype_name.empty() ? nullptr : &t);
  }
  const dtype t = parse_dtype(o.dtype_name.empty() ? o.default_dtype : o.dtype_name);
  io::array a;
  a.type = t;
  if (o.n < 0) fail(errc::invalid_argument, "--n must be 0 or more; got " + std::to_string(o.n));
  a.shape = {std::size_t(o.n)};
  a.bytes.resize(detail::checked_bytes({std::size_t(o.n), size_of(t)},
                                       "--n " + std::to_string(o.n) + " " +
                                           std::string(name_of(t)) + " elements"));
  detail::generate(t, a.data(), std::size_t(o.n), detail::parse_distribution(o.dist), o.seed);
  io::input in;
  in.format = "generated";
  in.channels.push_back(std::move(a));
  in.names.push_back("");
  in.natural_bytes = t == dtype::u8;
  return in;
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

}  // namespace pplab::cli
