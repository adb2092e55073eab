#pragma once
// The GPU histogram's floors: how many atomic adds per second the GPU does at each level of its
// memory (the histogram notes' atomic hierarchy), measured by src/histogram/cuda/atomic_rates.cu;
// empty in a build without CUDA. Keys (G atomics/s): gpu_atomic_shared_Gps (shared memory, every
// lane its own bank), gpu_atomic_shared_one_Gps (shared memory, a whole block on one counter),
// gpu_atomic_l2_Gps (64-bit global atomics on 4 MiB of counters, resident in L2),
// gpu_atomic_dram_Gps (the same on 1 GiB of counters, past L2), gpu_atomic_one_Gps (every
// thread of the GPU on one global counter); and gpu_atomic_shared_byte_GBps, the shared rate as
// bytes per second at one atomic per byte: a byte histogram's floor.
#include <vector>

#include "core/executor.hpp"

namespace pplab::detail {

std::vector<ceiling> measure_gpu_atomic_rates(executor& ex, double budget_s);

}  // namespace pplab::detail
