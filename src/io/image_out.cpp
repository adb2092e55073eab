// io::write_image: u8 channels interleaved into pixels, as binary PNM (written here) or PNG
// (stb_image_write, encoded in memory and written through the output file, so a failed write
// leaves no half image).
#include <cctype>
#include <cstring>
#include <string>

#include "pplab/error.hpp"
#include "pplab/io.hpp"

#ifdef PPLAB_HAVE_STB
#include <stb/stb_image_write.h>
#endif

namespace pplab::io {
namespace {

bool ends_with(const std::string& s, const char* tail) {
  const std::size_t n = std::strlen(tail);
  if (s.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != tail[i]) return false;
  return true;
}

}  // namespace

void write_image(output_file& out, const std::vector<array>& channels) {
  const std::string& path = out.path();
  if (channels.empty() || channels.size() > 4)
    fail(errc::invalid_argument,
         path + ": an image has 1 to 4 channels, not " + std::to_string(channels.size()));
  const std::vector<std::size_t> shape = channels[0].shape;
  for (const array& c : channels)
    if (c.type != dtype::u8 || c.shape.size() != 2 || c.shape != shape)
      fail(errc::invalid_argument,
           path + ": an image's channels must be u8 planes of one shape (rows x cols)");
  const std::size_t rows = shape[0], cols = shape[1], n = channels.size();
  // PNG and PNM need a pixel (the readers refuse an image without one, and the PNG encoder
  // cannot make one): an empty result belongs in a .npy.
  if (rows == 0 || cols == 0)
    fail(errc::bad_data, path + ": an image of " + std::to_string(rows) + " x " +
                             std::to_string(cols) +
                             " pixels cannot be written as a picture (PNG and PNM need at least "
                             "one row and one column); write it as .npy");
  std::vector<unsigned char> pixels(rows * cols * n);
  for (std::size_t c = 0; c < n; ++c) {
    const auto* plane = static_cast<const unsigned char*>(channels[c].data());
    for (std::size_t i = 0; i < rows * cols; ++i) pixels[i * n + c] = plane[i];
  }
  if (ends_with(path, ".pgm") || ends_with(path, ".ppm") || ends_with(path, ".pnm")) {
    if (n != 1 && n != 3)
      fail(errc::invalid_argument,
           path + ": PGM holds one channel and PPM three; this image has " + std::to_string(n));
    out.write((n == 1 ? "P5\n" : "P6\n") + std::to_string(cols) + " " + std::to_string(rows) +
              "\n255\n");
    out.write(pixels.data(), pixels.size());
    out.commit();
    return;
  }
#ifdef PPLAB_HAVE_STB
  if (rows > (1u << 30) || cols * n > (1u << 30))
    fail(errc::invalid_argument, path + ": too large an image for PNG");
  std::vector<unsigned char> png;
  const auto append = [](void* to, void* data, int size) {
    auto* v = static_cast<std::vector<unsigned char>*>(to);
    v->insert(v->end(), static_cast<unsigned char*>(data),
              static_cast<unsigned char*>(data) + size);
  };
  if (!stbi_write_png_to_func(append, &png, int(cols), int(rows), int(n), pixels.data(),
                              int(cols * n)))
    fail(errc::io, path + ": the PNG encoder failed");
  out.write(png.data(), png.size());
  out.commit();
#else
  fail(errc::unsupported, path + ": this build writes no PNG (stb was not found); write .ppm or "
                                 ".pgm instead");
#endif
}

}  // namespace pplab::io
