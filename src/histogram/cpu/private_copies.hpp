#pragma once
// The cpu rungs that give each thread private copies of the counts (h02, h03) take a problem
// while those copies, all threads together, fit this budget; past it they cost more memory than
// the contention they save (h01 and h04 need none).
#include <cstddef>

namespace pplab::detail::histogram_cpu {
constexpr std::size_t private_budget = std::size_t(512) << 20;
}  // namespace pplab::detail::histogram_cpu
