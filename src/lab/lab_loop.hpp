#pragma once
// The lab's one loop, case x rung x executor, and the session the cases share. A case is a
// struct with:
//   using rung_type;                    the pattern's rung
//   using problem = lab_problem<<pattern>_problem>;
//   static constexpr int host_min_reps;
//   std::vector<problem> problems(size) const;
//   host_data prepare(const problem&) const;          the data on the host and its reference
//   placed place(executor&, const problem&, const host_data&) const;   the data in an executor
//   call_type call(const problem&, placed&, void* scratch, void* stream) const;
//   void poison(executor&, const problem&, placed&) const;
//   verdict verify(executor&, const problem&, const host_data&, placed&, const rung_info&)
//   const; void extra_rows(session&, executor&, const problem&, const host_data&) const; void
//   extra_ceilings(session&, executor&, const problem&, row&) const;
#include <string>
#include <vector>

#include "core/executor.hpp"
#include "core/generate.hpp"
#include "core/registry.hpp"
#include "core/run.hpp"
#include "pplab/lab.hpp"
#include "pplab/matmul.hpp"

namespace pplab::lab {

// One problem of a case: what the rungs are asked, its name in the table, and how much work a
// run does (bytes read, or flops when the row is rated in GFLOP/s).
template <class Problem> struct lab_problem {
  Problem p;
  std::string group, dtype, op;  // "f32 sum n=2^28", "f32", "sum"
  std::size_t n;
  double bytes, flops;
  bool device_only = false;  // a problem for device executors alone (the latency series)
  detail::distribution dist = detail::distribution::uniform;  // how its data is drawn
};

// A block of a uniform f32 matrix of `cols` columns drawn by `seed`: the same elements the
// whole matrix has there (the generator is counter-based), packed.
inline std::vector<float> generated_block(const matrix_block& b, std::size_t cols,
                                          std::uint64_t seed) {
  std::vector<float> out(b.rows * b.cols + 1);
  for (std::size_t i = 0; i < b.rows; ++i)
    detail::generate(dtype::f32, out.data() + i * b.cols, b.cols, detail::distribution::uniform,
                     seed, (b.row0 + i) * cols + b.col0);
  return out;
}

struct verdict {
  bool ok = false;
  double max_rel_err = none;
  std::string note;
};

bool wants(const settings& s, std::string_view p, backend b);
bool wants_rung(const settings& s, const detail::rung_info& v);
// The rung ids of backend b of the patterns asked for (mpi and nccl: their cases run them all).
std::vector<std::string> planned_of(const settings& s, backend b);

// Host data where an executor's rungs read it: the host memory itself on the host, a copy in
// the executor's memory elsewhere.
struct placed_input {
  detail::buffer copy;
  const void* data = nullptr;
};
inline placed_input place_input(detail::executor& ex, const void* host, std::size_t bytes) {
  placed_input in{{}, host};
  if (ex.host_memory()) return in;
  in.copy = detail::buffer(ex, bytes);
  ex.copy_in(in.copy.get(), host, bytes);
  in.data = in.copy.get();
  return in;
}

class session {
public:
  session(const settings& s, result& out) : opts(s), out(out) {}
  const settings& opts;
  result& out;

  bool wants(std::string_view p, backend b) const { return lab::wants(opts, p, b); }
  void progress(const std::string& what) const {
    if (opts.progress) opts.progress(what);
  }
  detail::time_plan plan(int host_min_reps) const;
  std::size_t probe_bytes() const;

