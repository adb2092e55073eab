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
#include "pplab/error.hpp"
#include "pplab/io.hpp"

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

#ifdef PPLAB_HAVE_STB
// A binary PNM (P5 gray, P6 colour) states its size in a text header, and the decoder would fill
// a short file's missing pixels instead of failing: the size the header claims is checked against
// the bytes that follow it before anything is decoded.
struct pnm_header {
  std::size_t width, height, channels, maxval, offset;  // offset: of the first pixel's bytes
};
std::optional<pnm_header> check_pnm_size(const std::string& path,
                                         const std::vector<std::byte>& file) {
  const char* const start = reinterpret_cast<const char*>(file.data());
  const char* p = start;
  const char* end = p + file.size();
  if (file.size() < 2 || p[0] != 'P' || (p[1] != '5' && p[1] != '6')) return std::nullopt;
  const std::size_t channels = p[1] == '5' ? 1 : 3;
  p += 2;
  std::size_t v[3] = {0, 0, 0};  // width, height, maxval
  for (std::size_t& field : v) {
    while (p < end && (std::isspace(static_cast<unsigned char>(*p)) || *p == '#')) {
      if (*p == '#')
        while (p < end && *p != '\n') ++p;
      else ++p;
    }
    const auto [next, ec] = std::from_chars(p, end, field);
    if (ec != std::errc() || field == 0)
      fail(errc::bad_data, path + ": the PNM header is malformed: it needs a width, a height and "
                                  "a maximum value, each a positive integer.");
    p = next;
  }
  ++p;  // the one whitespace byte after the maximum value
  const std::size_t have = p <= end ? std::size_t(end - p) : 0;
  const std::size_t want = detail::checked_bytes(
      {v[0], v[1], channels, std::size_t(v[2] > 255 ? 2 : 1)},
      path + ": an image of " + std::to_string(v[0]) + " x " + std::to_string(v[1]) + " pixels");
  if (have < want)
    fail(errc::bad_data, path + ": the file is truncated: its header promises " +
                             std::to_string(v[0]) + " x " + std::to_string(v[1]) + " pixels (" +
                             std::to_string(want) + " bytes), but only " + std::to_string(have) +
                             " bytes follow.");
  return pnm_header{v[0], v[1], channels, v[2], std::size_t(p - start)};
}
#endif

