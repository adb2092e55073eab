#pragma once
// What the subcommands share: the data-source options, loading or generating the data, and the
// helpers for JSON and numbers.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "pplab/generate.hpp"
#include "pplab/io.hpp"
#include "pplab/pplab.hpp"
#include "pplab/sizes.hpp"

namespace pplab::cli {

// --input F [--format ...] or generated data: --n, --dtype, --dist, --seed.
struct data_options {
  std::string input, format, dtype_name, dist = "uniform";
  std::int64_t n = 1 << 20;  // signed: --n -5 is an error, not 2^64 - 5
  std::uint64_t seed = 1;
  void add_to(CLI::App& cmd, const char* default_dtype);
  std::string default_dtype;
};
io::input load_data(const data_options& o);

// --backend NAME [--local NAME]: the backend, and on mpi the backend each rank runs its part on.
struct backend_options {
  std::string name = "cpu", local = "cpu";
  void add_to(CLI::App& cmd);
  // Parses the names, sets mpi's local backend; throws when the backend is not usable here.
  backend resolve() const;
  // The same, with a rung named (--rung) of `pattern`: the rung's own backend (it runs there,
  // whatever --backend said).
  backend resolve(std::string_view pattern, const std::string& rung) const;
};

// The data of a job's rank on a backend of several ranks (mpi): only this rank's part of the
// file or of the generated array; a single process gets the whole. Every rank's load is agreed
// on: an error on one rank (a missing or shorter file) is every rank's error, and a file that
// differs between ranks is refused. `whole` is every rank's elements together.
struct loaded {
  io::input in;
  std::size_t whole = 0;
  bool part = false;  // this process holds a part of the data (one rank of several)
};
loaded load_data(const data_options& o, backend where);
// True on the one process that prints a job's answer: rank 0, or the only process.
bool prints(backend where);

// An --out name whose extension names no format the command writes (x.jpg where it writes .npy)
// is refused as bad usage (exit 2), before any work, rather than written under that name; a name
// without an extension (/dev/stdout, out) takes the command's first format. `formats`: the
// extensions it writes, with their dots, as the message lists them ("either .npy or .png").
void check_output_name(const std::string& path, std::initializer_list<std::string_view> formats);
// A file name's extension with its dot, in lower case (".npy" for X.NPY; "" for none), as the
// readers match extensions.
std::string lowercase_extension(const std::string& path);

// A one-line description of where the data came from, for human output.
std::string describe(const data_options& o, const io::input& in);
std::string describe(const data_options& o, const loaded& data);

// JSON numbers: NaN and the infinities have no JSON form; they are written as the strings "nan",
// "inf" and "-inf" (what Python's float() reads back), so that they stay apart from each other
// and from a missing value.
nlohmann::json json_number(double v);
nlohmann::json json_scalar(const scalar& s);
std::string format_scalar(const scalar& s);
// The help of a PATTERN argument: the patterns the lab has, "reduce, histogram, ... (default:
// all)".
std::string pattern_argument_help();

// Registers each subcommand on the app.
void add_info(CLI::App& app);
void add_list(CLI::App& app);
void add_reduce(CLI::App& app);
void add_histogram(CLI::App& app);
void add_histogram2d(CLI::App& app);
void add_histogramdd(CLI::App& app);
void add_matmul(CLI::App& app);
void add_convolve(CLI::App& app);  // correlate, convolve and filter
void add_lab(CLI::App& app);
void add_tune(CLI::App& app);

}  // namespace pplab::cli