  double ceiling(std::string_view key) const { return out.ceiling(key); }
  void add_ceiling(detail::ceiling c);
  // Measures the executor's own ceilings once (the first time it is met).
  void measure(detail::executor& ex);
  // GB/s against the read ceiling at the row's working-set size; a device row whose bytes take
  // less than one launch to move is latency-bound and shown against the launch latency.
  void rate_bytes(row& r, detail::executor& ex, double bytes);
  void rate_flops(row& r, detail::executor& ex, double flops);
  // Probes every read ceiling of the run again and keeps the larger figure: a ceiling is the
  // most the machine was seen to do in this run (a shared machine varies between repeats).
  void reprobe_reads();

private:
  std::vector<backend> measured_;
  struct read_probe {
    std::string key;
    detail::executor* ex;
    std::size_t bytes;
  };
  std::vector<read_probe> reads_;
};

// The rungs of a case's problem that the lab runs with these settings.
template <class Case>
std::vector<const typename Case::rung_type*> rungs_for(const settings& s,
                                                       const typename Case::problem& pr) {
  using rung_type = typename Case::rung_type;
  std::vector<const rung_type*> out;
  for (const rung_type& r : detail::rungs_of<rung_type>())
    // The mpi and nccl rungs take data split over ranks or GPUs: their own cases
    // (mpi_case.cpp, nccl_case.cpp) measure them.
    if (r.info.where != backend::mpi && r.info.where != backend::nccl &&
        wants(s, r.info.pattern(), r.info.where) && wants_rung(s, r.info) && r.can_run(pr.p) &&
        !(pr.device_only && detail::executor_for(r.info.where).host_memory()))
      out.push_back(&r);
  return out;
}

template <class Case> std::vector<std::string> planned(const settings& s, const Case& c) {
  std::vector<std::string> out;
  for (const auto& pr : c.problems(s.scale))
    for (const auto* r : rungs_for<Case>(s, pr)) out.emplace_back(r->info.id);
  return out;
}

// A row of the table: `v`'s, on a problem of `pattern` (a registered rung's own, by default).
row row_of(std::string_view pattern, const detail::rung_info& v, const std::string& group,
           const std::string& dtype, const std::string& op, std::size_t n, const detail::timing& t);
inline row row_of(const detail::rung_info& v, const std::string& group, const std::string& dtype,
                  const std::string& op, std::size_t n, const detail::timing& t) {
  return row_of(v.pattern(), v, group, dtype, op, n, t);
}

// A row for host data through the public API on a device backend: `call(max_rel_err)` runs the
// API once and says whether its answer is right; timed as the caller sees it (copies included)
// and held against the host-to-device copy.
// `how` says more of the call, if anything ("inferred range").
template <class Problem, class Call>
void add_host_data_row(session& s, detail::executor& ex, const lab_problem<Problem>& pr,
                       std::string_view what, Call&& call, const std::string& how = "") {
  const std::string name = "pplab::" + std::string(what) + "(" + std::string(name_of(ex.kind())) +
                           ", host data" + (how.empty() ? "" : ", " + how) + ")";
  s.progress("host data through " + name);
  bool ok = false;
  double err = none;
  const detail::timing t = detail::time_it([&] { ok = call(err); }, 5, s.opts.budget_s);
  row r = row_of(what, {name, ex.kind(), -1, ""}, pr.group, pr.dtype, pr.op, pr.n, t);
  r.rung = name;
  r.GBps = pr.bytes / t.median_s * 1e-9;
  r.ceiling = "gpu_h2d_GBps";
  r.pct_of_ceiling = 100 * r.GBps / s.ceiling(r.ceiling);
  r.verified = ok;
  r.max_rel_err = err;
  r.note = "% of the host-to-device copy, not of the read ceiling";
  s.out.rows.push_back(r);
}

// The id of the rung the API runs for p on backend b (its policy's pick), or "" when none can.
template <class Rung> std::string_view api_pick(backend b, const typename Rung::problem_type& p) {
  try {
    return detail::default_rung<Rung>(b, p).info.id;
  } catch (const error&) {
    return {};
  }
}

template <class Case> void run_case(session& s, const Case& c) {
  using rung_type = typename Case::rung_type;
  for (const auto& pr : c.problems(s.opts.scale)) {
    const std::vector<const rung_type*> todo = rungs_for<Case>(s.opts, pr);
    if (todo.empty()) continue;
    s.progress("reference for " + pr.group);
    const auto host = c.prepare(pr);
    for (backend b : backends(s.opts)) {
      detail::executor& ex = detail::executor_for(b);
      bool any = false;
      for (const rung_type* r : todo) any |= r->info.where == b;
      if (!any) continue;
      s.measure(ex);
      auto placed = c.place(ex, pr, host);
      const std::string_view pick = api_pick<rung_type>(b, pr.p);
      for (const rung_type* r : todo) {
        if (r->info.where != b) continue;
        s.progress(std::string(r->info.id) + " (" + pr.group + ")");
        detail::buffer scratch = detail::scratch_for(ex, r->scratch(pr.p));
        c.poison(ex, pr, placed);
        const auto call = c.call(pr, placed, scratch.get(), ex.stream());
        const detail::timing t = ex.time([&] { r->run(call); }, s.plan(Case::host_min_reps));
        const verdict v = c.verify(ex, pr, host, placed, r->info);
        row out = row_of(r->info, pr.group, pr.dtype, pr.op, pr.n, t);
        out.verified = v.ok, out.max_rel_err = v.max_rel_err, out.note = v.note;
        if (r->explain) out.add_note(r->explain(pr.p));
        out.racy = r->info.racy;
        out.api_pick = r->info.id == pick;
        if (pr.flops > 0) s.rate_flops(out, ex, pr.flops);
        else s.rate_bytes(out, ex, pr.bytes);
        c.extra_ceilings(s, ex, pr, out);
        s.out.rows.push_back(out);
      }
      c.extra_rows(s, ex, pr, host);
    }
  }
}

}  // namespace pplab::lab
