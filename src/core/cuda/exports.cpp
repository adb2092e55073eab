// What the cuda backend's own folder gives the core through the module's table
// (core/modules.hpp; src/core/cuda_forward.cpp forwards to these).
#include <cstddef>

#include "core/executor.hpp"
#include "core/modules.hpp"
#include "pplab/machine.hpp"

namespace pplab::detail {

executor& cuda_module_executor();
const gpu_info& cuda_module_gpu();
std::size_t cuda_module_free_bytes();
int cuda_module_current_device();
bool cuda_module_wait_for_stream(void* stream);
void cuda_module_open_stream_scope(void* stream, void** previous, bool* had_previous);
void cuda_module_close_stream_scope(void* previous, bool had_previous);

void add_core_cuda_exports(module_exports& e) {
  e.add("cuda_executor", &cuda_module_executor);
  e.add("gpu", &cuda_module_gpu);
  e.add("free_device_bytes", &cuda_module_free_bytes);
  e.add("current_device", &cuda_module_current_device);
  e.add("wait_for_stream", &cuda_module_wait_for_stream);
  e.add("open_stream_scope", &cuda_module_open_stream_scope);
  e.add("close_stream_scope", &cuda_module_close_stream_scope);
}

}  // namespace pplab::detail
