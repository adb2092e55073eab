// io's image reader: PNG through libpng, JPEG through libjpeg(-turbo), binary PNM (P5, P6) read
// here, BMP, TGA and GIF through stb_image. libpng and libjpeg are the decoders Debian keeps for
// hostile files; each is told to treat what it would repair silently (a truncated file, corrupt
// data) as an error, and every size is checked before a byte is allocated for it.
#include "io/image_in.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "core/sizes.hpp"
#include "pplab/error.hpp"

#ifdef PPLAB_HAVE_PNG
#include <png.h>
#endif
#ifdef PPLAB_HAVE_JPEG
#include <jpeglib.h>
#endif
#ifdef PPLAB_HAVE_STB
#define STBI_NO_HDR
#include <stb/stb_image.h>
#endif

namespace pplab::io {
namespace {

// Decoded pixels, channels interleaved, 1 or 2 bytes a sample (2: host order): in `owned`
// (allocated without being zeroed first: the decoder writes every byte) or, for a PNM of 8 bits,
// in the file's own bytes.
struct pixels {
  std::size_t width = 0, height = 0, channels = 0, sample = 1;
  std::unique_ptr<std::byte[]> owned;
  const std::byte* data = nullptr;
  std::byte* allocate() {
    owned.reset(new std::byte[width * height * channels * sample]);
    return const_cast<std::byte*>(data = owned.get());
  }
};

void check_size(const std::string& path, std::size_t w, std::size_t h, std::size_t channels,
                std::size_t sample) {
  detail::checked_bytes({w, h, channels, sample}, path + ": an image of " + std::to_string(w) +
                                                      " x " + std::to_string(h) + " pixels");
}

[[noreturn]] void cannot_decode(const std::string& path, const std::string& kind,
                                const std::string& reason) {
  fail(errc::bad_data,
       path + ": the " + kind + " cannot be decoded (" + reason + "): it is corrupt or truncated");
}

// ---- PNM: P5 (gray) and P6 (RGB), 8 or 16 bits a sample, read here ----
// The size the header claims is checked against the bytes that follow it.
pixels read_pnm(const std::string& path, const std::vector<std::byte>& file) {
  const char* const start = reinterpret_cast<const char*>(file.data());
  const char* p = start + 2;
  const char* end = start + file.size();
  const std::size_t channels = start[1] == '5' ? 1 : 3;
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
  if (v[2] > 65535)
    fail(errc::bad_data, path + ": the PNM's maximum value " + std::to_string(v[2]) +
                             " is above 65535, the largest the format has");
  ++p;  // the one whitespace byte after the maximum value
  const std::size_t sample = v[2] > 255 ? 2 : 1;
  const std::size_t have = p <= end ? std::size_t(end - p) : 0;
  const std::size_t want = detail::checked_bytes({v[0], v[1], channels, sample},
                                                 path + ": an image of " + std::to_string(v[0]) +
                                                     " x " + std::to_string(v[1]) + " pixels");
  if (have < want)
    fail(errc::bad_data, path + ": the file is truncated: its header promises " +
                             std::to_string(v[0]) + " x " + std::to_string(v[1]) + " pixels (" +
                             std::to_string(want) + " bytes), but only " + std::to_string(have) +
                             " bytes follow.");
  pixels out{v[0], v[1], channels, sample, nullptr, file.data() + (p - start)};
  if (sample == 2) {  // big-endian words in the file
    const std::byte* from = out.data;
    std::byte* to = out.allocate();
    for (std::size_t i = 0; i + 1 < want; i += 2) to[i] = from[i + 1], to[i + 1] = from[i];
  }
  return out;
}

#ifdef PPLAB_HAVE_PNG
// ---- PNG: libpng, errors by longjmp back to read_png (no C++ object lives in the frames it
// leaves: the output is owned by the caller's frame) ----
struct png_source {
  const png_byte* data;
  std::size_t size, at;
};

void png_read_bytes(png_structp png, png_bytep out, png_size_t want) {
  auto* s = static_cast<png_source*>(png_get_io_ptr(png));
  if (want > s->size - s->at) png_error(png, "the file ends before the image does");
  std::memcpy(out, s->data + s->at, want);
  s->at += want;
}

struct png_failure {
  char message[200] = "";
};

void png_on_error(png_structp png, png_const_charp message) {
  auto* f = static_cast<png_failure*>(png_get_error_ptr(png));
  std::snprintf(f->message, sizeof f->message, "%s", message);
  png_longjmp(png, 1);
}

void png_on_warning(png_structp, png_const_charp) {}  // benign: ancillary chunks libpng skips

// The decode itself, between png_create_read_struct and its destruction; false with `failure`
// set on any error. `out` is sized here from the header, once checked.
bool decode_png(const std::string& path, const std::vector<std::byte>& file, pixels& out,
                png_failure& failure) {
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &failure, png_on_error, png_on_warning);
  if (!png) return std::snprintf(failure.message, sizeof failure.message, "out of memory"), false;
  png_infop info = png_create_info_struct(png);
  png_source source{reinterpret_cast<const png_byte*>(file.data()), file.size(), 0};
  std::vector<png_bytep> rows;  // constructed before setjmp: a longjmp skips no destructor
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    if (!failure.message[0]) std::snprintf(failure.message, sizeof failure.message, "libpng");
    return false;
  }
  png_set_read_fn(png, &source, png_read_bytes);
  png_read_info(png, info);
  png_set_expand(png);  // palette to RGB, gray below 8 bits to 8, transparency to alpha
  if (png_get_bit_depth(png, info) == 16) png_set_swap(png);  // host order (little-endian)
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  out.width = png_get_image_width(png, info);
  out.height = png_get_image_height(png, info);
  out.channels = png_get_channels(png, info);
  out.sample = png_get_bit_depth(png, info) == 16 ? 2 : 1;
  try {  // a size past memory, or no memory for it: png freed, then the error on its way
    check_size(path, out.width, out.height, out.channels, out.sample);
    out.allocate();
    rows.resize(out.height);
  } catch (...) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw;
  }
  for (std::size_t y = 0; y < out.height; ++y)
    rows[y] =
        reinterpret_cast<png_bytep>(out.owned.get()) + y * out.width * out.channels * out.sample;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

