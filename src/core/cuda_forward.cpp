// The cuda backend as the core sees it (core/modules.hpp): forwarded to its module, or, where this
// build has none or it cannot be loaded, an executor that says why and no GPU.
// The forwarders called on every API call look their function up once (a module is tried once).
#include "core/device.hpp"
#include "core/host/host_executor.hpp"
#include "core/modules.hpp"
#include "pplab/device.hpp"

namespace pplab::detail {

namespace {
// Why the build left the backend out, as its configure step saw it (cmake/dependencies.cmake).
#ifndef PPLAB_CUDA_LEFT_OUT
#define PPLAB_CUDA_LEFT_OUT 3
#endif
std::string why_no_cuda() {
  if (module_built(backend::cuda)) return module_why_absent(backend::cuda);
  switch (PPLAB_CUDA_LEFT_OUT) {
  case 1:
    return "this build has no CUDA backend (it was configured with PPLAB_CUDA=OFF)";
  case 2:
    return "this build has no CUDA backend (no GPU answered when it was configured; "
           "-DPPLAB_CUDA=ON builds it wherever nvcc is found)";
  default:
    return "this build has no CUDA backend (nvcc was not found when it was configured)";
  }
}
}  // namespace

executor& cuda_executor() {
  static auto* const f = module_function<executor&()>(backend::cuda, "cuda_executor");
  if (f) return f();
  static absent_executor ex(backend::cuda, why_no_cuda());
  return ex;
}

std::size_t free_device_bytes() {
  auto* f = module_function<std::size_t()>(backend::cuda, "free_device_bytes");
  return f ? f() : 0;
}

const gpu_info& gpu() {
  static auto* const f = module_function<const gpu_info&()>(backend::cuda, "gpu");
  if (f) return f();
  static const gpu_info none = [] {
    gpu_info g;
    g.why_absent = why_no_cuda();
    return g;
  }();
  return none;
}

}  // namespace pplab::detail

int pplab::current_device() {
  auto* f = detail::module_function<int()>(backend::cuda, "current_device");
  return f ? f() : -1;
}

void* pplab::pplab_stream() {
  if (!available(backend::cuda)) return nullptr;
  return detail::executor_for(backend::cuda).stream();
}

bool pplab::wait_for_stream(void* stream) {
  auto* f = detail::module_function<bool(void*)>(backend::cuda, "wait_for_stream");
  return f && f(stream);
}

// Without the module there is no stream to run on: a scope changes nothing (every device call
// fails).
pplab::stream_scope::stream_scope(void* stream) : previous_(nullptr), had_previous_(false) {
  static auto* const open =
      detail::module_function<void(void*, void**, bool*)>(backend::cuda, "open_stream_scope");
  if (open) open(stream, &previous_, &had_previous_);
}

pplab::stream_scope::~stream_scope() {
  static auto* const close =
      detail::module_function<void(void*, bool)>(backend::cuda, "close_stream_scope");
  if (close) close(previous_, had_previous_);
}
