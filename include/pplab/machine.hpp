#pragma once
// The machine pplab runs on: its CPU and GPU as this build sees them, what each backend is here
// (or why it is absent), and the ceilings each backend's executor measures (`pplab info`).
#include <cstddef>
#include <string>
#include <vector>

#include "pplab/backend.hpp"
#include "pplab/ceiling.hpp"

namespace pplab {

struct cpu_facts {
  std::string model;
  int cores = 0;    // logical CPUs this process may use
  int threads = 0;  // OpenMP threads
};

struct gpu_info {
  bool present = false;
  std::string name, driver;
  int sm_count = 0;
  double mem_GBps_theoretical = 0;  // from the device attributes
  std::size_t mem_bytes = 0;
  std::string why_absent;  // "built without CUDA", "no device: ..."
};

cpu_facts machine_cpu();
const gpu_info& machine_gpu();  // cached after the first call; never throws

// What backend b is here in a few words ("NVIDIA H200, 132 SMs, ..."), or why it is not usable
// (empty when it is).
std::string describe(backend b);
std::string why_absent(backend b);

// Backend b's own ceilings, measured now on `bytes`-sized buffers within about `budget_s`.
std::vector<ceiling> measure_ceilings(backend b, std::size_t bytes, double budget_s);

}  // namespace pplab
