#include "pplab/io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "pplab/error.hpp"

namespace pplab::io {
namespace {

// The temporary paths of the outputs alive now, for remove_unfinished(), which may run in a
// signal handler: fixed slots read with atomic loads, no allocation. An output beyond the slots
// is still written whole or not at all; only a signal would leave its temporary file.
constexpr int slots = 16;
std::atomic<const char*> unfinished[slots];

void track(const char* path) {
  for (std::atomic<const char*>& s : unfinished) {
    const char* empty = nullptr;
    if (s.compare_exchange_strong(empty, path)) return;
  }
}

void untrack(const char* path) {
  for (std::atomic<const char*>& s : unfinished) {
    const char* mine = path;
    if (s.compare_exchange_strong(mine, nullptr)) return;
  }
}

}  // namespace

void output_file::remove_unfinished() noexcept {
  for (std::atomic<const char*>& s : unfinished)
    if (const char* p = s.load()) ::unlink(p);
}

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
    track(temp_.c_str());
    f_ = std::fopen(temp_.c_str(), "wb");
  }
  if (!f_) fail(errc::io, "cannot write '" + path_ + "': " + std::strerror(errno));
}

output_file::~output_file() {
  if (!temp_.empty()) untrack(temp_.c_str());
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
  if (!temp_.empty()) untrack(temp_.c_str());
  if (error_) {
    if (!temp_.empty()) std::remove(temp_.c_str());
    fail(errc::io, "cannot write '" + path_ + "': " + std::strerror(error_));
  }
}

}  // namespace pplab::io
