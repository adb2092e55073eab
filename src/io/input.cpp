// Reading any input: .npy, text numbers, raw binary of a given dtype, images (per channel), and
// any other file as bytes.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <vector>

#include <sys/stat.h>

#include "core/sizes.hpp"
#include "io/image_in.hpp"
#include "pplab/error.hpp"
#include "pplab/io.hpp"

namespace pplab::io {
namespace {

std::string extension(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

std::string format_of(const std::string& path) {
  const std::string ext = extension(path);
  if (ext == "npy") return "npy";
  if (ext == "txt" || ext == "csv") return "text";
  for (const char* e : {"png", "jpg", "jpeg", "ppm", "pgm", "pnm", "bmp", "tga", "gif"})
    if (ext == e) return "image";
  return "bytes";
}

// One number of text as a T, exactly: integers as integers (the whole range of the type, no
// detour through double), floats rounded once to the type. nullopt: not a number of that type.
template <class T> std::optional<T> parse_number(const char* b, const char* e, bool& out_of_range) {
  out_of_range = false;
  if (b != e && *b == '+' && e - b > 1 && b[1] != '-') ++b;  // as Python's int() and float()
  T v{};
  const auto [next, ec] = std::from_chars(b, e, v);
  if (ec == std::errc::result_out_of_range) out_of_range = true;
  if (ec != std::errc() || next != e) return std::nullopt;
  return v;
}

// Whitespace- or comma-separated numbers as dtype t, as numpy.loadtxt(dtype=t) reads them:
// "1.5" or "1e3" is not an integer, an integer out of the type's range is an error, and so is a
// float beyond the type's range ("1e400" for f64); inf, -inf and nan are floats. Each error
// names the file, the line and the token.
array read_text(const std::string& path, dtype t) {
  const std::vector<std::byte> raw = read_file(path);
  const char* p = reinterpret_cast<const char*>(raw.data());
  const char* end = p + raw.size();
  array a;
  a.type = t;
  std::size_t line = 1, count = 0;
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> values;
    while (p < end) {
      const char c = *p;
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ';') {
        line += c == '\n';
        ++p;
        continue;
      }
      const char* start = p;
      while (p < end && !std::strchr(" \t\r\n,;", *p)) ++p;
      const std::string where =
          path + ":" + std::to_string(line) + ": '" +
          std::string(start, std::size_t(std::min<std::ptrdiff_t>(p - start, 40))) + "'";
      bool out_of_range = false;
      const std::optional<T> v = parse_number<T>(start, p, out_of_range);
      bool ignored = false;
      if constexpr (std::is_unsigned_v<T>)  // "-1": an integer, below the unsigned range
        out_of_range |= !v && parse_number<std::int64_t>(start, p, ignored).has_value();
      if (out_of_range)
        fail(errc::bad_data, where + " is out of the range of dtype " + std::string(name_of(t)));
      if (!v) {
        const bool decimal =
            std::is_integral_v<T> && parse_number<double>(start, p, out_of_range).has_value();
        fail(errc::bad_data,
             where + (decimal ? " is not an integer; dtype " + std::string(name_of(t)) +
                                    " takes integers (use --dtype f64 for decimals)"
                              : " is not a number (to count the file's bytes, the letters of a "
                                "text, give --format bytes)"));
      }
      values.push_back(*v);
    }
    count = values.size();
    a.bytes.resize(count * sizeof(T));
    if (count) std::memcpy(a.bytes.data(), values.data(), count * sizeof(T));
  });
  a.shape = {count};
  return a;
}

}  // namespace

input read_input(const std::string& path, const std::string& format, const dtype* raw_type) {
  const std::string f = format.empty() ? format_of(path) : format;
  input in;
  in.format = f;
  if (f == "image") return read_image(path);
  if (f == "npy") {
    in.channels.push_back(read_npy(path));
  } else if (f == "text") {
    in.channels.push_back(read_text(path, raw_type ? *raw_type : dtype::f64));
  } else if (f == "raw" || f == "bytes") {
    const dtype t = (f == "raw" && raw_type) ? *raw_type : dtype::u8;
    array a;
    a.type = t;
    a.bytes = read_file(path);
    if (a.bytes.size() % size_of(t))
      fail(errc::bad_data, path + ": " + std::to_string(a.bytes.size()) +
                               " bytes is not a whole number of " + std::string(name_of(t)) +
                               " elements (" + std::to_string(size_of(t)) + " bytes each)");
    a.shape = {a.bytes.size() / size_of(t)};
    in.natural_bytes = t == dtype::u8;
    in.channels.push_back(std::move(a));
  } else {
    fail(errc::invalid_argument,
         "unknown format '" + f + "'; choose one of npy raw text bytes image");
  }
  in.names.push_back("");
  return in;
}

input read_input_part(const std::string& path, const std::string& format, const dtype* raw_type,
                      const part_chooser& choose) {
  const std::string f = format.empty() ? format_of(path) : format;
  if (f == "npy" || f == "raw" || f == "bytes") {
    input in;
    in.format = f;
    if (f == "npy") {
      in.channels.push_back(read_npy_part(path, choose));
    } else {
      const dtype t = (f == "raw" && raw_type) ? *raw_type : dtype::u8;
      std::ifstream file(path, std::ios::binary);
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !file)
        return read_input(path, format, raw_type);  // its error says what is wrong
      const std::size_t bytes = std::size_t(st.st_size), w = size_of(t);
      if (bytes % w)
        fail(errc::bad_data, path + ": " + std::to_string(bytes) +
                                 " bytes is not a whole number of " + std::string(name_of(t)) +
                                 " elements (" + std::to_string(w) + " bytes each)");
      const auto [first, count] = choose(bytes / w);
      array a;
      a.type = t;
      a.shape = {bytes / w};
      a.bytes.resize(count * w);
      file.seekg(std::streamoff(first * w));
      if (count && !file.read(reinterpret_cast<char*>(a.bytes.data()), std::streamsize(count * w)))
        fail(errc::io, "cannot read '" + path + "': it ended early");
      in.natural_bytes = t == dtype::u8;
      in.channels.push_back(std::move(a));
    }
    in.names.push_back("");
    return in;
  }
  input in = read_input(path, format, raw_type);
  for (array& a : in.channels) {
    const auto [first, count] = choose(a.size());
    const std::size_t w = size_of(a.type);
    a.bytes = std::vector<std::byte>(a.bytes.begin() + std::ptrdiff_t(first * w),
                                     a.bytes.begin() + std::ptrdiff_t((first + count) * w));
  }
  return in;
}

}  // namespace pplab::io
