#pragma once
// The reduction module's types: what a reduction rung is asked (the problem), where its data is
// (the call), its ladder's policy, and the run paths the API, the CLI, the lab and the tests share.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/run.hpp"
#include "pplab/dtype.hpp"
#include "pplab/ops.hpp"
#include "pplab/reduce.hpp"
#include "reduce/exact_total.hpp"

namespace pplab::detail {

struct reduce_problem {
  static constexpr std::string_view pattern = "reduce";
  dtype type;
  op what;
  std::size_t n;
  // The exact sum (or mean) of floats: the rung answers the exact total, which is rounded once
  // after every part is in (reduce/exact_total.hpp). Only the exact rungs run it.
  bool exact = false;
};
struct reduce_call {
  reduce_problem p;
  const void* in;  // n elements of p.type
  scalar* out;     // one scalar (argmin, argmax: the index, -1 when n is 0); see total()
  void* scratch;
  void* stream;  // cudaStream_t for GPU rungs; they only enqueue (except r10, whose point is the
                 // host round trip)
  // An exact problem's answer is not a scalar but the exact total before its rounding: out
  // points at one (answer_bytes).
  exact_total* total() const { return reinterpret_cast<exact_total*>(out); }
};
using reduce_rung = basic_rung<reduce_problem, reduce_call>;
// A var's or std's answer before its last step: the count, the mean and the sum of the squared
// deviations from it, which the parts of a problem (chunks, pieces, ranks) merge in order
// (reduce_common.hpp's combine); the variance is m2 / n. A rung writes it where out points.
struct moments {
  double n = 0, mean = 0, m2 = 0;
};
// The op a reduction of dtype t runs: a nan op of integers is its plain op (NumPy's nansum of
// integers is their sum). The entry points and run paths ask the rungs this, so that a rung sees
// a nan op only with float data.
inline op as_for(dtype t, op o) { return is_float(t) ? o : plain_of(o); }
inline reduce_problem as_asked(reduce_problem p) {
  p.what = as_for(p.type, p.what);
  return p;
}
// The bytes a rung's answer takes: a scalar, an exact problem's exact_total, or moments.
inline std::size_t answer_bytes(const reduce_problem& p) {
  return p.exact ? sizeof(exact_total) : is_moments(p.what) ? sizeof(moments) : sizeof(scalar);
}
// An exact problem's total rounded once: its sum or its mean.
inline scalar rounded(const reduce_problem& p, const exact_total& t) {
  return scalar::of(p.what == op::mean ? t.mean(p.type) : t.sum(p.type));
}
// Whether an exact sum or mean of p's data can be asked: f32 or f64, sum or mean.
inline bool exact_kind(const reduce_problem& p) {
  return (p.type == dtype::f32 || p.type == dtype::f64) &&
         (p.what == op::sum || p.what == op::mean);
}
// A rung's can_run when it runs every reduction but the exact ones, var and std and the nan ops;
// those and the nan ops of them (nansum ... nanargmax); every one but those, argmin and argmax;
// every one but the exact ones; only var and std (and nanmean, nanvar, nanstd: moments); and
// only the exact sums and means. Each asks of the op as_for gives (a nan op of integers is its
// plain op, which the run paths ask the rung).
inline bool any_problem(const reduce_problem& p) {
  const op o = as_for(p.type, p.what);
  return !p.exact && !is_moments(o) && !skips_nan(o);
}
inline bool any_problem_or_nan(const reduce_problem& p) {
  return !p.exact && !is_moments(as_for(p.type, p.what));
}
inline bool value_ops(const reduce_problem& p) {
  const op o = as_for(p.type, p.what);
  return !p.exact && !is_arg(o) && !is_moments(o) && !skips_nan(o);
}
inline bool every_problem(const reduce_problem& p) { return !p.exact; }
inline bool moments_problems(const reduce_problem& p) {
  return !p.exact && is_moments(as_for(p.type, p.what));
}
inline bool exact_problems(const reduce_problem& p) { return p.exact && exact_kind(p); }
// The ladder: defined by the build from the backend folders compiled (cmake/patterns.cmake).
template <> const std::vector<reduce_rung>& rungs_of<reduce_rung>();
template <> const std::vector<reduce_rung>& rungs_on<reduce_rung>(backend b);

// The problem's class for `pplab tune`'s choices (pplab/tuning.hpp), such as "f32 sum n~2^28".
std::string tune_key(const reduce_problem& p);

// The API's rungs for backend b, in order of preference (policy.cpp).
std::vector<std::string_view> policy(backend b, const reduce_problem& p);

// Host data through the executor of r's backend (or `ex`, which is how the staging is tested
// without a GPU): in place on the host, streamed in chunks elsewhere.
scalar run_rung(const reduce_rung& r, const reduce_problem& p, const void* host_in);
scalar run_rung(const reduce_rung& r, executor& ex, const reduce_problem& p, const void* host_in);
// The input already in the executor's memory: one run, the answer copied back.
scalar run_in_place(const reduce_rung& r, executor& ex, const reduce_problem& p, const void* in);
// A var's or std's moments of host data, before the last step: the parts' moments of run_rung's
// paths, merged in order.
moments moments_of(const reduce_rung& r, executor& ex, const reduce_problem& p,
                   const void* host_in);
// An exact problem's total of host data, before its rounding: the parts' totals of run_rung's
// paths, added.
exact_total exact_total_of(const reduce_rung& r, executor& ex, const reduce_problem& p,
                           const void* host_in);

// A reduction's answer against the reference: integers exactly, NaN only by NaN, floats within
// sum_tolerance(n) (core/verify.hpp) of `scale` (the sum of |x|, or |want| when larger, or the
// smallest normal number when both are below it). `rel` is the error over that scale.
bool close_enough(const scalar& got, const scalar& want, double scale, std::size_t n,
                  bool float_accumulator, double& rel);

}  // namespace pplab::detail
