#pragma once
// The lab's one loop, case x rung x executor, for every backend, and the session the cases
// share. A case is a struct with:
//   using rung_type;                    the pattern's rung
//   using problem = lab_problem<<pattern>_problem>;
//   static constexpr int host_min_reps;
//   std::vector<problem> problems(const settings&) const;
//   host_data prepare(const problem&) const;          the data on the host and its reference
//   placed place(executor&, const problem&, const host_data&) const;   the data in an executor:
//       this process's part of it (executor::my_part, or matmul_blocks_of for a matrix), so
//       `placed` holds the problem its rung is asked (`p`: the part's, in a job)
//   call_type call(const problem&, placed&, void* scratch, void* stream) const;
//   void poison(executor&, const problem&, placed&) const;
//   verdict verify(executor&, const problem&, const host_data&, placed&, const rung_info&) const;
//       this process's view (in a job, a rank may leave the check of a gathered answer to
//       rank 0; the loop agrees the verdict across ranks)
//   void extra_rows(session&, executor&, const problem&, const host_data&) const;
//   void extra_ceilings(session&, executor&, const problem&, row&) const;
// (the last two only for executors that hold the data whole).
//
// A backend that splits data (mpi over a job's ranks, nccl over a host's GPUs) runs the
// problems made for it (`lab_problem::split`), and before its rungs the loop adds its scaling
// baseline: the API's rung of the backend one part runs on (executor::part_backend), alone on
// the whole problem (step 0).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/executor.hpp"
#include "core/generate.hpp"
#include "core/registry.hpp"
#include "core/run.hpp"
#include "pplab/interrupt.hpp"
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
  // The backend that splits data (mpi, nccl) this problem is made for; none: a problem for the
  // backends that hold their data whole (seq, cpu, cuda).
  std::optional<backend> split;
  std::string note;  // said on each of its rows
  // Held against its roofline: `bytes` (read and written) against the copy ceiling or `flops`
  // against the FMA peak, whichever bounds it (a filter); else flops if any, else bytes read.
  bool roofline = false;
  // What n counts, where its rate says more than bytes or flops do ("px": a filter's Gpx/s).
  std::string item = "";
};

struct verdict {
  bool ok = false;
  double max_rel_err = none;
  std::string note;
};

bool wants(const settings& s, std::string_view p, backend b);
bool wants_rung(const settings& s, const detail::rung_info& v);

// The verdict of every rank of ex's job together: right where every rank's is, the largest
// error, rank 0's note (a single process: its own).
verdict agreed(detail::executor& ex, const verdict& mine);
// Rank 0's verdict on every rank.
verdict from_root(detail::executor& ex, const verdict& mine);

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

// While held, rank 0 of ex's job runs as many OpenMP threads as every rank of the job has
// together (a rung's scratch sized by the thread count must be had after this starts).
struct job_threads {
  explicit job_threads(detail::executor& ex);
  ~job_threads();
  job_threads(const job_threads&) = delete;
  job_threads& operator=(const job_threads&) = delete;
  detail::executor& ex;
  int all = 0, cores = 0, before = 0;  // the job's threads, rank 0's cores, its threads before
};

class session {
public:
  session(const settings& s, result& out) : opts(s), out(out) {}
  const settings& opts;
  result& out;

