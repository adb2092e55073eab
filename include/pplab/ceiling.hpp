#pragma once
// One measured ceiling of the machine, as the lab and `pplab info` report it.
#include <string>

namespace pplab {

// "read_GBps" = 24.3 GB/s, with how it was measured.
struct ceiling {
  std::string key;  // read_GBps, copy_GBps, fp32_GFLOPs, gpu_read_GBps, gpu_launch_us, ...
  double value = 0;
  std::string source;  // how it was measured
};

}  // namespace pplab
