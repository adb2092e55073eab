#pragma once
// pplab::io (the pplab::io library): the readers and writers of the command line, for any
// program: .npy files (versions 1 to 3, either byte order), text, raw binary, bytes and images in,
// .npy out, and an output file that is written whole or not at all. Errors throw pplab::error.
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pplab/dtype.hpp"

namespace pplab::io {

// An output file written whole or not at all. The bytes go to a temporary file beside the path,
// which is renamed over it once every byte is written and the file closed without error, so an
// interrupt or a full disk never leaves half a file. It is opened at construction: a path that
// cannot be written is reported before any long computation, not after it. The temporary file is
// created exclusively under an unguessable name, so a link planted beside the path is never
// followed. A path that exists as a character device (/dev/null, /dev/full, a terminal) or a pipe
// with a reader (/dev/stdout into a pipe) is written in place, with its errors checked the same
// way; a FIFO that no program reads, a socket or a block device is refused.
class output_file {
public:
  explicit output_file(std::string path);
  ~output_file();  // without commit(), the temporary file is removed and the path left as it was
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Flushes, closes, checks, renames; throws pplab::error (io) naming the path and the reason.
  void commit();
  const std::string& path() const noexcept { return path_; }

  // Removes the temporary files of the outputs not yet committed, for a signal handler (it only
  // calls unlink): a program that ends on SIGINT or SIGTERM leaves no temporary file behind. The
  // library installs no handler; the command line's calls this, then dies of the signal.
  static void remove_unfinished() noexcept;

private:
  std::string path_, temp_;  // temp_ empty: written in place
  std::FILE* f_ = nullptr;
  int error_ = 0;  // the first errno of a failed write
};

// An n-dimensional array read from a file: dtype, shape (C order) and the bytes of its elements.
struct array {
  dtype type = dtype::u8;
  std::vector<std::size_t> shape;  // empty for a scalar
  std::vector<std::byte> bytes;
  std::string
      stored_as;  // how the file held it when that differs: "float16", "bool", "Fortran order"

  std::size_t size() const noexcept { return bytes.size() / size_of(type); }
  const void* data() const noexcept { return bytes.data(); }
  void* data() noexcept { return bytes.data(); }
};

// .npy versions 1.0 to 3.0 as NumPy reads them (see npy.cpp: bool, float16 and Fortran order are
// converted; what pplab cannot hold is refused with a reason); throws pplab::error.
array read_npy(const std::string& path);
// A part of the elements (C order, flattened): `choose(count)` gets the file's element count and
// says which {first, count} to read; only those bytes are read. The array's shape stays the
// file's while its bytes hold the part. Fortran-order files are refused.
// A block of a 2-D matrix: `choose(rows, cols)` gets the file's shape and says which rows and
// columns to read; only those are read, row segment by row segment. The shape stays the file's.
struct block {
  std::size_t row0 = 0, rows = 0, col0 = 0, cols = 0;
};
using block_chooser = std::function<block(std::size_t rows, std::size_t cols)>;
array read_npy_block(const std::string& path, const block_chooser& choose);
using part_chooser = std::function<std::pair<std::size_t, std::size_t>(std::size_t count)>;
array read_npy_part(const std::string& path, const part_chooser& choose);
array parse_npy(const std::byte* data, std::size_t size, const std::string& name);
void write_npy(const std::string& path, const array& a);
void write_npy(output_file& out, const array& a);  // and commits it

// One input, possibly several channels (an RGB image gives three named arrays).
struct input {
  std::vector<array> channels;
  std::vector<std::string> names;  // "" for a plain array; "R", "G", "B", "A", "gray" for images
  std::string format;              // npy, text, raw, bytes, image
  bool natural_bytes = false;      // bytes and 8-bit images: 256 natural bins by default
};

// format: "" (by extension), npy, raw, text, bytes or image. raw_type: the dtype of raw files
// and of numbers read from text (text defaults to f64).
input read_input(const std::string& path, const std::string& format, const dtype* raw_type);
// A part of every channel, for one rank of several: .npy, raw and bytes files are read from the
// part's offset alone; text and images (which cannot be cut without reading them) are read
// whole and cut.
input read_input_part(const std::string& path, const std::string& format, const dtype* raw_type,
                      const part_chooser& choose);

std::vector<std::byte> read_file(const std::string& path);

// An image of 1 to 4 u8 channels of one shape (rows x cols), written to `out` and committed: PNG
// by default, binary PGM (one channel) or PPM (three) when its path ends in .pgm, .ppm or .pnm.
// Throws pplab::error (invalid_argument) for channels of another dtype, shape or count, and
// (unsupported) for PNG in a build without stb.
void write_image(output_file& out, const std::vector<array>& channels);

}  // namespace pplab::io