  bool wants(std::string_view p, backend b) const { return lab::wants(opts, p, b); }
  // Between the lab's steps: where a stop asked from outside (pplab/interrupt.hpp) is taken.
  void progress(const std::string& what) const {
    stop_if_interrupted();
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
  void rate_roofline(row& r, detail::executor& ex, double bytes, double flops);
  template <class Problem> void rate(row& r, detail::executor& ex, const lab_problem<Problem>& pr) {
    if (pr.roofline) rate_roofline(r, ex, pr.bytes, pr.flops);
    else if (pr.flops > 0) rate_flops(r, ex, pr.flops);
    else rate_bytes(r, ex, pr.bytes);
    if (!pr.item.empty()) r.item = pr.item, r.G_items_per_s = double(r.n) / r.median_ms * 1e-6;
  }
  // Probes every read ceiling of the run again and keeps the larger figure: a ceiling is the
  // most the machine was seen to do in this run (a shared machine varies between repeats).
  void reprobe_reads();
  // Beside a job's baseline row `one` (rank 0 alone, on the cpu backend): the cpu backend on as
  // many threads as all the ranks have, in rank 0's process (what the job's cores do without
  // MPI, when the ranks share a host), timed `t` while a job_threads was held.
  void add_job_threads_row(const row& one, const struct job_threads& threads,
                           const detail::timing& t, const std::function<void(row&)>& rate);

private:
  std::vector<backend> measured_;
  struct read_probe {
    std::string key;
    detail::executor* ex;
    std::size_t bytes;
  };
  std::vector<read_probe> reads_;
};

// The rungs of a case's problem that the lab runs with these settings: those of the backends
// the problem is for (a split backend's own problems; the others', every other backend's).
template <class Case>
std::vector<const typename Case::rung_type*> rungs_for(const settings& s,
                                                       const typename Case::problem& pr) {
  using rung_type = typename Case::rung_type;
  std::vector<const rung_type*> out;
  // Backend by backend, so that a run of the host backends alone loads no module.
  for (backend b : all_backends) {
    if (!wants(s, detail::pattern_of<rung_type>(), b)) continue;
    for (const rung_type& r : detail::rungs_on<rung_type>(b)) {
      if (!wants_rung(s, r.info) || !r.can_run(pr.p)) continue;
      const detail::executor& ex = detail::executor_for(b);
      if (pr.split ? b != *pr.split : ex.splits()) continue;
      if (pr.device_only && ex.host_memory()) continue;
      out.push_back(&r);
    }
  }
  return out;
}

template <class Case> std::vector<std::string> planned(const settings& s, const Case& c) {
  std::vector<std::string> out;
  for (const auto& pr : c.problems(s))
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

// A row for a whole call of the public API, timed as its caller sees it: `call(max_rel_err)`
// runs it once and says whether its answer is right; `bytes` over its median time is held
// against the ceiling `ceiling`.
template <class Problem, class Call>
void add_whole_call_row(session& s, detail::executor& ex, const lab_problem<Problem>& pr,
                        std::string_view pattern, const std::string& name, double bytes,
                        const char* ceiling, const char* note, Call&& call) {
  bool ok = false;
  double err = none;
  const detail::timing t = detail::time_it([&] { ok = call(err); }, 5, s.opts.budget_s);
  row r = row_of(pattern, {name, ex.kind(), -1, ""}, pr.group, pr.dtype, pr.op, pr.n, t);
  r.rung = name;
  r.GBps = bytes / t.median_s * 1e-9;
  r.ceiling = ceiling;
  r.pct_of_ceiling = 100 * r.GBps / s.ceiling(r.ceiling);
  r.verified = ok;
  r.max_rel_err = err;
  r.note = note;
  s.out.rows.push_back(r);
}

// A row for host data through the public API on a device backend: `call(max_rel_err)` runs the
// API once and says whether its answer is right; timed as the caller sees it (copies included)
// and held against the host-to-device copy.
// `how` says more of the call, if anything ("inferred range"); `bytes_in`, the bytes that cross
// to the device, when not all of the problem's bytes do (a filter's output crosses back at once,
// the other way).
template <class Problem, class Call>
void add_host_data_row(session& s, detail::executor& ex, const lab_problem<Problem>& pr,
                       std::string_view what, Call&& call, const std::string& how = "",
                       double bytes_in = 0) {
  const std::string name = "pplab::" + std::string(what) + "(" + std::string(name_of(ex.kind())) +
                           ", host data" + (how.empty() ? "" : ", " + how) + ")";
  s.progress("host data through " + name);
  add_whole_call_row(s, ex, pr, what, name, bytes_in > 0 ? bytes_in : pr.bytes, "gpu_h2d_GBps",
                     "% of the host-to-device copy, not of the read ceiling", call);
}

// A row for device data through the public API's device call (pplab/device.hpp), as a caller of
// it sees it: scratch allocated, the rung launched, the answer copied back and waited for, each
// call. `call(device_data, max_rel_err)` runs it once on the problem's data, copied to the device
// once here. Held against the GPU's read ceiling; its time over the API's rung's row is the cost
// of the call around the kernel.
template <class Problem, class Call>
void add_device_call_row(session& s, detail::executor& ex, const lab_problem<Problem>& pr,
                         std::string_view pattern, std::string_view api_call, const void* host_data,
                         Call&& call) {
  const std::string name = "pplab::" + std::string(api_call) + " (whole call, device data)";
  s.progress(name);
  detail::buffer on_device(ex, std::size_t(pr.bytes));
  ex.copy_in(on_device.get(), host_data, on_device.size());
  add_whole_call_row(
      s, ex, pr, pattern, name, pr.bytes, "gpu_read_GBps",
      "the call as its caller waits for it: allocation, launch, the answer copied back",
      [&](double& err) { return call(on_device.get(), err); });
}

// The id of the rung the API runs for p on backend b (its policy's pick), or "" when none can.
template <class Rung> std::string_view api_pick(backend b, const typename Rung::problem_type& p) {
  try {
    return detail::default_rung<Rung>(b, p).info.id;
  } catch (const error&) {
    return {};
  }
}

// A split backend's scaling baseline (step 0): the API's rung of the backend one part runs on,
// alone on the whole problem (rank 0, GPU 0), timed as the split backend times its calls, so that
// its ratio column is the scaling; rated against the split backend's ceiling.
template <class Case, class HostData>
void add_part_alone_rows(session& s, const Case& c, detail::executor& ex,
                         const typename Case::problem& pr, const HostData& host) {
  using rung_type = typename Case::rung_type;
  detail::executor& one = detail::executor_for(ex.part_backend());
  const rung_type& best = detail::default_rung<rung_type>(one.kind(), pr.p);
  s.progress("one " + ex.part_word() + " alone (" + pr.group + ")");
  auto placed = c.place(one, pr, host);
  detail::buffer scratch = detail::scratch_for(one, best.scratch(pr.p));
  c.poison(one, pr, placed);
  const auto call = c.call(pr, placed, scratch.get(), one.stream());
  const auto work = [&] {
    best.run(call);
    one.synchronize();
  };
  const detail::timing t = ex.time_alone(work, s.plan(Case::host_min_reps));
  verdict v;
  if (ex.rank() == 0) v = c.verify(one, pr, host, placed, best.info);
  v = from_root(ex, v);
  const std::string id = "one " + ex.part_word() + ": " + std::string(best.info.id);
  row r = row_of(best.info.pattern(), {id, ex.kind(), 0, ""}, pr.group, pr.dtype, pr.op, pr.n, t);
  r.verified = v.ok, r.max_rel_err = v.max_rel_err;
  r.note = ex.part_word() + " 0 alone on the whole problem: the scaling baseline";
  r.add_note(v.note);
  s.rate(r, ex, pr);
  s.out.rows.push_back(r);
  if (ex.ranks() > 1 && one.kind() == backend::cpu) {
    const job_threads threads(ex);
    s.progress("the cpu backend on " + std::to_string(threads.all) + " threads (" + pr.group + ")");
    detail::buffer more = detail::scratch_for(one, best.scratch(pr.p));
    const auto wide = c.call(pr, placed, more.get(), one.stream());
    const detail::timing tw = ex.time_alone([&] { best.run(wide); }, s.plan(Case::host_min_reps));
    s.add_job_threads_row(r, threads, tw, [&](row& c) { s.rate(c, ex, pr); });
  }
}

template <class Case> void run_case(session& s, const Case& c) {
  using rung_type = typename Case::rung_type;
  for (const auto& pr : c.problems(s.opts)) {
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
      if (ex.splits()) add_part_alone_rows(s, c, ex, pr, host);
      auto placed = c.place(ex, pr, host);
      const std::string_view pick = api_pick<rung_type>(b, pr.p);
      for (const rung_type* r : todo) {
        if (r->info.where != b) continue;
        s.progress(std::string(r->info.id) + " (" + pr.group + ")");
        detail::buffer scratch = detail::scratch_for(ex, r->scratch(placed.p));
        c.poison(ex, pr, placed);
        const auto call = c.call(pr, placed, scratch.get(), ex.stream());
        const detail::timing t = ex.time([&] { r->run(call); }, s.plan(Case::host_min_reps));
        const verdict v = agreed(ex, c.verify(ex, pr, host, placed, r->info));
        row out = row_of(r->info, pr.group, pr.dtype, pr.op, pr.n, t);
        out.verified = v.ok, out.max_rel_err = v.max_rel_err, out.note = v.note;
        out.add_note(pr.note);
        if (r->explain) out.add_note(r->explain(pr.p));
        out.racy = r->info.racy;
        out.api_pick = r->info.id == pick;
        out.tune_key = tune_key(pr.p);
        out.choosable = r->info.api_may_run();
        s.rate(out, ex, pr);
        if (!ex.splits()) c.extra_ceilings(s, ex, pr, out);
        s.out.rows.push_back(out);
      }
      if (!ex.splits()) c.extra_rows(s, ex, pr, host);
    }
  }
}

}  // namespace pplab::lab
