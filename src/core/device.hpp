#pragma once
// What the GPU side of this build can do, asked without including CUDA headers.
#include <cstddef>
#include <string>

#include "pplab/device.hpp"
#include "pplab/machine.hpp"

namespace pplab::detail {

using pplab::gpu_info;

// Cached after the first call; never throws.
const gpu_info& gpu();

// What cudaMallocAsync can give now on the current device: its free memory plus what its default
// pool holds unused. 0 without a GPU; never throws.
std::size_t free_device_bytes();

// The device and stream calls of the public API (pplab/device.hpp).
using pplab::current_device;
using pplab::wait_for_stream;

}  // namespace pplab::detail
