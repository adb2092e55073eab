#pragma once
// Sizes computed from user input: public (pplab/sizes.hpp), named here as the core's own.
#include "pplab/sizes.hpp"

namespace pplab::detail {
using pplab::checked_bytes;
using pplab::physical_memory_bytes;
}  // namespace pplab::detail
