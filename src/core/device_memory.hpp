#pragma once
// Device memory for host code that includes no CUDA header (tests, the CLI). In a build without
// CUDA every call throws pplab::error (unsupported).
#include <cstddef>

namespace pplab::detail {

class device_buffer {
public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes, bool zeroed = false);
  ~device_buffer();
  device_buffer(device_buffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
  device_buffer& operator=(device_buffer&& o) noexcept;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  void* get() const noexcept { return p_; }
  std::size_t size() const noexcept { return bytes_; }

private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void fill_device(void* dst, int byte, std::size_t bytes);
void device_synchronize();  // waits for all work and throws if a kernel failed

}  // namespace pplab::detail
