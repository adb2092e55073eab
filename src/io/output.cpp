#include "pplab/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

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

// The temporary file beside the path, created exclusively (O_EXCL refuses any name that exists,
// a planted symbolic link included, and O_NOFOLLOW says so twice) under a name no other program
// can guess ahead: <path>.tmp.<pid>.<random>. Made with mode 0666 less the umask, as a plain
// fopen would, so the renamed file has the permissions the user expects.
int create_temporary(const std::string& path, std::string& temp) {
  std::random_device entropy;
  for (int attempt = 0; attempt < 64; ++attempt) {
    char tail[32];
    std::snprintf(tail, sizeof tail, ".tmp.%ld.%08x", static_cast<long>(::getpid()),
                  static_cast<unsigned>(entropy()));
    temp = path + tail;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

void output_file::remove_unfinished() noexcept {
  for (std::atomic<const char*>& s : unfinished)
    if (const char* p = s.load()) ::unlink(p);
}

output_file::output_file(std::string path) : path_(std::move(path)) {
  if (path_.empty()) fail(errc::invalid_argument, "the output path is empty; name a file");
  const std::string cannot = "cannot write '" + path_ + "': ";
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  int fd = -1;
  if (exists && S_ISDIR(st.st_mode)) {
    fail(errc::io, cannot + "it is a directory; name a file in it");
  } else if (exists && S_ISFIFO(st.st_mode)) {
    // A pipe (a FIFO, or /dev/stdout into a pipe) is written in place. Opened without waiting,
    // a FIFO that no program reads fails at once (ENXIO) rather than blocking forever.
    fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENXIO)
      fail(errc::io, cannot + "it is a named pipe (FIFO) that no program is reading; start its "
                              "reader first, or name a regular file");
    if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  } else if (exists && S_ISCHR(st.st_mode)) {
    fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);  // /dev/null, /dev/full, a terminal
  } else if (exists && !S_ISREG(st.st_mode)) {
    fail(errc::io, cannot + "it is neither a regular file nor a pipe or character device (a "
                            "socket or a block device); name a regular file");
  } else {
    fd = create_temporary(path_, temp_);
    if (fd >= 0) track(temp_.c_str());
  }
  if (fd >= 0 && !(f_ = ::fdopen(fd, "wb"))) {
    const int e = errno;
    ::close(fd);
    errno = e;
  }
  if (!f_) {
    const int e = errno;
    if (fd >= 0 && !temp_.empty()) {
      untrack(temp_.c_str());
      ::unlink(temp_.c_str());
    }
    fail(errc::io, cannot + std::strerror(e));
  }
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
