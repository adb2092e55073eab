// pplab list [PATTERN]: every registered rung, with its backend, step and summary.
#include <fmt/format.h>

#include "common.hpp"
#include "pplab/lab.hpp"

namespace pplab::cli {

void add_list(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("list", "every registered rung: id, backend, step on its ladder, summary");
  auto pattern_name = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  cmd->add_option("pattern", *pattern_name, pattern_argument_help());
  cmd->add_flag("--json", *as_json, "print one JSON array");
  cmd->callback([pattern_name, as_json] {
    const bool all = pattern_name->empty();
    const std::string only = all ? "" : lab::check_pattern(*pattern_name);
    nlohmann::json out = nlohmann::json::array();
    const auto show = [&](const rung_info& v) {
      if (!all && v.pattern() != only) return;
      if (*as_json) {
        out.push_back({{"id", v.id},
                       {"pattern", v.pattern()},
                       {"backend", name_of(v.where)},
                       {"step", v.step},
                       {"summary", v.summary},
                       {"available", available(v.where)}});
      } else {
        fmt::print("{:<44} {:<5} {:>2}  {}{}\n", v.id, name_of(v.where), v.step, v.summary,
                   available(v.where) ? "" : "  [backend not usable here]");
      }
    };
    for (const rung_info& v : lab::all_rungs()) show(v);
    if (*as_json) fmt::print("{}\n", out.dump(1));
  });
}

}  // namespace pplab::cli
