// The lab's run: the session the cases share (what to run, the ceilings, rates against them),
// the cases in order, and the ratio columns.
#include "pplab/lab.hpp"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "core/run.hpp"
#include "lab/cases.hpp"
#include "lab/lab_loop.hpp"

namespace pplab::lab {

std::vector<std::string_view> patterns() {
  std::vector<std::string_view> out;
  for (const pattern_case& c : pattern_cases()) out.push_back(c.pattern);
  return out;
}

std::vector<detail::rung_info> all_rungs() {
  std::vector<detail::rung_info> out;
  for (const pattern_case& c : pattern_cases())
    for (detail::rung_info& r : c.rungs()) out.push_back(r);
  return out;
}

rung_info find_rung(std::string_view pattern, std::string_view id) {
  std::vector<rung_info> of;
  for (const rung_info& r : all_rungs())
    if (r.pattern() == pattern) of.push_back(r);
  const rung_info* r = detail::by_id_or_end(
      of, pattern, id, [](const rung_info& x) -> const rung_info& { return x; });
  if (!r) detail::fail_no_such_rung(pattern, id);
  return *r;
}

std::string check_pattern(std::string_view name) {
  std::string choices;
  for (std::string_view p : patterns()) {
    if (p == name) return std::string(name);
    choices.append(" ").append(p);
  }
  fail(errc::invalid_argument,
       "unknown pattern '" + std::string(name) + "'; choose one of" + choices);
}

std::string pow2_label(std::size_t n) {
  if (n && (n & (n - 1)) == 0) return "2^" + std::to_string(__builtin_ctzll(n));
  return std::to_string(n);
}

double result::ceiling(std::string_view key) const {
  for (const detail::ceiling& c : ceilings)
    if (c.key == key) return c.value;
  return none;
}

std::vector<backend> backends(const settings& s) {
  std::vector<backend> out;
  // In a job of several ranks every rank would run the single-process ladders at once on shared
  // cores: there the lab measures the mpi backend (beside its baseline of one rank alone).
  if (!s.only_backend && available(backend::mpi) && detail::executor_for(backend::mpi).ranks() > 1)
    return {backend::mpi};
  for (backend b : all_backends)
    if ((!s.only_backend || *s.only_backend == b) && available(b)) out.push_back(b);
  return out;
}

bool wants(const settings& s, std::string_view p, backend b) {
  if (s.only_pattern && *s.only_pattern != p) return false;
  const std::vector<backend> here = backends(s);
  return std::find(here.begin(), here.end(), b) != here.end();
}

bool wants_rung(const settings& s, const detail::rung_info& v) {
  if (s.only_rungs.empty() || v.step == 0) return true;
  for (const std::string& part : s.only_rungs)
    if (v.id.find(part) != std::string_view::npos) return true;
  return false;
}

namespace {

// The read ceiling of an executor's rows: a split backend's is its own (all the parts reading at
// once, "mpi_read_GBps"), a device's the GPU's, the host's the host's.
std::string read_key(const detail::executor& ex) {
  if (ex.splits()) return std::string(name_of(ex.kind())) + "_read_GBps";
  return ex.host_memory() ? "read_GBps" : "gpu_read_GBps";
}

}  // namespace

detail::time_plan session::plan(int host_min_reps) const {
  return {host_min_reps, opts.budget_s, opts.scale == size::full ? 50 : 10};
}

std::size_t session::probe_bytes() const {
  switch (opts.scale) {
  case size::full:
    return std::size_t(1) << 30;
  case size::quick:
    return std::size_t(64) << 20;
  default:
    return std::size_t(4) << 20;
  }
}

void session::add_ceiling(detail::ceiling c) {
  for (detail::ceiling& have : out.ceilings)
    if (have.key == c.key) {
      have = std::move(c);
      return;
    }
  out.ceilings.push_back(std::move(c));
}

void session::measure(detail::executor& ex) {
  // seq and cpu share the host's memory and cores: their ceilings are measured once. (mpi's are
  // the job's: its own keys.)
  const backend key = ex.host_memory() && ex.kind() != backend::mpi ? backend::cpu : ex.kind();
  for (backend b : measured_)
    if (b == key) return;
  measured_.push_back(key);
  progress("measuring the ceilings of " + ex.describe());
  for (detail::ceiling& c : ex.measure_ceilings(probe_bytes(), opts.budget_s))
    add_ceiling(std::move(c));
  reads_.push_back({read_key(ex), &ex, probe_bytes()});
}

void session::reprobe_reads() {
  for (const read_probe& r : reads_) {
    progress("measuring " + r.key + " again");
    const double again = r.ex->read_GBps(r.bytes, opts.budget_s);
    for (detail::ceiling& c : out.ceilings)
      if (c.key == r.key && again > c.value) c.value = again;
  }
  for (row& r : out.rows)
    for (const read_probe& p : reads_)
      if (r.ceiling == p.key && !std::isnan(r.pct_of_ceiling) && !std::isnan(r.GBps))
        r.pct_of_ceiling = 100 * r.GBps / ceiling(r.ceiling);
}

namespace {

std::string size_label(std::size_t bytes) {
  if (bytes >= (std::size_t(1) << 30) && bytes % (std::size_t(1) << 30) == 0)
    return std::to_string(bytes >> 30) + "GiB";
  if (bytes >= (std::size_t(1) << 20) && bytes % (std::size_t(1) << 20) == 0)
    return std::to_string(bytes >> 20) + "MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

}  // namespace

void session::rate_bytes(row& r, detail::executor& ex, double bytes) {
  r.GBps = bytes / (r.median_ms * 1e-3) * 1e-9;
  const std::string base = read_key(ex);
  if (ex.splits()) {  // the parts' reads added up, probed once at the run's size
    r.ceiling = base;
    r.pct_of_ceiling = 100 * r.GBps / ceiling(base);
    return;
  }
  if (!ex.host_memory()) {
    const double launch_us = ceiling("gpu_launch_us");
    if (bytes / (ceiling(base) * 1e9) * 1e6 < launch_us) {
      r.latency_bound = true;
      r.ceiling = "gpu_launch_us";
      r.vs_launch = r.median_ms * 1e3 / launch_us;
      return;
    }
  }
  std::string key = base;
  if (std::size_t(bytes) != probe_bytes()) {
    key = base + "@" + size_label(std::size_t(bytes));
    if (std::isnan(ceiling(key))) {
      progress("measuring the read ceiling at " + size_label(std::size_t(bytes)));
      add_ceiling({key, ex.read_GBps(std::size_t(bytes), opts.budget_s),
                   "the read ceiling measured on a working set of the row's size"});
      reads_.push_back({key, &ex, std::size_t(bytes)});
    }
  }
  r.ceiling = key;
  r.pct_of_ceiling = 100 * r.GBps / ceiling(key);
}

void session::rate_flops(row& r, detail::executor& ex, double flops) {
  r.GFLOPs = flops / (r.median_ms * 1e-3) * 1e-9;
  // A GPU's f64 ceiling is its tensor cores' rate where the lab measured one (cuBLAS and m13 run
  // there; the SIMT rungs cannot, and read low against it), else its fp64 FMA rate. A split
  // backend's is its parts' multiply-add rates added up ("mpi_fp32_GFLOPs").
  const bool f64_tensor = r.dtype == "f64" && !std::isnan(ceiling("gpu_fp64_tensor_GFLOPs"));
  r.ceiling = ex.splits()        ? std::string(name_of(ex.kind())) + "_fp32_GFLOPs"
              : ex.host_memory() ? "fp32_GFLOPs"
              : r.dtype == "f64" ? (f64_tensor ? "gpu_fp64_tensor_GFLOPs" : "gpu_fp64_GFLOPs")
                                 : "gpu_fp32_GFLOPs";
  r.pct_of_ceiling = 100 * r.GFLOPs / ceiling(r.ceiling);
}

job_threads::job_threads(detail::executor& e) : ex(e), before(omp_get_max_threads()) {
  const int mine = before;
  const std::vector<std::byte> each = ex.gather_to_root(&mine, sizeof mine);
  for (std::size_t i = 0; i + sizeof(int) <= each.size(); i += sizeof(int)) {
    int t = 0;
    std::memcpy(&t, each.data() + i, sizeof t);
    all += t;
  }
  ex.broadcast_from_root(&all, sizeof all);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  cores = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : all;
  ex.broadcast_from_root(&cores, sizeof cores);  // rank 0's
  if (ex.rank() == 0) omp_set_num_threads(all);
}

job_threads::~job_threads() {
  if (ex.rank() == 0) omp_set_num_threads(before);
}

void session::rate_roofline(row& r, detail::executor& ex, double bytes, double flops) {
  rate_flops(r, ex, flops);
  const std::string fma = r.ceiling;
  const double fma_pct = r.pct_of_ceiling;
  // The copy ceiling (bytes read and written); a split backend has its read ceiling alone.
  const std::string copy = ex.splits()        ? read_key(ex)
                           : ex.host_memory() ? "copy_GBps"
                                              : "gpu_copy_GBps";
  r.GBps = bytes / (r.median_ms * 1e-3) * 1e-9;
  const double copy_pct = 100 * r.GBps / ceiling(copy);
  // The bound is the ceiling that takes longer: the larger share of it used.
  if (copy_pct >= fma_pct) r.ceiling = copy, r.pct_of_ceiling = copy_pct;
  else r.ceiling = fma, r.pct_of_ceiling = fma_pct;
}

void session::add_job_threads_row(const row& one, const job_threads& threads,
                                  const detail::timing& t, const std::function<void(row&)>& rate) {
  row c = one;
  c.rung = "cpu backend, " + std::to_string(threads.all) + " threads, one process";
  c.step = -1;
  c.reps = t.reps, c.median_ms = t.median_s * 1e3, c.min_ms = t.min_s * 1e3;
  c.note = "the job's threads in one process (meaningful when the ranks share a host)";
  if (threads.cores < threads.all)
    c.add_note("rank 0 may use only " + std::to_string(threads.cores) +
               " cores (the launcher's binding: mpirun --bind-to none lifts it)");
  rate(c);
  out.rows.push_back(c);
}

verdict agreed(detail::executor& ex, const verdict& mine) {
  if (ex.ranks() == 1) return mine;
  struct part_verdict {
    bool ok;
    double err;
  } me{mine.ok, mine.max_rel_err};
  const std::vector<std::byte> all = ex.gather_to_root(&me, sizeof me);
  verdict v = mine;
  for (std::size_t i = 0; i + sizeof me <= all.size(); i += sizeof me) {
    part_verdict p;
    std::memcpy(&p, all.data() + i, sizeof p);
    v.ok = v.ok && p.ok;
    if (std::isnan(v.max_rel_err) || p.err > v.max_rel_err) v.max_rel_err = p.err;
  }
  return from_root(ex, v);
}

verdict from_root(detail::executor& ex, const verdict& mine) {
  if (ex.ranks() == 1) return mine;
  verdict v = mine;
  ex.broadcast_from_root(&v.ok, sizeof v.ok);
  ex.broadcast_from_root(&v.max_rel_err, sizeof v.max_rel_err);
  std::uint64_t len = v.note.size();
  ex.broadcast_from_root(&len, sizeof len);
  v.note.resize(len);
  ex.broadcast_from_root(v.note.data(), len);
  return v;
}

row row_of(std::string_view pattern, const detail::rung_info& v, const std::string& group,
           const std::string& dtype, const std::string& op, std::size_t n,
           const detail::timing& t) {
  row r;
  r.pattern = std::string(pattern);
  r.backend = std::string(name_of(v.where));
  r.rung = std::string(v.id);
  r.step = v.step;
  r.group = group;
  r.dtype = dtype;
  r.op = op;
  r.n = n;
  r.reps = t.reps;
  r.median_ms = t.median_s * 1e3;
  r.min_ms = t.min_s * 1e3;
  return r;
}

namespace {

// Ratios within one problem and backend: over the rung below, over rung 1, over rung 0.
void fill_ratios(result& out) {
  for (row& r : out.rows) {
    const row* below = nullptr;
    for (const row& o : out.rows) {
      if (o.group != r.group || o.backend != r.backend || o.pattern != r.pattern) continue;
      if (o.step == 1) r.vs_rung1 = o.median_ms / r.median_ms;
      if (o.step == 0) r.vs_baseline = o.median_ms / r.median_ms;
      if (o.step >= 1 && o.step < r.step && (!below || o.step > below->step)) below = &o;
    }
    if (below) r.vs_below = below->median_ms / r.median_ms;
    if (r.step == 1) r.vs_below = none;
  }
}

// The fastest verified choosable rung of each problem and backend, and how the API's pick
// compares with it. Of rows with the same time (a tiny problem, timed to the timer's grain) the
// first in the table is the fastest: one mark per problem.
void mark_fastest(result& out) {
  for (row& r : out.rows) {
    if (r.tune_key.empty() || !r.choosable || !r.verified) continue;
    bool best = true;
    for (const row& o : out.rows)
      if (&o != &r && o.group == r.group && o.backend == r.backend && o.pattern == r.pattern &&
          !o.tune_key.empty() && o.choosable && o.verified &&
          (o.median_ms < r.median_ms || (o.median_ms == r.median_ms && &o < &r)))
        best = false;
    r.fastest = best;
  }
  for (row& r : out.rows) {
    if (!r.api_pick || r.tune_key.empty()) continue;
    for (const row& o : out.rows)
      if (o.fastest && o.group == r.group && o.backend == r.backend && o.pattern == r.pattern)
        r.pick_vs_fastest = r.median_ms / o.median_ms;
  }
}

}  // namespace

std::vector<tuned_choice> choices_of(const result& res) {
  // Per class and backend: each candidate rung's total median over the problems of the class
  // (a rung that missed one of them, unverified or unable to run it, is not a candidate).
  struct candidate {
    double ms = 0;
    std::size_t problems = 0;
  };
  struct tally {
    std::string pattern, backend, key;
    std::map<std::string, candidate> rungs;
    std::set<std::string> groups;
    std::string policy_rung;
    double policy_ms = 0;
  };
  std::map<std::string, tally> classes;
  for (const row& r : res.rows) {
    if (r.tune_key.empty()) continue;
    if (!reads_tuned_choices(parse_backend(r.backend))) continue;
    tally& t = classes[r.pattern + '\n' + r.backend + '\n' + r.tune_key];
    t.pattern = r.pattern, t.backend = r.backend, t.key = r.tune_key;
    t.groups.insert(r.group);
    if (r.api_pick) t.policy_rung = r.rung, t.policy_ms += r.median_ms;
    if (!r.choosable || !r.verified) continue;
    candidate& c = t.rungs[r.rung];
    c.ms += r.median_ms;
    ++c.problems;
  }
  std::vector<tuned_choice> out;
  for (const auto& [name, t] : classes) {
    const std::pair<const std::string, candidate>* best = nullptr;
    for (const auto& c : t.rungs)
      if (c.second.problems == t.groups.size() && (!best || c.second.ms < best->second.ms))
        best = &c;
    if (!best) continue;
    out.push_back({t.pattern, t.backend, t.key, best->first, best->second.ms, t.policy_rung,
                   t.policy_rung.empty() ? 0 : t.policy_ms});
  }
  return out;
}

result run(const settings& s) {
  result out;
  session ses(s, out);
  for (const pattern_case& c : pattern_cases())
    if (!s.only_pattern || *s.only_pattern == c.pattern) c.run(ses);
  ses.reprobe_reads();
  fill_ratios(out);
  mark_fastest(out);
  for (const row& r : out.rows)
    if (r.pct_of_ceiling > 100.5 && !r.other_units) {
      char msg[256];
      std::snprintf(msg, sizeof msg,
                    "%s (%s) reads %.1f%% of %s: that ceiling's probe is not the "
                    "best loop this machine allows",
                    r.rung.c_str(), r.group.c_str(), r.pct_of_ceiling, r.ceiling.c_str());
      out.warnings.push_back(msg);
    }
  return out;
}

std::size_t planned_runs(const settings& s) {
  std::size_t n = 0;
  for (const pattern_case& c : pattern_cases()) n += c.planned(s).size();
  return n;
}

std::vector<std::string> planned_rungs(const settings& s) {
  std::vector<std::vector<std::string>> parts;
  for (const pattern_case& c : pattern_cases()) parts.push_back(c.planned(s));
  std::vector<std::string> out;
  for (std::vector<std::string>& part : parts)
    for (std::string& id : part) {
      bool seen = false;
      for (const std::string& have : out) seen |= have == id;
      if (!seen) out.push_back(std::move(id));
    }
  return out;
}

}  // namespace pplab::lab
