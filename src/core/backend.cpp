#include "pplab/backend.hpp"
#include "core/device.hpp"
#include "core/device_memory.hpp"
#include "pplab/device.hpp"
#include "pplab/error.hpp"

namespace pplab {

bool available(backend b) {
  switch (b) {
  case backend::seq:
  case backend::cpu:
    return true;
  case backend::cuda:
    return detail::gpu().present;
  default:
    return false;
  }
}

#ifndef PPLAB_HAVE_CUDA
namespace {
[[noreturn]] void no_cuda() {
  fail(errc::unsupported, "this build has no CUDA backend (nvcc was not found when it was built)");
}
}  // namespace

detail::device_buffer::device_buffer(std::size_t bytes, bool) : bytes_(bytes) {
  if (bytes) no_cuda();
}
detail::device_buffer::~device_buffer() = default;
detail::device_buffer& detail::device_buffer::operator=(device_buffer&&) noexcept { return *this; }
void detail::copy_to_device(void*, const void*, std::size_t) { no_cuda(); }
void detail::copy_to_host(void*, const void*, std::size_t) { no_cuda(); }
void detail::fill_device(void*, int, std::size_t) { no_cuda(); }
void detail::device_synchronize() { no_cuda(); }
scalar reduce_device(dtype, const void*, std::size_t, op) { no_cuda(); }

const detail::gpu_info& detail::gpu() {
  static const gpu_info none = [] {
    gpu_info g;
    g.why_absent = "this build has no CUDA backend (nvcc was not found)";
    return g;
  }();
  return none;
}
#endif

}  // namespace pplab
