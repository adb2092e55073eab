// Reading any input: .npy, text numbers, raw binary of a given dtype, images (per channel), and
// any other file as bytes.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "io/array.hpp"
#include "pplab/error.hpp"

#ifdef PPLAB_HAVE_STB
#define STBI_NO_HDR
#include <stb/stb_image.h>
#endif

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

// Whitespace- or comma-separated numbers, each checked against the target dtype.
array read_text(const std::string& path, dtype t) {
  const std::vector<std::byte> raw = read_file(path);
  const char* p = reinterpret_cast<const char*>(raw.data());
  const char* end = p + raw.size();
  std::vector<double> values;
  std::size_t line = 1;
  while (p < end) {
    const char c = *p;
    if (c == '\n') ++line;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ';') {
      ++p;
      continue;
    }
    double v = 0;
    const char* start = p;
    if (*p == '+') ++p;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec == std::errc::result_out_of_range)
      fail(errc::bad_data, path + ":" + std::to_string(line) + ": number out of range");
    if (ec != std::errc() || (next < end && !std::strchr(" \t\r\n,;", *next))) {
      const char* stop = start;
      while (stop < end && stop - start < 20 && !std::strchr(" \t\r\n,;", *stop)) ++stop;
      fail(errc::bad_data, path + ":" + std::to_string(line) + ": '" + std::string(start, stop) +
                               "' is not a number");
    }
    if (!is_float(t)) {
      double lo = 0, hi = 0;
      visit_dtype(t, [&](auto tag) {
        using T = decltype(tag);
        lo = double(std::numeric_limits<T>::lowest());
        hi = double(std::numeric_limits<T>::max());
      });
      if (v != std::floor(v) || v < lo || v > hi)
        fail(errc::bad_data, path + ":" + std::to_string(line) + ": " + std::string(start, next) +
                                 " does not fit dtype " + std::string(name_of(t)));
    }
    values.push_back(v);
    p = next;
  }
  array a;
  a.type = t;
  a.shape = {values.size()};
  a.bytes.resize(values.size() * size_of(t));
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T* out = reinterpret_cast<T*>(a.bytes.data());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = T(values[i]);
  });
  return a;
}

input read_image(const std::string& path) {
#ifndef PPLAB_HAVE_STB
  fail(errc::unsupported, path + ": this build has no image support (stb_image was not found)");
#else
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &w, &h, &channels, 0);
  if (!pixels)
    fail(errc::bad_data, path + ": cannot decode image: " + std::string(stbi_failure_reason()));
  input in;
  in.format = "image";
  in.natural_bytes = true;
  static const char* rgba[] = {"R", "G", "B", "A"};
  static const char* gray[] = {"gray", "alpha"};
  const std::size_t count = std::size_t(w) * std::size_t(h);
  for (int ch = 0; ch < channels; ++ch) {
    array a;
    a.type = dtype::u8;
    a.shape = {std::size_t(h), std::size_t(w)};
    a.bytes.resize(count);
    for (std::size_t i = 0; i < count; ++i)
      a.bytes[i] = std::byte(pixels[i * std::size_t(channels) + std::size_t(ch)]);
    in.channels.push_back(std::move(a));
    in.names.push_back(channels <= 2 ? gray[ch] : rgba[ch]);
  }
  stbi_image_free(pixels);
  return in;
#endif
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

}  // namespace pplab::io
