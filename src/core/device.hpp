#pragma once
// What the GPU side of this build can do, asked without including CUDA headers.
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

}  // namespace pplab::detail
