#pragma once
// Shared by the tests: fresh random seeds (printed on failure), the sizes every rung must handle,
// and skipping rungs whose backend does not answer here.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/executor.hpp"
#include "core/registry.hpp"
#include "pplab/dtype.hpp"
#include "pplab/ops.hpp"

namespace pplab::test {

// A new seed for each use, or PPLAB_SEED's value where it is set: a failure that names its
// seed can be run again.
inline std::uint64_t fresh_seed() {
  if (const char* fixed = std::getenv("PPLAB_SEED")) return std::strtoull(fixed, nullptr, 10);
  static std::random_device rd;
  return (std::uint64_t(rd()) << 32) | rd();
}

// Under compute-sanitizer (PPLAB_SANITIZER set) the same bodies run on fewer, smaller sizes:
// the tools slow kernels down a hundredfold.
inline bool sanitizer_run() { return std::getenv("PPLAB_SANITIZER") != nullptr; }

// 0, 1, 2, around a warp, a prime, just past 2^20, and two random sizes.
inline std::vector<std::size_t> awkward_sizes(std::mt19937_64& rng) {
  if (sanitizer_run()) return {0, 1, 33, 1009, 70001 + rng() % 1000};
  std::vector<std::size_t> s = {0, 1, 2, 31, 32, 33, 1009, (std::size_t(1) << 20) + 3};
  s.push_back(1 + rng() % 5000);
  s.push_back(1 + rng() % 300000);
  return s;
}

// The dtypes and ops each body loops over: all of them, or a spread under the sanitizer.
inline std::vector<dtype> test_dtypes() {
  if (sanitizer_run()) return {dtype::u8, dtype::i32, dtype::f32, dtype::f64};
  return {std::begin(all_dtypes), std::end(all_dtypes)};
}
inline std::vector<op> test_ops() {
  if (sanitizer_run()) return {op::sum, op::max, op::mean, op::argmax, op::var};
  return {std::begin(all_ops), std::end(all_ops)};
}

// Skips (with the reason) when the rung's backend cannot run on this machine.
#define PPLAB_SKIP_IF_UNAVAILABLE(info)                                                            \
  do {                                                                                             \
    const std::string why_ = ::pplab::detail::executor_for((info).where).why_absent();             \
    if (!why_.empty())                                                                             \
      GTEST_SKIP() << "backend " << ::pplab::name_of((info).where)                                 \
                   << " is not usable here: " << why_;                                             \
  } while (0)

// Test names from rung ids: "reduce/cpu/r03_simd" -> "cpu_r03_simd".
inline std::string test_name(std::string_view id) {
  std::string s(id.substr(id.find('/') + 1));
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// `f` throws a pplab::error of `code` whose message holds `words`.
template <class F> void expect_error(errc code, F&& f, const std::string& words = "") {
  try {
    f();
    ADD_FAILURE() << "no error thrown";
  } catch (const error& e) {
    EXPECT_EQ(int(e.code()), int(code)) << e.what();
    if (!words.empty()) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
}

}  // namespace pplab::test