pixels read_png(const std::string& path, const std::vector<std::byte>& file) {
  // The header's size first, outside libpng's longjmp: the width and height (bytes 16 to 23).
  const auto* b = reinterpret_cast<const unsigned char*>(file.data());
  if (file.size() >= 24) {
    const auto be32 = [&](std::size_t i) {
      return std::size_t(b[i]) << 24 | std::size_t(b[i + 1]) << 16 | std::size_t(b[i + 2]) << 8 |
             b[i + 3];
    };
    check_size(path, be32(16), be32(20), 4, 2);
  }
  pixels out;
  png_failure failure;
  if (!decode_png(path, file, out, failure)) cannot_decode(path, "PNG", failure.message);
  return out;
}
#endif

#ifdef PPLAB_HAVE_JPEG
// ---- JPEG: libjpeg, every warning (corrupt data, a premature end, which it would repair with
// gray) an error, progressive files held to 1000 scans ----
struct jpeg_failure {
  jpeg_error_mgr manager;
  std::jmp_buf back;
  char message[JMSG_LENGTH_MAX] = "";
};

void jpeg_on_error(j_common_ptr cinfo) {
  auto* f = reinterpret_cast<jpeg_failure*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, f->message);
  std::longjmp(f->back, 1);
}

void jpeg_on_message(j_common_ptr cinfo, int level) {
  if (level < 0) jpeg_on_error(cinfo);  // a warning: the data is corrupt or cut short
}

constexpr int max_scans = 1000;  // a progressive JPEG of more scans is refused (libjpeg-turbo's
                                 // own TJ limit is 500 by option; real files have about 10)

void jpeg_on_progress(j_common_ptr cinfo) {
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->input_scan_number > max_scans) {
    auto* f = reinterpret_cast<jpeg_failure*>(cinfo->err);
    std::snprintf(f->message, sizeof f->message, "more than %d scans", max_scans);
    std::longjmp(f->back, 1);
  }
}

