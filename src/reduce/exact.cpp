// pplab::sum_exact and pplab::mean_exact (and their device forms): the checks, then the exact
// rung of the backend (policy.cpp) through the same run paths as every reduction: host data in
// parts on the host, streamed in chunks to a GPU, whose exact totals are added exactly and
// rounded once at the end (api.cpp); on mpi, the ranks' totals added on every rank.
#include <omp.h>

#include <memory>
#include <string>

#include "core/run.hpp"
#include "pplab/device.hpp"
#include "reduce/exact_bins.hpp"
#include "reduce/rung.hpp"

namespace pplab {
namespace {

// The checks every exact call makes of its own arguments (`call` opens the errors).
void check_exact(const char* call, dtype t, const void* data, std::size_t n) {
  if (t != dtype::f32 && t != dtype::f64)
    fail(errc::invalid_argument, std::string(call) + ": exact sums are of f32 or f64 data, not " +
                                     std::string(name_of(t)) +
                                     " (an integer sum is exact already: pplab::reduce)");
  if (n > 0 && !data)
    fail(errc::invalid_argument, std::string(call) + ": data is null but n = " + std::to_string(n));
}

void refuse_empty_mean(const char* call, op o, std::uint64_t n) {
  if (o == op::mean && n == 0)
    fail(errc::invalid_argument,
         std::string(call) +
             ": the mean of an empty input is undefined; check n before asking for a mean");
}

// On the mpi backend, data is this rank's part and the answer the whole job's, on every rank.
double exact(const char* call, backend where, dtype t, const void* data, std::size_t n, op o,
             const rung_choice& how) {
  detail::require_backend(where);
  if (where == backend::nccl && detail::executor_for(where).ranks() > 1)
    fail(errc::unsupported, std::string(call) +
                                ": exact sums on nccl run in one process of several GPUs so "
                                "far, not in a job of processes (use the mpi backend there)");
  const std::uint64_t total =
      detail::agree_on_call(where, std::string(call) + " " + std::string(name_of(t)), n,
                            [&] { check_exact(call, t, data, n); });
  return detail::together([&] {
    refuse_empty_mean(call, o, total);
    const detail::reduce_problem p{t, o, n, true};
    return detail::run_rung(detail::chosen_rung<detail::reduce_rung>(where, p, how), p, data).f;
  });
}

double exact_device(const char* call, dtype t, const void* data, std::size_t n, op o) {
  check_exact(call, t, data, n);
  refuse_empty_mean(call, o, n);
  const detail::reduce_problem p{t, o, n, true};
  detail::require_backend(backend::cuda);
  detail::executor& ex = detail::executor_for(backend::cuda);
  if (n && !ex.holds(data))
    fail(errc::invalid_argument, std::string(call) +
                                     ": the pointer is not device memory; pass host data "
                                     "through the host form on the cuda backend instead");
  return detail::run_in_place(detail::default_rung<detail::reduce_rung>(backend::cuda, p), ex, p,
                              data)
      .f;
}

// One row's exact total: short rows value by value into the long integer (a few ns a value, no
// bins to clear and fold), long ones through `bins` (cleared first), which add at memory speed
// but take microseconds to clear and fold.
constexpr std::size_t short_row = 2048;
template <class T>
detail::exact_total row_total(const T* x, std::size_t n, detail::exact_bins<T>& bins) {
  detail::exact_total t;
  if (n < short_row) {
    for (std::size_t i = 0; i < n; ++i) detail::exact_bins<T>::add_to_total(t, x[i]);
  } else {
    bins = detail::exact_bins<T>{};
    bins.add_all(x, n);
    t = bins.total();
  }
  t.count = n;
  return t;
}

}  // namespace

double sum_exact(backend where, dtype t, const void* data, std::size_t n, const rung_choice& how) {
  return exact("sum_exact", where, t, data, n, op::sum, how);
}

double mean_exact(backend where, dtype t, const void* data, std::size_t n,
                  const rung_choice& how) {
  return exact("mean_exact", where, t, data, n, op::mean, how);
}

double sum_exact_device(dtype t, const void* device_data, std::size_t n) {
  return exact_device("sum_exact_device", t, device_data, n, op::sum);
}

double mean_exact_device(dtype t, const void* device_data, std::size_t n) {
  return exact_device("mean_exact_device", t, device_data, n, op::mean);
}

void reduce_rows_exact(backend where, dtype t, const void* data, std::size_t rows,
                       std::size_t cols, std::size_t ld, op o, double* out) {
  if (where != backend::seq && where != backend::cpu)
    fail(errc::unsupported, "reduce_rows_exact: exact rows are summed on the host backends (seq, "
                            "cpu), not on '" +
                                std::string(name_of(where)) + "'");
  if (o != op::sum && o != op::mean)
    fail(errc::invalid_argument,
         "reduce_rows_exact: exact rows are sums and means, not " + std::string(name_of(o)));
  ld = ld ? ld : cols;
  if (ld < cols)
    fail(errc::invalid_argument, "reduce_rows_exact: the row stride " + std::to_string(ld) +
                                     " is less than the row's " + std::to_string(cols) +
                                     " elements");
  if (rows == 0) return;
  check_exact("reduce_rows_exact", t, data, cols);
  if (!out) fail(errc::invalid_argument, "reduce_rows_exact: out is null");
  if (o == op::mean && cols == 0)
    fail(errc::invalid_argument, "reduce_rows_exact: the mean of an empty row is undefined");
  const detail::reduce_problem p{t, o, cols, true};
  detail::visit_exact(t, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(data);
#pragma omp parallel if (where == backend::cpu && rows > 1)
    {
      auto bins = std::make_unique<detail::exact_bins<T>>();  // 32 KiB for double: not the stack
#pragma omp for schedule(static)
      for (std::ptrdiff_t y = 0; y < std::ptrdiff_t(rows); ++y)
        out[y] = detail::rounded(p, row_total(x + std::size_t(y) * ld, cols, *bins)).f;
    }
  });
}

}  // namespace pplab
