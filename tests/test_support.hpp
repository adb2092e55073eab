#pragma once
// Shared by the tests: fresh random seeds (printed on failure), the sizes every rung must handle,
// and skipping rungs whose backend does not answer here.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "core/registry.hpp"

namespace pplab::test {

inline std::uint64_t fresh_seed() {
  static std::random_device rd;
  return (std::uint64_t(rd()) << 32) | rd();
}

// 0, 1, 2, around a warp, a prime, just past 2^20, and two random sizes.
inline std::vector<std::size_t> awkward_sizes(std::mt19937_64& rng) {
  std::vector<std::size_t> s = {0, 1, 2, 31, 32, 33, 1009, (std::size_t(1) << 20) + 3};
  s.push_back(1 + rng() % 5000);
  s.push_back(1 + rng() % 300000);
  return s;
}

// Skips (with the reason) when the rung's backend cannot run on this machine.
#define PPLAB_SKIP_IF_UNAVAILABLE(info)                                                        \
  do {                                                                                         \
    if (!::pplab::available((info).where)) {                                                   \
      if ((info).where == ::pplab::backend::cuda)                                              \
        GTEST_SKIP() << "no CUDA device here: " << ::pplab::detail::gpu().why_absent;          \
      GTEST_SKIP() << "backend " << ::pplab::name_of((info).where) << " is not usable here";    \
    }                                                                                          \
  } while (0)

// Test names from rung ids: "reduce/cpu/r03_simd" -> "cpu_r03_simd".
inline std::string test_name(std::string_view id) {
  std::string s(id.substr(id.find('/') + 1));
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace pplab::test
