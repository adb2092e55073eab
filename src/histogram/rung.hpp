#pragma once
// The histogram module's types: what a histogram rung is asked (the problem, resolved from the
// caller's options), where its data and counts are (the call), its ladder's policy, and the run
// paths the API, the CLI, the lab and the tests share.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/run.hpp"
#include "pplab/dtype.hpp"
#include "pplab/histogram.hpp"
#include "pplab/reduce.hpp"

namespace pplab::detail {

// The resolved problem: every rung counts into bins + 3 slots: the bins, then underflow,
// overflow and NaN (see binning.hpp), so outliers need no special path.
struct histogram_problem {
  static constexpr std::string_view pattern = "histogram";
  dtype type;
  std::size_t n;
  std::size_t bins;
  double lo, hi;
  bool closed_last;
  bool natural;  // 8/16-bit integers over their whole range: bin = value - lo, no outliers
  // f32 data only: f32_rounded or f32_arithmetic for NumPy's float32 edges (f32_edge_binner);
  // f64 for every other problem. Never numpy or numpy1 (resolved into one of these).
  edge_rule edges = edge_rule::f64;
  // The bins are an array of edges (the call's `edges`, bins + 1 doubles): lo and hi are the
  // first and last, the last bin closed.
  bool edge_array = false;
  // Each slot sums the values' weights (the call's `weights`, of weight_type: f32 or f64), in
  // double, instead of counting them.
  bool weighted = false;
  dtype weight_type = dtype::f64;
};
struct histogram_call {
  histogram_problem p;
  const void* in;
  // bins + 3 slots of 64 bits, which the rung overwrites: counts, or for a weighted problem the
  // sums as doubles (sums_of).
  std::uint64_t* counts;
  void* scratch;
  void* stream;
  const void* weights = nullptr;  // weighted problems: one per value, where the data are
  const double* edges = nullptr;  // edge-array problems: bins + 1, where the data are
};
// A weighted call's slots, the sums.
inline double* sums_of(const histogram_call& c) { return reinterpret_cast<double*>(c.counts); }

// What a rung reads, on the host (or in the memory of the executor it is given): the data, and
// the weights and edges where the problem has them.
struct histogram_data {
  const void* in;
  const void* weights = nullptr;
  const double* edges = nullptr;
  // From the data alone (a problem of plain bins): histogram_data(x).
  histogram_data(const void* in_, const void* weights_ = nullptr, const double* edges_ = nullptr)
      : in(in_), weights(weights_), edges(edges_) {}
};
using histogram_rung = basic_rung<histogram_problem, histogram_call>;
// The ladder: defined by the build from the backend folders compiled (cmake/patterns.cmake).
template <> const std::vector<histogram_rung>& rungs_of<histogram_rung>();
template <> const std::vector<histogram_rung>& rungs_on<histogram_rung>(backend b);

inline std::size_t slots(const histogram_problem& p) { return p.bins + 3; }

// The problem's class for `pplab tune`'s choices (pplab/tuning.hpp), such as "f32 bins~2^10
// n~2^28".
std::string tune_key(const histogram_problem& p);

// The API's rungs for backend b, in order of preference (policy.cpp).
std::vector<std::string_view> policy(backend b, const histogram_problem& p);

// Host data through the executor of r's backend (or `ex`, which is how the staging is tested
// without a GPU): counts has slots(p) entries, overwritten.
void run_rung(const histogram_rung& r, const histogram_problem& p, const histogram_data& host,
              std::uint64_t* host_counts);
void run_rung(const histogram_rung& r, executor& ex, const histogram_problem& p,
              const histogram_data& host, std::uint64_t* host_counts);

// Whether a rung that counts plain bins (no weights, no array of edges) can take p; the rungs
// that take weights or edges say so in their can_run.
inline bool counts_even_bins(const histogram_problem& p) { return !p.weighted && !p.edge_array; }

// Edges that can be bins: at least two, at most max_bins + 1, none NaN, none below the one
// before; else pplab::error (invalid_argument) naming `call`.
void check_bin_edges(std::span<const double> edges, const std::string& call);

// The options made concrete: bins, range, natural or not (data are read for an inferred range).
histogram_problem resolve_histogram(backend where, dtype t, const void* data, std::size_t n,
                                    const histogram_options& options);
// The same for data the caller holds where the backend computes (device memory): `reduce_it`
// reduces the data with an operator (for an inferred range), `checks` are the call's own checks.
histogram_problem resolve_histogram_in_place(backend where, dtype t, std::size_t n,
                                             const histogram_options& options,
                                             const std::function<scalar(op)>& reduce_it,
                                             const std::function<void()>& checks);
// Runs rung r on data already in ex's memory; the counts come back to the host.
histogram_result histogram_in_place(const histogram_rung& r, executor& ex,
                                    const histogram_problem& p, const histogram_data& in);
// Runs one rung on host data and splits its slots into counts and outliers.
histogram_result run_histogram_into_result(const histogram_rung& r, const histogram_problem& p,
                                           const histogram_data& data);

}  // namespace pplab::detail
