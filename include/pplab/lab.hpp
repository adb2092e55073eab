#pragma once
// pplab::lab (the pplab::lab library): the lab as a library, for the command line and any program:
// every registered rung of every pattern, on every executor built here, verified against the
// reference and timed beside the machine's ceilings measured in the same run. One case per pattern
// (src/lab/<pattern>_case.cpp) says which problems to run, how to make the data, what the reference
// is, how to verify, how many bytes or flops a run does; one loop (run_case in lab_loop.hpp) runs
// case x rung x executor. A rung registered for any backend is measured with no new lab code. The
// CLI (`pplab lab`) only chooses, prints and writes.
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "pplab/backend.hpp"
#include "pplab/ceiling.hpp"
#include "pplab/rung_info.hpp"
#include "pplab/tuning.hpp"

namespace pplab::lab {

inline constexpr double none = std::numeric_limits<double>::quiet_NaN();

// full: the records' sizes (minutes); quick: small problems (under a minute); tiny: the tests'.
enum class size { full, quick, tiny };

struct row {
  std::string pattern, backend, rung, dtype, op, group;  // group: the problem, "f32 sum n=2^28"
  int step = 0;            // the rung's step on the ladder (0: the vendor baseline)
  bool api_pick = false;   // the rung the API runs for this problem on this backend (its policy)
  std::string tune_key;    // the problem's class for `pplab tune` (a rung's row; else empty)
  bool choosable = false;  // a rung the API may run unasked (rung_info::api_may_run)
  bool fastest = false;    // the fastest verified choosable rung of its problem and backend
  double pick_vs_fastest = none;  // the API's pick's row: its median over the fastest's
  std::size_t n = 0;
  int reps = 0;
  double median_ms = 0, min_ms = 0;
  double GBps = none, GFLOPs = none;
  std::string item;              // what n counts, when its rate is shown ("px"), or empty
  double G_items_per_s = none;   // n over the median time, in billions per second
  std::string ceiling;           // key of the ceiling it is held against, or empty
  double pct_of_ceiling = none;  // of that ceiling; none when latency-bound
  bool latency_bound = false;    // moving its bytes takes less than one launch: shown in us
  double vs_launch = none;       // its time over the launch latency (latency-bound rows)
  std::string floor;             // key of another floor drawn beside it (store_GBps), or empty
  double vs_baseline = none, vs_below = none, vs_rung1 = none;
  bool verified = false;
  bool racy = false;  // loses counts on purpose: its note says how many; not a failure
  // Runs on other units than its ceiling counts (the split-TF32 rungs' tensor cores against the
  // fp32 FMA peak): past 100% of it is the point, not a sign of a weak ceiling probe.
  bool other_units = false;
  double max_rel_err = none;
  std::string note;
  void add_note(const std::string& text) {
    if (!text.empty()) note += (note.empty() ? "" : "; ") + text;
  }
};

struct settings {
  size scale = size::full;
  std::optional<std::string> only_pattern;  // a pattern's name
  std::optional<backend> only_backend;
  // Only the rungs whose id contains one of these (empty: all); the baselines (rung 0) always
  // run, so every row keeps its ratio to them.
  std::vector<std::string> only_rungs;
  double budget_s = 1.0;                             // host: seconds of timing per rung
  std::function<void(const std::string&)> progress;  // told what runs next; may be empty
};

struct result {
  std::vector<pplab::ceiling> ceilings;  // one keyed table, with each value's source
  std::vector<row> rows;
  std::vector<std::string> warnings;  // a rung above its ceiling: the probe is wrong
  double ceiling(std::string_view key) const;
};

std::string pow2_label(std::size_t n);  // "2^28" or "1000003"

// `pplab tune`'s choices from a lab run: for each class of problem (tune key) and backend that
// reads choices (seq, cpu, cuda), the fastest verified choosable rung, with the built-in
// policy's pick beside it (the lab's api_pick rows, when the run did not consult a choice file).
// A class the lab met at several sizes keeps the rung fastest in total over them.
std::vector<tuned_choice> choices_of(const result& r);

// The patterns the lab has a case for, in the order it runs them: "reduce", "histogram", ...
std::vector<std::string_view> patterns();
// Every registered rung of those patterns, pattern by pattern, as registered (on every backend
// this build has, usable here or not: `available(r.where)` says).
std::vector<rung_info> all_rungs();
// `name` if it is one of them, else an error (invalid_argument) that lists them.
std::string check_pattern(std::string_view name);
// The rung of `pattern` whose id is `id`, or ends in it after a '/' (where only one does), as
// rung_choice takes it; an error (invalid_argument) that names `pplab list` when none does.
rung_info find_rung(std::string_view pattern, std::string_view id);

// The backends the lab measures: those asked for and usable here.
std::vector<backend> backends(const settings& s);

// Runs every case: ceilings first, then every rung on every problem it can run, then the ratio
// columns (over the rung below, rung 1 and rung 0 of the same problem and backend).
result run(const settings& s);

// The rung ids the lab would measure for these settings (the lab covers every registered rung
// of every backend it runs: tested).
std::vector<std::string> planned_rungs(const settings& s);
// How many rung runs the lab plans: a rung once for every problem of its case it can run. A
// progress line's total.
std::size_t planned_runs(const settings& s);

// Showing a run (src/lab/report.cpp), as `pplab lab` and pplab.lab.run in Python show it: the
// table on stdout, the JSON record (its `quick` field says which sizes ran), the SVG chart.
void print_table(const result& lab);
std::string record_json(const result& lab, bool quick);
std::string chart_svg(const result& lab);

// The progress line on stderr for a run of settings s: "[k/N, about T s left] what runs", or
// nothing (an empty function) when `shown` is false or stderr is not a terminal; a settings'
// `progress`. Clear the line with end_progress_line() once the run is over.
std::function<void(const std::string&)> progress_line(const settings& s, bool shown);
void end_progress_line(const std::function<void(const std::string&)>& line);

}  // namespace pplab::lab
