// pplab lab: the main job. Every rung on this machine, verified, timed, beside the ceilings.
// The lab itself is the library's (src/lab/); this command chooses, prints and writes.
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "common.hpp"
#include "pplab/lab.hpp"
#include "pplab/io.hpp"
#include "pplab/stopwatch.hpp"

namespace pplab::cli {
namespace {

struct lab_cli {
  std::string pattern_name, backend_name, local_name = "cpu", json_path = "pplab-lab.json",
                                          chart_path;
  std::vector<std::string> variants;
  bool quick = false, no_progress = false;
  double budget = 0;
};

// The chart's default path: the record's with its extension, if its file name has one, made .svg
// (run.d/record gives run.d/record.svg, ./record ./record.svg, a.json a.svg).
std::string chart_beside(const std::string& record) {
  std::filesystem::path p(record);
  if (!p.has_filename() || p.filename() == "." || p.filename() == "..")
    fail(errc::invalid_argument, "--json needs a file name, not the folder " + record);
  return p.replace_extension(".svg").string();
}

// Whether two output paths name one file (the same path once made absolute and normal, or the
// same existing file).
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  return fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal();
}

void run(const lab_cli& o) {
  lab::settings s;
  s.scale = o.quick ? lab::size::quick : lab::size::full;
  s.budget_s = o.budget > 0 ? o.budget : (o.quick ? 0.15 : 1.0);
  if (!o.pattern_name.empty()) s.only_pattern = lab::check_pattern(o.pattern_name);
  set_mpi_local(parse_backend(o.local_name));
  if (!o.backend_name.empty()) {
    s.only_backend = parse_backend(o.backend_name);
    require(*s.only_backend);
  }
  s.only_rungs = o.variants;
  const std::vector<std::string> planned =
      s.only_rungs.empty() ? std::vector<std::string>{} : lab::planned_rungs(s);
  for (const std::string& part : s.only_rungs)
    if (std::none_of(planned.begin(), planned.end(),
                     [&](const std::string& id) { return id.find(part) != std::string::npos; }))
      fail(errc::invalid_argument,
           "--rung " + part +
               ": no rung the lab would run here has it in its id (see `pplab list`)");
  // In a job of several ranks (mpi) every rank runs the lab; rank 0 prints and writes.
  const bool root = !available(backend::mpi) || job_rank(backend::mpi) == 0;
  // Opened first: a record or chart that cannot be written is reported before the lab runs.
  const std::string chart_path = o.chart_path.empty() ? chart_beside(o.json_path) : o.chart_path;
  if (same_file(chart_path, o.json_path))
    fail(errc::invalid_argument,
         "--json and --chart name the same file (" + o.json_path + "); give each its own path");
  std::optional<io::output_file> record, chart;
  if (root) record.emplace(o.json_path), chart.emplace(chart_path);
  s.progress = lab::progress_line(s, root && !o.no_progress);
  stopwatch clock;
  const lab::result lab = lab::run(s);
  lab::end_progress_line(s.progress);
  std::size_t wrong = 0;
  for (const lab::row& r : lab.rows) wrong += !r.verified && !r.racy;
  if (!root) {
    if (wrong)  // every rank has the same rows: the same error, printed once by rank 0
      throw agreed_error(errc::bad_data, std::to_string(wrong) + " rungs gave wrong answers");
    return;
  }
  std::vector<std::string> shown;  // the executors' main ceilings, as measured in this run
  for (const auto& [key, text] : {std::pair{"read_GBps", "read {:.1f} GB/s"},
                                  {"copy_GBps", "copy {:.1f} GB/s"},
                                  {"fp32_GFLOPs", "fp32 FMA {:.0f} GFLOP/s"},
                                  {"gpu_read_GBps", "GPU read {:.0f} GB/s"},
                                  {"gpu_launch_us", "GPU launch {:.1f} us"},
                                  {"mpi_latency_us", "MPI latency {:.2f} us"},
                                  {"mpi_p2p_GBps", "MPI point-to-point {:.1f} GB/s"},
                                  {"mpi_allreduce_us", "MPI 8-byte all-reduce {:.2f} us"}})
    if (!std::isnan(lab.ceiling(key)))
      shown.push_back(fmt::format(fmt::runtime(text), lab.ceiling(key)));
  fmt::print("pplab lab{}: {} rows in {:.1f} s; ceilings: {}\n", o.quick ? " --quick" : "",
             lab.rows.size(), clock.seconds(), fmt::join(shown, ", "));
  pplab::lab::print_table(lab);
  record->write(pplab::lab::record_json(lab, o.quick));
  record->commit();
  chart->write(pplab::lab::chart_svg(lab));
  chart->commit();
  fmt::print("\nrecord: {}   chart: {}{}\n", o.json_path, chart_path,
             wrong ? fmt::format("   {} rows FAILED verification", wrong) : "");
  if (wrong)
    throw agreed_error(errc::bad_data,
                       std::to_string(wrong) + " rungs gave wrong answers (see WRONG above)");
}

}  // namespace

void add_lab(CLI::App& app) {
  auto o = std::make_shared<lab_cli>();
  auto* cmd = app.add_subcommand(
      "lab",
      "run every rung of every pattern on this machine: verified against the reference, timed\n"
      "(warm-up, repeats, median) beside the machine's ceilings measured in the same run.\n"
      "Prints a table, writes a JSON record and an SVG chart of the ladders.");
  cmd->add_option("pattern", o->pattern_name, pattern_argument_help());
  cmd->add_option(
      "--backend", o->backend_name,
      "only this backend: seq, cpu, cuda, nccl (every GPU of this host; under mpirun, one "
      "GPU per process) or mpi (under mpirun, there the default)");
  cmd->add_option("--local", o->local_name,
                  "with the mpi backend: the backend each rank runs its part on (default cpu)");
  cmd->add_option("--rung,--variant", o->variants,
                  "only the rungs whose id contains this text (repeatable; the baselines always "
                  "run)");
  cmd->add_flag("--quick", o->quick, "small problems, short timing: under a minute");
  cmd->add_option("--json", o->json_path, "where to write the record (default pplab-lab.json)");
  cmd->add_option("--chart", o->chart_path,
                  "where to write the SVG chart (default: beside the record)");
  cmd->add_option("--budget", o->budget,
                  "seconds of timing per rung, above 0 and at most 60 (default 1, quick 0.15)")
      ->check(
          [](const std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            return *end == '\0' && v > 0 && v <= 60 ? ""
                                                    : "--budget is seconds above 0, at most 60";
          },
          "SECONDS");
  cmd->add_flag("--no-progress", o->no_progress, "no progress line on stderr");
  cmd->callback([o] { run(*o); });
}

}  // namespace pplab::cli
