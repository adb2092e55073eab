// pplab::reduce: checks the call, picks the backend's fastest rung that can run it, runs it.
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/run_rung.hpp"

namespace pplab {

scalar reduce(backend where, dtype t, const void* data, std::size_t n, op o) {
  if (n > 0 && data == nullptr)
    fail(errc::invalid_argument, "reduce: data is null but n = " + std::to_string(n));
  if (o == op::mean && n == 0)
    fail(errc::invalid_argument,
         "reduce: the mean of an empty input is undefined; check n before asking for a mean");
  detail::require_backend(where);
  const detail::reduce_problem p{t, o, n};
  return detail::run_reduce(detail::pick_reduce(where, p), p, data);
}

}  // namespace pplab
