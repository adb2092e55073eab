#pragma once
// An output file written whole or not at all. The bytes go to a temporary file beside the path,
// which is renamed over it once every byte is written and the file closed without error, so an
// interrupt or a full disk never leaves half a file. It is opened at construction: a path that
// cannot be written is reported before any long computation, not after it. A path that exists
// and is not a regular file (a device such as /dev/full, a FIFO) is written in place, with its
// errors checked the same way.
#include <cstdio>
#include <string>
#include <string_view>

namespace pplab::io {

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

private:
  std::string path_, temp_;  // temp_ empty: written in place
  std::FILE* f_ = nullptr;
  int error_ = 0;  // the first errno of a failed write
};

}  // namespace pplab::io
