#pragma once
#include "pplab/stopwatch.hpp"

namespace pplab::detail {
using pplab::stopwatch;
}  // namespace pplab::detail
