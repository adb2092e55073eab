// Showing a lab run: the table (one panel per problem and backend family), the JSON record, the
// SVG chart. Rows bound by a launch, not by bytes, are shown in microseconds beside the launch
// latency measured in the same run; panels with another floor (a byte histogram's one counter
// store per byte) show it too.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "git_stamp.hpp"
#include "pplab/lab.hpp"
#include "pplab/pplab.hpp"
#include "pplab/stopwatch.hpp"

namespace pplab::lab {
namespace {


std::string ratio(double v) { return std::isnan(v) ? "" : fmt::format("{:.2f}x", v); }

// Rows are shown by problem: the host backends (the seq reference and the cpu ladder) together,
// each device backend apart (its ceiling is another).
std::string panel(const row& r) {
  return r.pattern + (r.backend == "seq" || r.backend == "cpu" ? " (seq, cpu)" : " " + r.backend) +
         ": " + r.group;
}

// "read_GBps@256MiB" -> "read bandwidth on a 256MiB working set"
std::string describe(const std::string& key) {
  const std::size_t at = key.find('@');
  const std::string base = key.substr(0, at);
  std::string what = base == "read_GBps"                     ? "read bandwidth"
                     : base == "gpu_read_GBps"               ? "GPU read bandwidth"
                     : base == "fp32_GFLOPs"                 ? "fp32 FMA peak"
                     : base == "gpu_fp32_GFLOPs"             ? "GPU fp32 FMA peak"
                     : base == "gpu_fp64_GFLOPs"             ? "GPU fp64 FMA peak"
                     : base == "gpu_h2d_GBps"                ? "host-to-device copy"
                     : base == "store_GBps"                  ? "one counter store per byte"
                     : base == "gpu_launch_us"               ? "launch latency"
                     : base == "gpu_atomic_shared_byte_GBps" ? "one shared atomic per byte"
                                                             : base;
  if (at != std::string::npos) what += " on a " + key.substr(at + 1) + " working set";
  return what;
}

std::string unit(const std::string& key) {
  return key.find("GFLOPs") != std::string::npos ? "GFLOP/s"
         : key.find("_us") != std::string::npos  ? "us"
         : key.find("_Gps") != std::string::npos ? "G atomics/s"
                                                 : "GB/s";
}

bool is_wrong(const row& r) { return !r.verified && !r.racy; }

}  // namespace

void print_table(const lab::result& lab) {
  std::string last;
  for (const row& r : lab.rows) {
    const std::string head = panel(r);
    if (head != last) {
      std::vector<std::string> bounds;
      for (const row& o : lab.rows)
        if (panel(o) == head)
          for (const std::string& key : {o.ceiling, o.floor}) {
            if (key.empty()) continue;
            const std::string text =
                fmt::format("{}: {:.1f} {}", describe(key), lab.ceiling(key), unit(key));
            if (std::find(bounds.begin(), bounds.end(), text) == bounds.end())
              bounds.push_back(text);
          }
      fmt::print("\n{}   ({})\n", head, fmt::join(bounds, "; "));
      const bool flops = !std::isnan(r.GFLOPs);
      fmt::print("  {:<46} {:>11} {:>10}{} {:>8} {:>8} {:>8} {:>8}  {}\n", "rung", "median",
                 flops ? "GFLOP/s" : "GB/s",
                 r.item.empty() ? "" : fmt::format(" {:>9}", "G" + r.item + "/s"), "% ceil",
                 "x below", "x rung1", "x base", "check");
      last = head;
    }
    const double rate = std::isnan(r.GFLOPs) ? r.GBps : r.GFLOPs;
    const std::string time = r.latency_bound ? fmt::format("{:.1f} us", r.median_ms * 1e3)
                                             : fmt::format("{:.3f} ms", r.median_ms);
    const std::string of = r.latency_bound ? fmt::format("{:.1f}x lat", r.vs_launch)
                           : std::isnan(r.pct_of_ceiling)
                               ? std::string("-")
                               : fmt::format("{:.1f}%", r.pct_of_ceiling);
    fmt::print("{}{} {:<45} {:>11} {:>10.2f}{} {:>8} {:>8} {:>8} {:>8}  {}{}\n",
               r.api_pick ? '*' : ' ', r.fastest ? '+' : ' ', r.rung, time, rate,
               r.item.empty() ? "" : fmt::format(" {:>9.2f}", r.G_items_per_s), of,
               ratio(r.vs_below), ratio(r.vs_rung1), ratio(r.vs_baseline),
               r.racy ? "racy" : (r.verified ? "ok" : "WRONG"),
               r.note.empty() ? "" : "  " + r.note);
  }
  if (std::any_of(lab.rows.begin(), lab.rows.end(), [](const row& r) { return r.api_pick; })) {
    fmt::print("\n* the rung the API runs for that problem on that backend (its pick)\n"
               "+ the fastest rung the API may run there (verified, neither racy nor "
               "irreproducible)\n");
    // How the API's picks did: the fastest, within 5% of it, or slower (`pplab tune` mends it).
    std::size_t picks = 0, near = 0;
    std::vector<std::string> slow;
    for (const row& r : lab.rows) {
      if (std::isnan(r.pick_vs_fastest)) continue;
      ++picks;
      if (r.pick_vs_fastest <= 1.05) ++near;
      else
        slow.push_back(fmt::format("{} ({}, {}): {:.2f}x the fastest", r.rung, r.backend, r.group,
                                   r.pick_vs_fastest));
    }
    if (picks) {
      fmt::print("The API's pick is the fastest, or within 5% of it, on {} of {} problems{}\n",
                 near, picks, slow.empty() ? "." : "; slower on:");
      for (const std::string& line : slow) fmt::print("  {}\n", line);
      if (!slow.empty())
        fmt::print("`pplab tune` measures this machine and makes the API pick "
                   "the fastest ({})\n",
                   choice_file_status());
    }
  }
  // The GPU's atomic hierarchy, when the histogram case measured it: its own small table.
  bool atomics_head = false;
  for (const ceiling& c : lab.ceilings) {
    if (c.key.rfind("gpu_atomic_", 0) != 0 || c.key.find("_Gps") == std::string::npos) continue;
    if (!atomics_head) fmt::print("\nGPU atomic adds per second (the histogram's floors)\n");
    atomics_head = true;
    fmt::print("  {:>10.1f} G/s  {}\n", c.value, c.source);
  }
  for (const std::string& w : lab.warnings) fmt::print("\nwarning: {}\n", w);
}

std::string record_json(const lab::result& lab, bool quick) {
  using nlohmann::json;
  const auto num = [](double v) -> json { return std::isnan(v) ? json(nullptr) : json(v); };
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const cpu_facts c = machine_cpu();
  const gpu_info& g = machine_gpu();
  json machine = {{"cpu", c.model}, {"cores", c.cores}, {"threads", c.threads}};
  if (g.present) machine["gpu"] = g.name, machine["driver"] = g.driver;
  json ceilings = json::object(), sources = json::object();
  for (const ceiling& k : lab.ceilings) {
    ceilings[k.key] = num(k.value);
    sources[k.key] = k.source;
  }
  ceilings["source"] = sources;
  json rows = json::array();
  for (const row& r : lab.rows) {
    json j = {{"pattern", r.pattern},
              {"backend", r.backend},
              {"rung", r.rung},
              {"step", r.step},
              {"problem", r.group},
              {"dtype", r.dtype},
              {"op", r.op},
              {"n", r.n},
              {"reps", r.reps},
              {"median_ms", r.median_ms},
              {"min_ms", r.min_ms},
              {"GBps", num(r.GBps)},
              {"GFLOPs", num(r.GFLOPs)},
              {"item", r.item},
              {"G_items_per_s", num(r.G_items_per_s)},
              {"ceiling", r.ceiling},
              {"pct_of_ceiling", num(r.pct_of_ceiling)},
              {"vs_baseline", num(r.vs_baseline)},
              {"vs_below", num(r.vs_below)},
              {"vs_rung1", num(r.vs_rung1)},
              {"verified", r.verified},
              {"max_rel_err", num(r.max_rel_err)}};
    if (r.latency_bound) j["latency_bound"] = true, j["vs_launch"] = num(r.vs_launch);
    if (!r.floor.empty()) j["floor"] = r.floor;
    if (r.racy) j["racy"] = true;
    if (r.other_units) j["other_units"] = true;
    if (r.api_pick) j["api_pick"] = true;
    if (!r.tune_key.empty()) j["tune_key"] = r.tune_key;
    if (r.fastest) j["fastest"] = true;
    if (!std::isnan(r.pick_vs_fastest)) j["pick_vs_fastest"] = num(r.pick_vs_fastest);
    if (!r.note.empty()) j["note"] = r.note;
    rows.push_back(j);
  }
  json record = {{"pplab", version()}, {"git", PPLAB_GIT},     {"date", date}, {"quick", quick},
                 {"machine", machine}, {"ceilings", ceilings}, {"rows", rows}};
  if (!lab.warnings.empty()) record["warnings"] = lab.warnings;
  return record.dump(1) + "\n";
}

// One panel per problem: a bar per rung, its length the percentage of the ceiling (for a
// latency-bound row: the launch latency over its time), a dashed line at 100% and a dotted one
// at any other floor of the panel.
std::string chart_svg(const lab::result& lab) {
  std::map<std::string, std::vector<const row*>> panels;
  std::vector<std::string> order;
  for (const row& r : lab.rows) {
    const std::string key = panel(r);
    if (!panels.count(key)) order.push_back(key);
    panels[key].push_back(&r);
  }
  // A bar's length: the row's share of the ceiling it is held against (a latency-bound row: the
  // launch latency over its time), on the panel's axis from 0 to 100% (or further, for a row
  // above its ceiling, which the table reports as a wrong probe).
  const auto pct = [](const row& r) {
    const double v = r.latency_bound ? 100 / r.vs_launch : r.pct_of_ceiling;
    return std::isnan(v) ? 0 : v;
  };
  // What the bar's end says: the rate in its unit, the share, the speed-up over the baseline.
  const auto says = [&](const row& r) {
    std::string text;
    if (r.latency_bound)
      text = fmt::format("{:.1f} us, {:.1f}x the launch latency", r.median_ms * 1e3, r.vs_launch);
    else if (!std::isnan(r.GFLOPs))
      text = r.GFLOPs >= 1000 ? fmt::format("{:.1f} TFLOP/s, {:.1f}%", r.GFLOPs / 1000, pct(r))
                              : fmt::format("{:.1f} GFLOP/s, {:.1f}%", r.GFLOPs, pct(r));
    else if (!std::isnan(r.GBps)) text = fmt::format("{:.1f} GB/s, {:.1f}%", r.GBps, pct(r));
    else text = fmt::format("{:.3f} ms", r.median_ms);
    if (!std::isnan(r.vs_baseline) && r.step != 0)
      text += fmt::format(", {:.2f}x the baseline", r.vs_baseline);
    if (is_wrong(r)) text += ", WRONG";
    return text;
  };
  constexpr int width = 1180, label_w = 360, bar_w = 460, row_h = 18, title_h = 44;
  constexpr int legend_h = 92;
  int height = 40 + legend_h;
  for (const auto& key : order) height += title_h + row_h * int(panels[key].size()) + 26;
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='monospace' "
      "font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n"
      "<text x='10' y='22' font-size='15'>pplab lab: every rung, as a share of the ceiling "
      "that bounds it on this machine</text>\n",
      width, height);
  // The legend: what the colours, the lines and the mark mean.
  int y = 36;
  const auto key_bar = [&](const char* colour, const char* text) {
    svg += fmt::format("<rect x='10' y='{}' width='30' height='12' fill='{}'/><text x='48' "
                       "y='{}'>{}</text>\n",
                       y + 2, colour, y + 12, text);
    y += 16;
  };
  key_bar("#3b75af", "a rung of the ladder (bar length: its share of the ceiling; its rate and "
                     "speed-up over the baseline at its end)");
  key_bar("#999999", "the vendor baseline (CUB, cuBLAS, OpenBLAS) or a reference beside the "
                     "ladder");
  key_bar("#c0392b", "a rung whose answer was wrong");
  svg += fmt::format("<line x1='10' y1='{0}' x2='40' y2='{0}' stroke='#444' "
                     "stroke-dasharray='3'/><text x='48' y='{1}'>100% of the ceiling named under "
                     "the panel's title</text>\n",
                     y + 8, y + 12);
  y += 16;
  svg += fmt::format(
      "<line x1='10' y1='{0}' x2='40' y2='{0}' stroke='#c77c02' "
      "stroke-dasharray='1,2'/><text x='48' y='{1}'>another floor of the panel "
      "(named beside it); * before a rung: the one the API runs on its backend</text>\n",
      y + 8, y + 12);
  y = 40 + legend_h;
  for (const auto& key : order) {
    const row& first = *panels[key].front();
    const std::string bound = first.latency_bound || first.ceiling.empty()
                                  ? "the launch latency"
                                  : fmt::format("{}: {:.1f} {}", describe(first.ceiling),
                                                lab.ceiling(first.ceiling), unit(first.ceiling));
    svg += fmt::format("<text x='10' y='{}' font-weight='bold'>{}</text>\n", y + 16, key);
    svg += fmt::format("<text x='10' y='{}' fill='#555'>ceiling: {}</text>\n", y + 32, bound);
    y += title_h;
    double top = 100;
    for (const row* r : panels[key]) top = std::max(top, pct(*r));
    const int top_y = y;
    std::string floor;
    for (const row* r : panels[key]) {
      const int len = int(pct(*r) / top * bar_w);
      const std::string name =
          (r->api_pick ? "* " : "  ") + r->rung.substr(r->rung.find('/') + 1);  // backend/rung
      svg += fmt::format(
          "<text x='10' y='{}'>{}</text><rect x='{}' y='{}' width='{}' height='{}' fill='{}'/>"
          "<text x='{}' y='{}'>{}</text>\n",
          y + 13, name, label_w, y + 3, std::max(len, 1), row_h - 5,
          is_wrong(*r) ? "#c0392b" : (r->step <= 0 ? "#999999" : "#3b75af"), label_w + len + 5,
          y + 13, says(*r));
      if (!r->floor.empty() && !r->ceiling.empty()) floor = r->floor;
      y += row_h;
    }
    // The axis under the bars: 0, 50% and 100% of the ceiling.
    for (const double at : {0.0, 50.0, 100.0}) {
      const int x = label_w + int(at / top * bar_w);
      svg += fmt::format("<line x1='{0}' y1='{1}' x2='{0}' y2='{2}' stroke='#444'/>"
                         "<text x='{3}' y='{4}' fill='#444'>{5:.0f}%</text>\n",
                         x, y + 1, y + 5, x - 8, y + 16, at);
    }
    svg += fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#444'/>\n", label_w, y + 1,
                       label_w + bar_w, y + 1);
    const int x100 = label_w + int(100 / top * bar_w);
    svg += fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#444' "
                       "stroke-dasharray='3'/>\n",
                       x100, top_y, x100, y);
    if (!floor.empty()) {
      const double at = 100 * lab.ceiling(floor) / lab.ceiling(first.ceiling);
      const int x = label_w + int(at / top * bar_w);
      svg += fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#c77c02' "
                         "stroke-dasharray='1,2'/><text x='{}' y='{}' fill='#c77c02'>{}</text>\n",
                         x, top_y, x, y, x + 3, top_y - 2, describe(floor));
    }
    y += 26;
  }
  svg += "</svg>\n";
  return svg;
}

