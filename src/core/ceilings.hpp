#pragma once
// The machine's own ceilings, measured in the same run as the rungs they bound.
#include <cstddef>
#include <string>

#include "pplab/machine.hpp"

namespace pplab::detail {

using pplab::cpu_facts;
cpu_facts cpu();

// Multi-threaded streaming read of a `bytes` working set (the best read loop we know), GB/s.
double measure_read_GBps(std::size_t bytes, double budget_s);
// Multi-threaded copy, counting bytes read plus bytes written, GB/s.
double measure_copy_GBps(std::size_t bytes, double budget_s);
// Peak multiply-add rate of all threads from a register-resident FMA loop, GFLOP/s.
double measure_fma_GFLOPs(bool single, double budget_s);

}  // namespace pplab::detail
