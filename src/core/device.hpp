#pragma once
// What the GPU side of this build can do, asked without including CUDA headers.
#include <cstddef>
#include <string>

namespace pplab::detail {

struct gpu_info {
  bool present = false;
  std::string name, driver;
  int sm_count = 0;
  double mem_GBps_theoretical = 0;  // from the device attributes
  std::size_t mem_bytes = 0;
  std::string why_absent;  // "built without CUDA", "no device: ..."
};

// Cached after the first call; never throws.
const gpu_info& gpu();

// What cudaMallocAsync can give now on the current device: its free memory plus what its default
// pool holds unused. 0 without a GPU; never throws.
std::size_t free_device_bytes();

}  // namespace pplab::detail
