// What the GPU of this machine is, asked once.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/check.cuh"
#include "core/device.hpp"

namespace pplab::detail {

const gpu_info& cuda_module_gpu() {
  static const gpu_info info = [] {
    gpu_info g;
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      g.why_absent = e != cudaSuccess
                         ? std::string("no CUDA device answers (") + cudaGetErrorString(e) + ")"
                         : "no CUDA device found";
      cudaGetLastError();  // clear the sticky-free error for later calls
      return g;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
      g.why_absent = "cannot read the properties of device 0";
      return g;
    }
    int mem_khz = 0, bus_bits = 0, driver = 0;
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
    cudaDriverGetVersion(&driver);
    g.present = true;
    g.name = prop.name;
    g.sm_count = prop.multiProcessorCount;
    g.mem_bytes = prop.totalGlobalMem;
    // Double data rate: two transfers per clock over the whole bus.
    g.mem_GBps_theoretical = 2.0 * double(mem_khz) * 1e3 * double(bus_bits) / 8 * 1e-9;
    g.driver = "CUDA " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
    return g;
  }();
  return info;
}

std::size_t cuda_module_free_bytes() {
  std::size_t free = 0, total = 0;
  int device = 0;
  cudaMemPool_t pool;
  std::uint64_t reserved = 0, used = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
    cudaGetLastError();
    return free;
  }
  return free + std::size_t(reserved > used ? reserved - used : 0);
}

int cuda_module_current_device() {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return device;
}

bool cuda_module_wait_for_stream(void* stream) {
  if (cudaStreamSynchronize(static_cast<cudaStream_t>(stream)) == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

}  // namespace pplab::detail
