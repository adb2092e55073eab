#pragma once
// What the GPU side of this build can do, asked without including CUDA headers.
#include <cstddef>
#include <string>

#include "pplab/machine.hpp"

namespace pplab::detail {

using pplab::gpu_info;

// Cached after the first call; never throws.
const gpu_info& gpu();

// What cudaMallocAsync can give now on the current device: its free memory plus what its default
// pool holds unused. 0 without a GPU; never throws.
std::size_t free_device_bytes();

// The CUDA device this thread runs on (-1 without a usable GPU).
int current_device();
// Waits for the work queued on a caller's CUDA stream; false if it failed (or there is no GPU).
bool wait_for_stream(void* stream);

}  // namespace pplab::detail
