#pragma once
// One include for all of pplab's public API.
#include "backend.hpp"
#include "convolution.hpp"
#include "device.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "histogram.hpp"
#include "interrupt.hpp"
#include "job.hpp"
#include "machine.hpp"
#include "matmul.hpp"
#include "ops.hpp"
#include "reduce.hpp"
#include "tuning.hpp"

namespace pplab {
const char* version() noexcept;
}
