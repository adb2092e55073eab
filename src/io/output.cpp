#include "pplab/io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pplab/error.hpp"

namespace pplab::io {

output_file::output_file(std::string path) : path_(std::move(path)) {
  if (path_.empty()) fail(errc::invalid_argument, "the output path is empty; name a file");
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    fail(errc::io, "cannot write '" + path_ + "': it is a directory; name a file in it");
  if (exists && !S_ISREG(st.st_mode)) {
    f_ = std::fopen(path_.c_str(), "wb");
  } else {
    temp_ = path_ + ".tmp." + std::to_string(::getpid());
    f_ = std::fopen(temp_.c_str(), "wb");
  }
  if (!f_) fail(errc::io, "cannot write '" + path_ + "': " + std::strerror(errno));
}

output_file::~output_file() {
  if (!f_) return;  // committed
  std::fclose(f_);
  if (!temp_.empty()) std::remove(temp_.c_str());
}

void output_file::write(const void* data, std::size_t bytes) {
  if (error_ || !bytes) return;
  if (std::fwrite(data, 1, bytes, f_) != bytes) error_ = errno ? errno : EIO;
}

void output_file::commit() {
  if (!error_ && std::fflush(f_) != 0) error_ = errno ? errno : EIO;
  if (!error_ && std::ferror(f_)) error_ = EIO;
  const int closed = std::fclose(f_);
  f_ = nullptr;
  if (!error_ && closed != 0) error_ = errno ? errno : EIO;
  if (!error_ && !temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0)
    error_ = errno ? errno : EIO;
  if (error_) {
    if (!temp_.empty()) std::remove(temp_.c_str());
    fail(errc::io, "cannot write '" + path_ + "': " + std::strerror(error_));
  }
}

}  // namespace pplab::io
