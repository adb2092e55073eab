// pplab::sum_exact and pplab::mean_exact on one machine's cores: each thread adds its blocks of
// the data into bins of its own (reduce/exact_bins.hpp), the threads' bins are added together
// (exactly: integers), and the whole is rounded once. Which thread took which block cannot
// change a bit of the answer.
#include <omp.h>

#include <memory>
#include <string>

#include "pplab/reduce.hpp"
#include "reduce/exact_bins.hpp"

namespace pplab {
namespace {

constexpr std::size_t block = std::size_t(1) << 16;

template <class T>
std::unique_ptr<detail::exact_bins<T>> bins_of(const T* x, std::size_t n, bool threads) {
  auto total = std::make_unique<detail::exact_bins<T>>();
  if (!threads) {
    total->add_all(x, n);
    return total;
  }
  const std::size_t blocks = (n + block - 1) / block;
#pragma omp parallel
  {
    auto mine = std::make_unique<detail::exact_bins<T>>();
#pragma omp for schedule(static)
    for (std::ptrdiff_t b = 0; b < std::ptrdiff_t(blocks); ++b) {
      const std::size_t i0 = std::size_t(b) * block, i1 = std::min(n, i0 + block);
      mine->add_all(x + i0, i1 - i0);
    }
#pragma omp critical(pplab_exact_bins)
    total->merge(*mine);
  }
  return total;
}

// The bins of the call's data, after its checks.
template <class F>
double exact(const char* call, backend where, dtype t, const void* data, std::size_t n, F&& f) {
  if (where != backend::seq && where != backend::cpu)
    fail(errc::unsupported, std::string(call) +
                                ": exact sums run on the seq and cpu backends so "
                                "far, not on '" +
                                std::string(name_of(where)) + "'");
  if (t != dtype::f32 && t != dtype::f64)
    fail(errc::invalid_argument, std::string(call) + ": exact sums are of f32 or f64 data, not " +
                                     std::string(name_of(t)) +
                                     " (an integer sum is exact already: pplab::reduce)");
  if (n > 0 && !data)
    fail(errc::invalid_argument, std::string(call) + ": data is null but n = " + std::to_string(n));
  const bool threads = where == backend::cpu && n > block;
  if (t == dtype::f32) {
    return f(*bins_of(static_cast<const float*>(data), n, threads));
  }
  return f(*bins_of(static_cast<const double*>(data), n, threads));
}

}  // namespace

double sum_exact(backend where, dtype t, const void* data, std::size_t n) {
  return exact("sum_exact", where, t, data, n, [](const auto& bins) { return bins.sum(); });
}

double mean_exact(backend where, dtype t, const void* data, std::size_t n) {
  if (n == 0)
    fail(errc::invalid_argument,
         "mean_exact: the mean of an empty input is undefined; check n before asking for a mean");
  return exact("mean_exact", where, t, data, n,
               [n](const auto& bins) { return bins.mean(std::uint64_t(n)); });
}

}  // namespace pplab