#ifdef PPLAB_HAVE_STB
// stb_image (2.27, Debian 12's) trusts two things a hostile file can break: a JPEG Huffman table
// (DHT) whose code counts add up to more than the 256 codes a table holds makes it write past the
// table, and a PNG whose image data starts with an empty chunk (IDAT) makes it copy from a null
// pointer. Both are refused here, before anything is decoded. The rest of what a file can get
// wrong, the decoder reports itself (tests/test_io.cpp fuzzes it under the sanitizers).
void check_jpeg_tables(const std::string& path, const std::vector<std::byte>& file) {
  const auto* b = reinterpret_cast<const unsigned char*>(file.data());
  const std::size_t n = file.size();
  if (n < 4 || b[0] != 0xFF || b[1] != 0xD8) return;  // not a JPEG
  const auto malformed = [&](const std::string& what) {
    fail(errc::bad_data, path + ": the JPEG is malformed: " + what + "; it is not decoded.");
  };
  // Which Huffman tables (class 0 DC, 1 AC; ids 0 to 3) a DHT has defined so far: stb_image 2.27
  // decodes a scan that names a table no DHT defined from the uninitialized memory of its decoder
  // (a crash that depends on what the heap held; found by the fuzz test).
  bool defined[2][4] = {};
  std::size_t i = 2;
  while (i + 4 <= n) {
    const unsigned m = b[i + 1];
    if (b[i] != 0xFF || m == 0xFF) {  // entropy-coded data, or a fill byte
      ++i;
      continue;
    }
    if (m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {  // stuffed zero, TEM, RSTn
      i += 2;
      continue;
    }
    if (m == 0xD9) return;  // the end of the image
    const std::size_t len = std::size_t(b[i + 2]) << 8 | b[i + 3];
    if (len < 2 || i + 2 + len > n) malformed("a segment runs past the end of the file");
    if (m == 0xC4)  // DHT: tables of 1 byte (class, id), 16 counts, then that many symbols
      for (std::size_t p = i + 4, end = i + 2 + len; p < end;) {
        if (p + 17 > end) malformed("a Huffman table (DHT) is cut short");
        if ((b[p] >> 4) > 1 || (b[p] & 15) > 3)
          malformed("a Huffman table (DHT) has class " + std::to_string(b[p] >> 4) + " and id " +
                    std::to_string(b[p] & 15) + " (classes 0 and 1, ids 0 to 3)");
        defined[b[p] >> 4][b[p] & 15] = true;
        std::size_t codes = 0;
        for (std::size_t k = 1; k <= 16; ++k) codes += b[p + k];
        if (codes > 256)
          malformed("a Huffman table (DHT) lists " + std::to_string(codes) +
                    " codes, more than the 256 a table can hold");
        p += 17 + codes;
        if (p > end) malformed("a Huffman table (DHT) is cut short");
      }
    if (m == 0xDA && len >= 6) {  // SOS: components (id, DC table << 4 | AC table), Ss, Se, Ah Al
      const std::size_t components = b[i + 4];
      if (len < 6 + 2 * components) malformed("a scan header (SOS) is cut short");
      const unsigned ss = b[i + 5 + 2 * components], se = b[i + 6 + 2 * components],
                     ah = b[i + 7 + 2 * components] >> 4;
      for (std::size_t c = 0; c < components; ++c) {
        const unsigned dc = b[i + 6 + 2 * c] >> 4, ac = b[i + 6 + 2 * c] & 15;
        // A first DC scan reads the DC tables, a scan of AC coefficients the AC tables.
        if ((ss == 0 && ah == 0 && (dc > 3 || !defined[0][dc])) ||
            (se > 0 && (ac > 3 || !defined[1][ac])))
          malformed("a scan uses a Huffman table that no DHT defines");
      }
    }
    i += 2 + len;
  }
}

void check_png_chunks(const std::string& path, const std::vector<std::byte>& file) {
  static constexpr unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  const auto* b = reinterpret_cast<const unsigned char*>(file.data());
  const std::size_t n = file.size();
  if (n < 8 || std::memcmp(b, signature, 8) != 0) return;  // not a PNG
  for (std::size_t i = 8; i + 8 <= n;) {
    const std::size_t len = std::size_t(b[i]) << 24 | std::size_t(b[i + 1]) << 16 |
                            std::size_t(b[i + 2]) << 8 | b[i + 3];
    if (std::memcmp(b + i + 4, "IDAT", 4) == 0) {
      if (len == 0)
        fail(errc::bad_data, path + ": the PNG's image data starts with an empty chunk (IDAT), "
                                    "which its decoder cannot take; save the image again.");
      return;  // the first chunk of image data has bytes: the decoder's case
    }
    if (len > n - i - 8) return;  // runs past the end: the decoder reports the truncation
    i += 12 + len;                // length, type, data, CRC
  }
}
#endif

// The decoder reads the file through these callbacks instead of from memory, because from memory
// it fills the pixels of a short BMP, TGA or GIF with zeros and reports success. Through
// callbacks, a read that finds no bytes left means the decoder needed more than the file holds.
struct image_reader {
  const std::byte* data;
  std::size_t size, at = 0;
  bool overran = false;

  static int read(void* user, char* out, int want) {
    auto& r = *static_cast<image_reader*>(user);
    const std::size_t n = std::min(std::size_t(want), r.size - r.at);
    if (want > 0 && n == 0) r.overran = true;
    if (n) std::memcpy(out, r.data + r.at, n);
    r.at += n;
    return int(n);
  }
  static void skip(void* user, int n) {
    auto& r = *static_cast<image_reader*>(user);
    if (n < 0) r.at -= std::min(r.at, std::size_t(-std::int64_t(n)));
    else r.at += std::min(std::size_t(n), r.size - r.at);
  }
  static int eof(void* user) {
    const auto& r = *static_cast<image_reader*>(user);
    return r.at >= r.size;
  }
};

#ifdef PPLAB_HAVE_STB
// A binary PNM of more than 8 bits: its samples are big-endian 16-bit words, read as u16 (the
// decoder of some stb versions hands them over unswapped).
input read_wide_pnm(const pnm_header& pnm, const std::vector<std::byte>& file) {
  input in;
  in.format = "image";
  const std::size_t count = pnm.width * pnm.height;
  const auto* at = reinterpret_cast<const unsigned char*>(file.data()) + pnm.offset;
  for (std::size_t ch = 0; ch < pnm.channels; ++ch) {
    array a;
    a.type = dtype::u16;
    a.shape = {pnm.height, pnm.width};
    a.bytes.resize(count * 2);
    for (std::size_t i = 0; i < count; ++i) {
      const unsigned char* s = at + (i * pnm.channels + ch) * 2;
      const std::uint16_t v = std::uint16_t((s[0] << 8) | s[1]);
      std::memcpy(&a.bytes[i * 2], &v, 2);
    }
    in.channels.push_back(std::move(a));
    in.names.push_back(pnm.channels == 1 ? "gray" : std::string(1, "RGB"[ch]));
  }
  return in;
}
#endif

input read_image(const std::string& path) {
#ifndef PPLAB_HAVE_STB
  fail(errc::unsupported, path + ": this build has no image support (stb_image was not found)");
#else
  const std::vector<std::byte> file = read_file(path);
  const std::optional<pnm_header> pnm = check_pnm_size(path, file);
  check_jpeg_tables(path, file);
  check_png_chunks(path, file);
  if (pnm && pnm->maxval > 255) return read_wide_pnm(*pnm, file);
  const stbi_io_callbacks io{&image_reader::read, &image_reader::skip, &image_reader::eof};
  image_reader probe{file.data(), file.size()};
  int w = 0, h = 0, channels = 0;
  if (stbi_info_from_callbacks(&io, &probe, &w, &h, &channels))  // refuse before decoding
    detail::checked_bytes({std::size_t(w), std::size_t(h), std::size_t(channels)},
                          path + ": an image of " + std::to_string(w) + " x " + std::to_string(h) +
                              " pixels");
  // 16-bit images (a PNG of 16 bits, a PNM whose maximum is above 255) are read as u16 samples,
  // never cut to their high bytes.
  image_reader is16{file.data(), file.size()};
  const bool wide = stbi_is_16_bit_from_callbacks(&io, &is16);
  image_reader reader{file.data(), file.size()};
  void* pixels =
      wide ? static_cast<void*>(stbi_load_16_from_callbacks(&io, &reader, &w, &h, &channels, 0))
           : static_cast<void*>(stbi_load_from_callbacks(&io, &reader, &w, &h, &channels, 0));
  if (pixels && reader.overran) {
    stbi_image_free(pixels);
    fail(errc::bad_data, path + ": the file is truncated: the image's header promises " +
                             std::to_string(w) + " x " + std::to_string(h) +
                             " pixels, but the file ends before they do.");
  }
  if (!pixels) {
    const std::string reason = stbi_failure_reason() ? stbi_failure_reason() : "";
    fail(errc::bad_data, path + ": the image cannot be decoded" +
                             (reason.empty() ? "" : " (the decoder reports '" + reason + "')") +
                             ": the file is not a PNG, JPEG, PNM, BMP, TGA or GIF image, or it "
                             "is corrupt or truncated.");
  }
  input in;
  in.format = "image";
  in.natural_bytes = !wide;
  static const char* rgba[] = {"R", "G", "B", "A"};
  static const char* gray[] = {"gray", "alpha"};
  const std::size_t count = std::size_t(w) * std::size_t(h), sample = wide ? 2 : 1;
  const auto* samples = static_cast<const std::byte*>(pixels);
  for (int ch = 0; ch < channels; ++ch) {
    array a;
    a.type = wide ? dtype::u16 : dtype::u8;
    a.shape = {std::size_t(h), std::size_t(w)};
    a.bytes.resize(count * sample);
    for (std::size_t i = 0; i < count; ++i)
      std::memcpy(&a.bytes[i * sample],
                  samples + (i * std::size_t(channels) + std::size_t(ch)) * sample, sample);
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
