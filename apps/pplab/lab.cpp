// The lab's bookkeeping: progress, ratio columns, the table, the JSON record, the SVG chart.
#include "lab.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/ceilings.hpp"
#include "core/device.hpp"
#include "pplab/pplab.hpp"

namespace pplab::cli {

std::string pow2_label(std::size_t n) {
  if (n && (n & (n - 1)) == 0) return fmt::format("2^{}", __builtin_ctzll(n));
  return std::to_string(n);
}

lab_session::lab_session(lab_settings s) : settings(s) {}

bool lab_session::wants(pattern p, backend b) const {
  if (settings.only_pattern && *settings.only_pattern != p) return false;
  if (settings.only_backend && *settings.only_backend != b) return false;
  return available(b);
}

void lab_session::progress(const std::string& what) {
  ++steps_done;
  if (!settings.progress) return;
  std::fprintf(stderr, "\r\033[K[%3zu] %s", steps_done, what.c_str());
  std::fflush(stderr);
}

void lab_session::progress_done() {
  if (settings.progress) std::fprintf(stderr, "\r\033[K");
}

void lab_finish(lab_session& lab) {
  // Ratios within one problem and backend: over the rung below, over rung 1, over rung 0.
  for (lab_row& r : lab.rows) {
    const lab_row* below = nullptr;
    for (const lab_row& o : lab.rows) {
      if (o.group != r.group || o.backend != r.backend || o.pattern != r.pattern) continue;
      if (o.rung == 1) r.vs_rung1 = o.median_ms / r.median_ms;
      if (o.rung == 0) r.vs_baseline = o.median_ms / r.median_ms;
      if (o.rung >= 1 && o.rung < r.rung && (!below || o.rung > below->rung)) below = &o;
    }
    if (below) r.vs_below = below->median_ms / r.median_ms;
    if (r.rung == 1) r.vs_below = none;
  }
}

namespace {

std::string ratio(double v) { return std::isnan(v) ? "" : fmt::format("{:.2f}x", v); }

// Rows are shown by problem: the host backends (the seq reference and the cpu ladder) together,
// the GPU apart (its ceiling is another).
std::string panel(const lab_row& r) {
  return r.pattern + (r.backend == "seq" || r.backend == "cpu" ? " (seq, cpu)" : " " + r.backend) +
         ": " + r.group;
}

}  // namespace

void print_table(const lab_session& lab) {
  std::string last;
  for (const lab_row& r : lab.rows) {
    const std::string head = panel(r);
    if (head != last) {
      const bool flops = !std::isnan(r.GFLOPs);
      const double ceiling = r.backend == "cuda"
                                 ? lab.ceilings.gpu_read_GBps
                                 : (flops ? lab.ceilings.fp32_GFLOPs : lab.ceilings.read_GBps);
      // A byte histogram also shows its counting floor: one counter store per byte.
      const bool bytes = r.pattern == "histogram" && r.backend != "cuda" &&
                         (r.dtype == "u8" || r.dtype == "i8") &&
                         !std::isnan(lab.ceilings.store_GBps);
      fmt::print(
          "\n{}   (ceiling: {} {:.1f} {}{})\n", head, flops ? "fp32 FMA peak" : "read bandwidth",
          ceiling, flops ? "GFLOP/s" : "GB/s",
          bytes ? fmt::format("; one counter store per byte: {:.1f} GB/s", lab.ceilings.store_GBps)
                : "");
      fmt::print("  {:<42} {:>10} {:>10} {:>7} {:>8} {:>8} {:>8}  {}\n", "variant", "median ms",
                 flops ? "GFLOP/s" : "GB/s", "% ceil", "x below", "x rung1", "x base", "check");
      last = head;
    }
    const double rate = std::isnan(r.GFLOPs) ? r.GBps : r.GFLOPs;
    fmt::print("  {:<42} {:>10.3f} {:>10.2f} {:>6.1f}% {:>8} {:>8} {:>8}  {}{}\n", r.variant,
               r.median_ms, rate, r.pct_of_ceiling, ratio(r.vs_below), ratio(r.vs_rung1),
               ratio(r.vs_baseline), r.verified ? "ok" : "WRONG",
               r.note.empty() ? "" : "  " + r.note);
  }
}

void write_record(const lab_session& lab, const std::string& path) {
  using nlohmann::json;
  const auto num = [](double v) -> json { return std::isnan(v) ? json(nullptr) : json(v); };
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const detail::cpu_facts c = detail::cpu();
  const detail::gpu_info& g = detail::gpu();
  json machine = {{"cpu", c.model}, {"cores", c.cores}, {"threads", c.threads}};
  if (g.present) machine["gpu"] = g.name, machine["driver"] = g.driver;
  json ceilings = {
      {"read_GBps", num(lab.ceilings.read_GBps)},
      {"copy_GBps", num(lab.ceilings.copy_GBps)},
      {"fp32_GFLOPs", num(lab.ceilings.fp32_GFLOPs)},
      {"store_GBps", num(lab.ceilings.store_GBps)},
      {"source",
       {{"read_GBps", "all-thread streaming sum of 64-bit words"},
        {"copy_GBps", "all-thread memcpy, bytes read + written"},
        {"fp32_GFLOPs", "all-thread register-resident FMA loop"},
        {"store_GBps", "all-thread byte loop storing one 32-bit counter per byte (no add): "
                       "a byte histogram's floor"}}}};
  if (!std::isnan(lab.ceilings.gpu_read_GBps)) {
    ceilings["gpu_theoretical_GBps"] = num(lab.ceilings.gpu_theoretical_GBps);
    ceilings["gpu_read_GBps"] = num(lab.ceilings.gpu_read_GBps);
    ceilings["gpu_copy_GBps"] = num(lab.ceilings.gpu_copy_GBps);
    ceilings["gpu_h2d_GBps"] = num(lab.ceilings.gpu_h2d_GBps);
  }
  json rows = json::array();
  for (const lab_row& r : lab.rows)
    rows.push_back({{"pattern", r.pattern},
                    {"backend", r.backend},
                    {"variant", r.variant},
                    {"rung", r.rung},
                    {"problem", r.group},
                    {"dtype", r.dtype},
                    {"op", r.op},
                    {"n", r.n},
                    {"reps", r.reps},
                    {"median_ms", r.median_ms},
                    {"min_ms", r.min_ms},
                    {"GBps", num(r.GBps)},
                    {"GFLOPs", num(r.GFLOPs)},
                    {"pct_of_ceiling", num(r.pct_of_ceiling)},
                    {"vs_baseline", num(r.vs_baseline)},
                    {"vs_below", num(r.vs_below)},
                    {"vs_rung1", num(r.vs_rung1)},
                    {"verified", r.verified},
                    {"max_rel_err", num(r.max_rel_err)}});
  const json record = {
      {"pplab", version()}, {"git", PPLAB_GIT},     {"date", date}, {"quick", lab.settings.quick},
      {"machine", machine}, {"ceilings", ceilings}, {"rows", rows}};
  std::ofstream out(path);
  if (!out) fail(errc::io, "cannot write the lab record to '" + path + "'");
  out << record.dump(1) << "\n";
}

// One panel per problem: a bar per rung, its length the percentage of the ceiling.
void write_chart(const lab_session& lab, const std::string& path) {
  std::map<std::string, std::vector<const lab_row*>> panels;
  std::vector<std::string> order;
  for (const lab_row& r : lab.rows) {
    const std::string key = panel(r);
    if (!panels.count(key)) order.push_back(key);
    panels[key].push_back(&r);
  }
  constexpr int width = 900, label_w = 330, bar_w = 480, row_h = 18, title_h = 26;
  int height = 40;
  for (const auto& key : order) height += title_h + row_h * int(panels[key].size()) + 10;
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='monospace' "
      "font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n"
      "<text x='10' y='22' font-size='15'>pplab lab: each rung as % of this machine's ceiling "
      "(read bandwidth or fp32 FMA peak)</text>\n",
      width, height);
  int y = 40;
  for (const auto& key : order) {
    svg += fmt::format("<text x='10' y='{}' font-weight='bold'>{}</text>\n", y + 16, key);
    y += title_h;
    double top = 100;
    for (const lab_row* r : panels[key])
      top = std::max(top, std::isnan(r->pct_of_ceiling) ? 0 : r->pct_of_ceiling);
    for (const lab_row* r : panels[key]) {
      const double pct = std::isnan(r->pct_of_ceiling) ? 0 : r->pct_of_ceiling;
      const int len = int(pct / top * bar_w);
      const std::string name = r->variant.substr(r->variant.find('/') + 1);  // backend/rung
      svg += fmt::format(
          "<text x='10' y='{}'>{}</text><rect x='{}' y='{}' width='{}' height='{}' fill='{}'/>"
          "<text x='{}' y='{}'>{:.1f}%{}</text>\n",
          y + 13, name, label_w, y + 3, std::max(len, 1), row_h - 5,
          r->rung == 0 ? "#999999" : (r->verified ? "#3b75af" : "#c0392b"), label_w + len + 5,
          y + 13, pct, r->verified ? "" : " WRONG");
      y += row_h;
    }
    svg +=
        fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#444' stroke-dasharray='3'/>\n",
                    label_w + int(100 / top * bar_w), y - row_h * int(panels[key].size()),
                    label_w + int(100 / top * bar_w), y);
    y += 10;
  }
  svg += "</svg>\n";
  std::ofstream out(path);
  if (!out) fail(errc::io, "cannot write the chart to '" + path + "'");
  out << svg;
}

}  // namespace pplab::cli
