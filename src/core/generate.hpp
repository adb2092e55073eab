#pragma once
// The generated data of the lab and the tests: public (pplab/generate.hpp), named here as the
// core's own.
#include "pplab/generate.hpp"

namespace pplab::detail {
using pplab::distribution;
using pplab::generate;
using pplab::mix;
using pplab::parse_distribution;
}  // namespace pplab::detail
