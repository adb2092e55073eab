#pragma once
// Freivalds' check of a product, shared by the matmul case and the mpi case.
#include <cmath>
#include <vector>

#include "core/generate.hpp"
#include "pplab/lab.hpp"

namespace pplab::lab {

// Freivalds' check for a random x: a wrong element of C shows up in (C x)_i. Returns the largest
// error over the scale a correct float product may err by, (|A| (|B| |x|))_i; none for NaN.
template <class T>
double freivalds(const T* a, const T* b, const T* c, std::size_t m, std::size_t n, std::size_t k) {
  std::vector<double> x(n), bx(k), babs(k);
  for (std::size_t j = 0; j < n; ++j) x[j] = double(detail::mix(j) >> 11) * 0x1.0p-53 - 0.5;
  for (std::size_t l = 0; l < k; ++l) {
    double s = 0, sa = 0;
    for (std::size_t j = 0; j < n; ++j) {
      s += double(b[l * n + j]) * x[j];
      sa += std::abs(double(b[l * n + j]) * x[j]);
    }
    bx[l] = s, babs[l] = sa;
  }
  double worst = 0;
  for (std::size_t i = 0; i < m; ++i) {
    double want = 0, scale = 0, got = 0;
    for (std::size_t l = 0; l < k; ++l) {
      want += double(a[i * k + l]) * bx[l];
      scale += std::abs(double(a[i * k + l])) * babs[l];
    }
    for (std::size_t j = 0; j < n; ++j) got += double(c[i * n + j]) * x[j];
    if (std::isnan(got)) return none;
    worst = std::max(worst, std::abs(got - want) / (scale > 0 ? scale : 1));
  }
  return worst;
}

}  // namespace pplab::lab
