#pragma once
// The machine's own ceilings, measured in the same run as the rungs they bound.
#include <cstddef>
#include <string>

namespace pplab::detail {

struct cpu_facts {
  std::string model;
  int cores = 0;    // logical CPUs this process may use
  int threads = 0;  // OpenMP threads
};
cpu_facts cpu();

// Multi-threaded streaming read of a `bytes` working set (the best read loop we know), GB/s.
double measure_read_GBps(std::size_t bytes, double budget_s);
// Multi-threaded copy, counting bytes read plus bytes written, GB/s.
double measure_copy_GBps(std::size_t bytes, double budget_s);
// Peak multiply-add rate of all threads from a register-resident FMA loop, GFLOP/s.
double measure_fma_GFLOPs(bool single, double budget_s);

}  // namespace pplab::detail