bool decode_jpeg(const std::string& path, const std::vector<std::byte>& file, pixels& out,
                 jpeg_failure& failure) {
  jpeg_decompress_struct cinfo{};  // zeroed: destroying it before it is created is harmless
  jpeg_progress_mgr progress{};
  std::vector<JSAMPROW> rows;  // constructed before setjmp: a longjmp skips no destructor
  cinfo.err = jpeg_std_error(&failure.manager);
  failure.manager.error_exit = jpeg_on_error;
  failure.manager.emit_message = jpeg_on_message;
  if (setjmp(failure.back)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  progress.progress_monitor = jpeg_on_progress;
  cinfo.progress = &progress;
  jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(file.data()),
               static_cast<unsigned long>(file.size()));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    std::snprintf(failure.message, sizeof failure.message,
                  "a CMYK JPEG; pplab reads gray and colour (RGB) ones");
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  out.width = cinfo.image_width, out.height = cinfo.image_height;
  out.channels = cinfo.num_components == 1 ? 1 : 3;
  out.sample = 1;
  try {  // a size past memory, or no memory for it: the decoder freed, then the error
    check_size(path, out.width, out.height, out.channels, 1);
    out.allocate();
    rows.resize(1);
  } catch (...) {
    jpeg_destroy_decompress(&cinfo);
    throw;
  }
  jpeg_start_decompress(&cinfo);
  while (cinfo.output_scanline < cinfo.output_height) {
    rows[0] = reinterpret_cast<JSAMPROW>(out.owned.get()) +
              std::size_t(cinfo.output_scanline) * out.width * out.channels;
    jpeg_read_scanlines(&cinfo, rows.data(), 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

pixels read_jpeg(const std::string& path, const std::vector<std::byte>& file) {
  pixels out;
  jpeg_failure failure;
  if (!decode_jpeg(path, file, out, failure)) cannot_decode(path, "JPEG", failure.message);
  return out;
}
#endif

#ifdef PPLAB_HAVE_STB
// ---- BMP, TGA, GIF: stb_image, reading through callbacks: from memory it fills the pixels of a
// short file with zeros and reports success; through callbacks, a read that finds no bytes left
// means the decoder needed more than the file holds ----
struct stb_reader {
  const std::byte* data;
  std::size_t size, at = 0;
  bool overran = false;

  static int read(void* user, char* out, int want) {
    auto& r = *static_cast<stb_reader*>(user);
    const std::size_t n = std::min(std::size_t(want), r.size - r.at);
    if (want > 0 && n == 0) r.overran = true;
    if (n) std::memcpy(out, r.data + r.at, n);
    r.at += n;
    return int(n);
  }
  static void skip(void* user, int n) {
    auto& r = *static_cast<stb_reader*>(user);
    if (n < 0) r.at -= std::min(r.at, std::size_t(-std::int64_t(n)));
    else r.at += std::min(std::size_t(n), r.size - r.at);
  }
  static int eof(void* user) {
    const auto& r = *static_cast<stb_reader*>(user);
    return r.at >= r.size;
  }
};

pixels read_with_stb(const std::string& path, const std::vector<std::byte>& file) {
  const stbi_io_callbacks io{&stb_reader::read, &stb_reader::skip, &stb_reader::eof};
  stb_reader probe{file.data(), file.size()};
  int w = 0, h = 0, channels = 0;
  if (stbi_info_from_callbacks(&io, &probe, &w, &h, &channels))  // refuse before decoding
    check_size(path, std::size_t(w), std::size_t(h), std::size_t(channels), 1);
  stb_reader reader{file.data(), file.size()};
  unsigned char* decoded = stbi_load_from_callbacks(&io, &reader, &w, &h, &channels, 0);
  if (decoded && reader.overran) {
    stbi_image_free(decoded);
    fail(errc::bad_data, path + ": the file is truncated: the image's header promises " +
                             std::to_string(w) + " x " + std::to_string(h) +
                             " pixels, but the file ends before they do.");
  }
  if (!decoded) {
    const std::string reason = stbi_failure_reason() ? stbi_failure_reason() : "";
    fail(errc::bad_data, path + ": the image cannot be decoded" +
                             (reason.empty() ? "" : " (the decoder reports '" + reason + "')") +
                             ": the file is not a PNG, JPEG, PNM, BMP, TGA or GIF image, or it "
                             "is corrupt or truncated.");
  }
  pixels out{std::size_t(w), std::size_t(h), std::size_t(channels), 1, nullptr, nullptr};
  std::memcpy(out.allocate(), decoded, out.width * out.height * out.channels);
  stbi_image_free(decoded);
  return out;
}
#endif

bool starts_with(const std::vector<std::byte>& file, const char* magic, std::size_t n) {
  return file.size() >= n && std::memcmp(file.data(), magic, n) == 0;
}

[[noreturn, maybe_unused]] void not_in_this_build(const std::string& path, const char* kind,
                                                  const char* lib) {
  fail(errc::unsupported, path + ": this build reads no " + kind + " (" + lib +
                              " was not found when it was built; scripts/install-deps installs "
                              "it)");
}

}  // namespace

input read_image(const std::string& path) {
  const std::vector<std::byte> file = read_file(path);
  pixels px;
  if (starts_with(file, "\x89PNG\r\n\x1a\n", 8)) {
#ifdef PPLAB_HAVE_PNG
    px = read_png(path, file);
#else
    not_in_this_build(path, "PNG", "libpng");
#endif
  } else if (starts_with(file, "\xff\xd8\xff", 3)) {
#ifdef PPLAB_HAVE_JPEG
    px = read_jpeg(path, file);
#else
    not_in_this_build(path, "JPEG", "libjpeg");
#endif
  } else if (starts_with(file, "P5", 2) || starts_with(file, "P6", 2)) {
    px = read_pnm(path, file);
  } else {
#ifdef PPLAB_HAVE_STB
    px = read_with_stb(path, file);
#else
    not_in_this_build(path, "BMP, TGA or GIF image", "stb_image");
#endif
  }
  input in;
  in.format = "image";
  in.natural_bytes = px.sample == 1;
  static const char* rgba[] = {"R", "G", "B", "A"};
  static const char* gray[] = {"gray", "alpha"};
  const std::size_t count = px.width * px.height, n = px.channels;
  for (std::size_t ch = 0; ch < n; ++ch) {
    array a;
    a.type = px.sample == 2 ? dtype::u16 : dtype::u8;
    a.shape = {px.height, px.width};
    a.bytes.resize(count * px.sample);
    if (px.sample == 1) {
      const auto* from = reinterpret_cast<const std::uint8_t*>(px.data) + ch;
      auto* to = reinterpret_cast<std::uint8_t*>(a.bytes.data());
      for (std::size_t i = 0; i < count; ++i) to[i] = from[i * n];
    } else {
      for (std::size_t i = 0; i < count; ++i)
        std::memcpy(&a.bytes[i * 2], px.data + (i * n + ch) * 2, 2);
    }
    in.channels.push_back(std::move(a));
    in.names.push_back(n <= 2 ? gray[ch] : rgba[ch]);
  }
  return in;
}

}  // namespace pplab::io
