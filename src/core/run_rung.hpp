#pragma once
// Running one rung on host data: scratch allocated here, and for a rung that works on device
// memory, the data staged through the GPU (defined in the CUDA part of the build).
#include "core/registry.hpp"

namespace pplab::detail {

void require_backend(backend b);  // throws pplab::error with the reason when b is not usable

scalar run_reduce(const reduce_rung& r, const reduce_problem& p, const void* host_data);
void run_histogram(const histogram_rung& r, const histogram_problem& p, const void* host_data,
                   std::uint64_t* host_counts);
void run_matmul(const matmul_rung& r, const matmul_call& host_call);

}  // namespace pplab::detail
