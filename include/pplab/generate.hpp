#pragma once
// Reproducible random data (the lab's, the tests' and the command line's generated inputs): the
// same (dtype, n, distribution, seed) gives the same bytes on any machine and thread count (a
// counter-based generator, each element from its own index).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pplab/dtype.hpp"

namespace pplab {

enum class distribution {
  uniform,   // floats in [0, 1); 8/16-bit ints over the whole type; wider ints in [0, 2^20)
             // (signed: [-2^20, 2^20)), so sums stay readable
  normal,    // floats N(0, 1); ints rounded N(centre, width/8), clamped to the type
  skewed,    // 90% one value (the middle of the uniform range), the rest uniform
  constant,  // every element the middle of the uniform range
  spread,    // floats N(0, 1) times 2^k, k a whole number uniform in [-60, 60]: exponents over
             // 120 binades (what no window of an exact sum takes); ints as normal
};
distribution parse_distribution(std::string_view name);
std::string_view name_of(distribution d) noexcept;

// Fills out[0..n) with elements first .. first + n - 1 of the stream of type t: a part of a
// longer array is generated alone, as the mpi backend's ranks do, and equals that array's part.
void generate(dtype t, void* out, std::size_t n, distribution d, std::uint64_t seed,
              std::size_t first = 0);

// The i-th value of a 64-bit counter-based stream (splitmix64).
constexpr std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace pplab
