// pplab tune: runs the lab's problems with a short budget on each backend that reads choices
// (seq, cpu, cuda), and writes the choice file (pplab/tuning.hpp) that makes the API run the
// rung measured fastest for each class of problem on this machine.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common.hpp"
#include "pplab/lab.hpp"
#include "pplab/stopwatch.hpp"

namespace pplab::cli {
namespace {

struct tune_cli {
  std::string pattern_name, backend_name, out_path;
  bool quick = false, dry_run = false, no_progress = false;
  double budget = 0.1;
};

void run(const tune_cli& o) {
  const std::string path = o.out_path.empty() ? choice_file() : o.out_path;
  if (path.empty() && !o.dry_run)
    fail(errc::invalid_argument,
         "tune: no place for the choice file (neither PPLAB_CHOICES nor HOME is set); give --out");
  std::vector<backend> where;
  if (!o.backend_name.empty()) {
    const backend b = parse_backend(o.backend_name);
    if (!reads_tuned_choices(b))
      fail(errc::invalid_argument, "tune: --backend " + o.backend_name +
                                       ": only seq, cpu and cuda read tuned choices (every rank "
                                       "of an mpi or nccl job must run the same rung)");
    require(b);
    where.push_back(b);
  } else {
    for (backend b : all_backends)
      if (reads_tuned_choices(b) && available(b)) where.push_back(b);
  }
  lab::settings s;
  s.scale = o.quick ? lab::size::quick : lab::size::full;
  s.budget_s = o.budget;
  if (!o.pattern_name.empty()) s.only_pattern = lab::check_pattern(o.pattern_name);
  // The built-in policy's picks are measured as they are, not as an earlier tune chose.
  use_tuned_choices(false);
  stopwatch clock;
  lab::result all;
  for (backend b : where) {
    s.only_backend = b;
    s.progress = lab::progress_line(s, !o.no_progress);
    lab::result one = lab::run(s);
    lab::end_progress_line(s.progress);
    all.rows.insert(all.rows.end(), one.rows.begin(), one.rows.end());
  }
  use_tuned_choices(true);
  const std::vector<tuned_choice> found = lab::choices_of(all);
  fmt::print("pplab tune{}: {} classes of problem on {} in {:.1f} s ({})\n\n",
             o.quick ? " --quick" : "", found.size(),
             fmt::join(
                 [&] {
                   std::vector<std::string_view> names;
                   for (backend b : where) names.push_back(name_of(b));
                   return names;
                 }(),
                 ", "),
             clock.seconds(), machine_name());
  fmt::print("  {:<12} {:<5} {:<34} {:<40} {:>8}\n", "pattern", "on", "class of problem",
             "fastest rung (the built-in policy's if same)", "speed-up");
  std::size_t changed = 0;
  for (const tuned_choice& c : found) {
    const bool same = c.rung == c.policy_rung;
    changed += !same;
    const std::string gain =
        same || c.policy_ms <= 0 ? "-" : fmt::format("{:.2f}x", c.policy_ms / c.ms);
    fmt::print("  {:<12} {:<5} {:<34} {:<40} {:>8}\n", c.pattern, c.backend, c.key,
               c.rung.substr(c.rung.rfind('/') + 1), gain);
    if (!same && !c.policy_rung.empty())
      fmt::print("  {:<12} {:<5} {:<34}   (instead of {})\n", "", "", "",
                 c.policy_rung.substr(c.policy_rung.rfind('/') + 1));
  }
  fmt::print("\n{} of {} classes run a rung other than the built-in policy's.\n", changed,
             found.size());
  if (o.dry_run) {
    fmt::print("--dry-run: nothing written\n");
    return;
  }
  // Merged with the file's choices for this machine: a class measured now replaces its entry.
  std::map<std::string, tuned_choice> merged;
  const auto name = [](const tuned_choice& c) {
    return c.pattern + '\n' + c.backend + '\n' + c.key;
  };
  if (path == choice_file())
    for (const tuned_choice& c : tuned_choices()) merged[name(c)] = c;
  for (const tuned_choice& c : found) merged[name(c)] = c;
  std::vector<tuned_choice> out;
  for (const auto& entry : merged) out.push_back(entry.second);
  write_choice_file(path, out);
  fmt::print("choices: {} ({} in all); the API reads them on its next call\n", path, out.size());
}

}  // namespace

void add_tune(CLI::App& app) {
  auto o = std::make_shared<tune_cli>();
  auto* cmd = app.add_subcommand(
      "tune",
      "measure which rung is fastest on this machine for each of the lab's problems (seq, cpu\n"
      "and cuda, a short budget each) and write a choice file: the API then runs the fastest\n"
      "rung for every problem of the same class (dtype, shape in powers of two), and the\n"
      "built-in policy for the rest. Vendor baselines may win; rungs of another contract\n"
      "(racy, a float-accumulator reference, split-TF32) are never chosen.\n"
      "The file: $PPLAB_CHOICES, else $XDG_CONFIG_HOME/pplab/choices.json, else\n"
      "~/.config/pplab/choices.json; `pplab info` says whether it is used.");
  cmd->add_option("pattern", o->pattern_name,
                  "reduce, histogram, matmul or convolution (default: all)");
  cmd->add_option("--backend", o->backend_name, "seq, cpu or cuda (default: each usable here)");
  cmd->add_flag("--quick", o->quick, "the lab's small problems (the classes of small sizes)");
  cmd->add_option("--budget", o->budget, "seconds of timing per rung (default 0.1)")
      ->check(CLI::Range(0.001, 60.0));
  cmd->add_option("--out", o->out_path,
                  "write the choices here instead (the API reads them only "
                  "from the place above)");
  cmd->add_flag("--dry-run", o->dry_run, "measure and show, write nothing");
  cmd->add_flag("--no-progress", o->no_progress, "no progress line on stderr");
  cmd->callback([o] { run(*o); });
}

}  // namespace pplab::cli
