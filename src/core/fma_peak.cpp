// Peak multiply-add rate: independent FMA chains held in vector registers, no memory traffic.
// Compiled with -ffp-contract=fast so that a * b + c is one FMA instruction.
#include <omp.h>

#include "core/ceilings.hpp"
#include "core/timing.hpp"

namespace pplab::detail {
namespace {

// The widest vector registers the build's target has, as the packed micro-kernel uses (m03):
// 512 bits with AVX-512, else 256. A core whose 512-bit units are whole (Zen 5, Intel's server
// cores) doubles its rate with them, one that splits them in two (Zen 4) does not; with 256-bit
// vectors the probe read 225 GFLOP/s on a 2-core Zen 5 EPYC where m03 reached 344.
#ifdef __AVX512F__
constexpr int vector_bytes = 64;
#else
constexpr int vector_bytes = 32;
#endif

template <class T> double fma_GFLOPs(bool single, double budget_s) {
  typedef T V __attribute__((vector_size(vector_bytes)));
  constexpr int chains = 12;  // enough to cover FMA latency x FMA units
  constexpr long iters = 1 << 22;
  const int threads = single ? 1 : omp_get_max_threads();
  volatile T sink = 0;
  const timing t = time_it(
      [&] {
#pragma omp parallel num_threads(threads)
        {
          V acc[chains];
          for (int c = 0; c < chains; ++c) acc[c] = V{} + T(c) * T(1e-3);
          const V a = V{} + T(0.999999), b = V{} + T(1e-7);
          for (long i = 0; i < iters; ++i)
            for (int c = 0; c < chains; ++c) acc[c] = acc[c] * a + b;
          T s = 0;
          for (int c = 0; c < chains; ++c) s += acc[c][0];
          sink = sink + s;
        }
      },
      3, budget_s);
  const double flops = 2.0 * double(threads) * double(iters) * chains * (vector_bytes / sizeof(T));
  return flops / t.min_s * 1e-9;
}

}  // namespace

double measure_fma_GFLOPs(bool single, double budget_s) {
  return fma_GFLOPs<float>(single, budget_s);
}

}  // namespace pplab::detail
