#pragma once
// One run path per pattern, shared by the API, the CLI's --variant, the lab's API rows and the
// tests: `run_variant` runs one rung on host data through the executor of the rung's backend,
// staging the data into that executor's memory when it is not the host's (reduce and histogram
// stream the input in chunks, matmul copies the matrices). An explicit executor may be given,
// which is how the staging is tested without a GPU.
//
// The API's rung is an explicit policy per backend and problem (`policy`, in each pattern's
// policy.cpp), separate from the ladder's numbering: an ordered list of rung ids, of which the
// first that can run the problem is used. A policy that names a racy, non-reproducible or
// baseline rung is a bug, refused here.
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/executor.hpp"
#include "core/registry.hpp"

namespace pplab::detail {

// Throws pplab::error (unsupported) with the reason when backend b is not usable here.
void require_backend(backend b);

// The start of every API call: runs `checks` (this process's own checks of its arguments), then
// agrees with the other ranks of backend b's job, if it has any, on their outcome and on
// `signature` (executor::agree_on_call); returns the length of all the ranks' parts together.
// A single process: the checks' error is thrown as it is, and the answer is `n`.
template <class Checks>
std::uint64_t agree_on_call(backend b, const std::string& signature, std::uint64_t n,
                            Checks&& checks) {
  std::exception_ptr failed;
  try {
    checks();
  } catch (...) {
    failed = std::current_exception();
  }
  return executor_for(b).agree_on_call(signature, n, failed);
}

// After an agreement every rank meets the same errors: `f`'s pplab::error is thrown as an
// agreed_error, which the command line prints once for the whole job.
template <class F> decltype(auto) together(F&& f) {
  try {
    return f();
  } catch (const agreed_error&) {
    throw;
  } catch (const error& e) {
    throw agreed_error(e.code(), e.what());
  }
}

// ---- reduction
scalar run_variant(const reduce_rung& r, const reduce_problem& p, const void* host_in);
scalar run_variant(const reduce_rung& r, executor& ex, const reduce_problem& p,
                   const void* host_in);
// The input already in the executor's memory: one run, the answer copied back.
scalar run_in_place(const reduce_rung& r, executor& ex, const reduce_problem& p, const void* in);
std::vector<std::string_view> policy(backend b, const reduce_problem& p);

// ---- histogram: counts has slots(p) = bins + 3 entries, overwritten
void run_variant(const histogram_rung& r, const histogram_problem& p, const void* host_in,
                 std::uint64_t* host_counts);
void run_variant(const histogram_rung& r, executor& ex, const histogram_problem& p,
                 const void* host_in, std::uint64_t* host_counts);
std::vector<std::string_view> policy(backend b, const histogram_problem& p);

// ---- matmul: the call's pointers are host memory; its scratch and stream are ignored
void run_variant(const matmul_rung& r, const matmul_call& host_call);
void run_variant(const matmul_rung& r, executor& ex, const matmul_call& host_call);
std::vector<std::string_view> policy(backend b, const matmul_problem& p);

// The rung the API runs for backend b: the policy's first rung that can run p and whose scratch
// fits (scratch_fits, asked of b's executor); if none fits, the first that can run p (its
// allocation then says how much memory it lacked).
template <class Rung> const Rung& default_rung(backend b, const typename Rung::problem_type& p);
// The same, with the free memory told (the tests' way to see the choice on a full device).
template <class Rung>
const Rung& default_rung_within(backend b, const typename Rung::problem_type& p,
                                const std::function<std::size_t()>& free_bytes);

// Whether `scratch` bytes can be had: up to `never_in_doubt` always (the data and the results
// need that much room anyway, and most rungs' scratch is that small, so no device query is made
// for them); above it, if they leave `never_in_doubt` of free_bytes() (asked only then).
constexpr std::size_t never_in_doubt = std::size_t(64) << 20;
bool scratch_fits(std::size_t scratch, const std::function<std::size_t()>& free_bytes);

// A rung named by the user (--variant): it exists, its backend is usable, it can run p.
template <class Rung>
const Rung& variant_by_id(std::string_view id, const typename Rung::problem_type& p);

// The CLI's choice: the rung named by `id`, or backend b's default when id is empty.
template <class Rung>
const Rung& rung_for(backend b, std::string_view id, const typename Rung::problem_type& p) {
  if (!id.empty()) return variant_by_id<Rung>(id, p);
  require_backend(b);
  return default_rung<Rung>(b, p);
}

extern template const reduce_rung& default_rung<reduce_rung>(backend, const reduce_problem&);
extern template const histogram_rung& default_rung<histogram_rung>(backend,
                                                                   const histogram_problem&);
extern template const matmul_rung& default_rung<matmul_rung>(backend, const matmul_problem&);
extern template const reduce_rung& variant_by_id<reduce_rung>(std::string_view,
                                                              const reduce_problem&);
extern template const histogram_rung& variant_by_id<histogram_rung>(std::string_view,
                                                                    const histogram_problem&);
extern template const matmul_rung& variant_by_id<matmul_rung>(std::string_view,
                                                              const matmul_problem&);

}  // namespace pplab::detail
