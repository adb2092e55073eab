#include "core/generate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "pplab/error.hpp"

namespace pplab {

distribution parse_distribution(std::string_view name) {
  for (auto d : {distribution::uniform, distribution::normal, distribution::skewed,
                 distribution::constant, distribution::spread})
    if (name == name_of(d)) return d;
  fail(errc::invalid_argument, "unknown distribution '" + std::string(name) +
                                   "'; choose one of uniform normal skewed constant spread");
}

std::string_view name_of(distribution d) noexcept {
  switch (d) {
  case distribution::uniform:
    return "uniform";
  case distribution::normal:
    return "normal";
  case distribution::skewed:
    return "skewed";
  case distribution::spread:
    return "spread";
  default:
    return "constant";
  }
}

namespace {

inline double unit(std::uint64_t r) { return double(r >> 11) * 0x1.0p-53; }  // [0, 1)

template <class T> struct uniform_range {
  double lo, hi;  // [lo, hi)
};
template <class T> uniform_range<T> range_of() {
  if constexpr (std::is_floating_point_v<T>) return {0.0, 1.0};
  else if constexpr (sizeof(T) <= 2)
    return {double(std::numeric_limits<T>::min()), double(std::numeric_limits<T>::max()) + 1};
  else if constexpr (std::is_signed_v<T>) return {-1048576.0, 1048576.0};
  else return {0.0, 1048576.0};
}

template <class T> T draw(distribution d, std::uint64_t seed, std::size_t i) {
  const auto [lo, hi] = range_of<T>();
  const double middle = std::is_floating_point_v<T> ? 0.5 : std::floor((lo + hi) / 2);
  const std::uint64_t r = mix(seed * 0x2545f4914f6cdd1dull + i);
  double v;
  switch (d) {
  case distribution::constant:
    v = middle;
    break;
  case distribution::skewed:
    if (r % 10 != 0) {
      v = middle;
      break;
    }
    [[fallthrough]];
  case distribution::uniform:
    v = lo + (hi - lo) * unit(mix(r));
    break;
  default: {  // normal and spread: Box-Muller from two draws
    const double u1 = 1.0 - unit(mix(r)), u2 = unit(mix(r + 1));
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    if constexpr (std::is_floating_point_v<T>)
      v = d == distribution::spread ? std::ldexp(z, int(unit(mix(r + 2)) * 121) - 60) : z;
    else v = std::round(middle + z * (hi - lo) / 8);
  }
  }
  if constexpr (std::is_floating_point_v<T>) return T(v);
  else {
    v = std::floor(v);
    return T(std::clamp(v, double(std::numeric_limits<T>::lowest()),
                        double(std::numeric_limits<T>::max())));
  }
}

}  // namespace

void generate(dtype t, void* out, std::size_t n, distribution d, std::uint64_t seed,
              std::size_t first) {
  visit_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    T* x = static_cast<T*>(out);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i)
      x[i] = draw<T>(d, seed, first + std::size_t(i));
  });
}

}  // namespace pplab
