// scipy.ndimage's 1-D kernels (pplab/convolution.hpp): gaussian_filter's Gaussian, and the
// placement of correlate1d's weights as an odd-sided mask. The named filters of the Python
// package and the command line's gaussian mask are made from these, so there is one of each.
#include <algorithm>
#include <cmath>
#include <string>

#include "pplab/convolution.hpp"
#include "pplab/error.hpp"

namespace pplab {
namespace {

// The sum of a[0, n) in NumPy's pairwise order (its sum of a float64 array): eight running sums
// over blocks of at most 128, combined as ((0+1)+(2+3))+((4+5)+(6+7)), the rest added in turn;
// longer arrays halved (at a multiple of 8) and the halves added.
double numpy_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i) s += a[i];
    return s;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) s += a[i];
    return s;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return numpy_sum(a, half) + numpy_sum(a + half, n - half);
}

constexpr long max_radius = 1L << 20;

}  // namespace

std::vector<double> gaussian_kernel(double sigma, double truncate, long radius, int order) {
  if (!std::isfinite(sigma) || sigma < 0)
    fail(errc::invalid_argument,
         "gaussian_kernel: sigma must be a finite number, 0 or more; got " + std::to_string(sigma));
  if (order < 0)
    fail(errc::invalid_argument,
         "gaussian_kernel: order must be 0 or more; got " + std::to_string(order));
  if (sigma <= 1e-15) return {1.0};
  if (radius < 0) {
    const double r = std::floor(truncate * sigma + 0.5);  // Python's int() of a positive number
    if (!(r >= 0) || r > double(max_radius))
      fail(errc::invalid_argument, "gaussian_kernel: truncate x sigma gives a radius of " +
                                       std::to_string(r) + "; at most 2^20 taps each way");
    radius = long(r);
  }
  if (radius > max_radius)
    fail(errc::invalid_argument,
         "gaussian_kernel: a radius of " + std::to_string(radius) + "; at most 2^20 taps each way");
  const double scale = -0.5 / (sigma * sigma);
  std::vector<double> k(std::size_t(2 * radius + 1));
  for (long x = -radius; x <= radius; ++x)
    k[std::size_t(x + radius)] = std::exp(scale * double(x * x));
  const double sum = numpy_sum(k.data(), k.size());
  for (double& v : k) v /= sum;
  if (order == 0) return k;
  // q's coefficients (q[i] of x^i): q = 1, then q <- q' + q p' `order` times.
  std::vector<double> q(std::size_t(order) + 1, 0.0), next(q.size());
  q[0] = 1;
  const double p = -1 / (sigma * sigma);
  for (int step = 0; step < order; ++step) {
    for (std::size_t i = 0; i < q.size(); ++i)
      next[i] = (i + 1 < q.size() ? double(i + 1) * q[i + 1] : 0.0) + (i ? q[i - 1] * p : 0.0);
    q.swap(next);
  }
  for (long x = -radius; x <= radius; ++x) {
    double poly = 0, power = 1;  // sum of q[i] x^i, in order of i
    for (std::size_t i = 0; i < q.size(); ++i, power *= double(x)) poly += q[i] * power;
    k[std::size_t(x + radius)] *= poly;
  }
  return k;
}

std::vector<double> placed_kernel(std::span<const double> w, long origin) {
  const long k = long(w.size());
  if (k == 0) fail(errc::invalid_argument, "placed_kernel: the weights are empty");
  if (origin < -(k / 2) || origin > (k - 1) / 2)
    fail(errc::invalid_argument, "placed_kernel: invalid origin " + std::to_string(origin) +
                                     " for " + std::to_string(k) +
                                     " taps (SciPy's range: " + std::to_string(-(k / 2)) + " to " +
                                     std::to_string((k - 1) / 2) + ")");
  const long before = k / 2 + origin;  // taps left of the centre
  const long centre = std::max(before, k - 1 - before);
  std::vector<double> mask(std::size_t(2 * centre + 1), 0.0);
  for (long j = 0; j < k; ++j) mask[std::size_t(centre - before + j)] = w[std::size_t(j)];
  return mask;
}

}  // namespace pplab