std::function<void(const std::string&)> progress_line(const lab::settings& s, bool shown) {
  if (!shown || !isatty(STDERR_FILENO)) return {};
  // A rung's run is told as "ID (problem)": the planned runs are counted by the planned ids.
  struct state {
    std::size_t total, done = 0;
    std::vector<std::string> ids;
    stopwatch clock;
  };
  auto st = std::make_shared<state>(state{lab::planned_runs(s), 0, lab::planned_rungs(s), {}});
  return [st](const std::string& what) {
    const std::string id = what.substr(0, what.find(" ("));
    if (std::find(st->ids.begin(), st->ids.end(), id) != st->ids.end()) ++st->done;
    const std::size_t of = std::max(st->total, st->done), done = st->done;
    const double left =
        done > 1 ? st->clock.seconds() / double(done - 1) * double(of - done + 1) : 0;
    const std::string eta = done > 1 ? fmt::format(", about {:.0f} s left", left) : "";
    std::fprintf(stderr, "\r\033[K[%zu/%zu%s] %s", done, of, eta.c_str(), what.c_str());
    std::fflush(stderr);
  };
}

void end_progress_line(const std::function<void(const std::string&)>& line) {
  if (line) std::fprintf(stderr, "\r\033[K");
}

}  // namespace pplab::lab
