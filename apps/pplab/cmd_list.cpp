// pplab list [PATTERN]: every registered rung, with its backend, place and summary.
#include <fmt/format.h>

#include "common.hpp"
#include "core/registry.hpp"

namespace pplab::cli {

void add_list(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "every registered rung: id, backend, place, summary");
  auto pattern_name = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  cmd->add_option("pattern", *pattern_name, "reduce, histogram or matmul (default: all)");
  cmd->add_flag("--json", *as_json, "print one JSON array");
  cmd->callback([pattern_name, as_json] {
    const bool all = pattern_name->empty();
    const pattern only = all ? pattern::reduce : parse_pattern(*pattern_name);
    nlohmann::json out = nlohmann::json::array();
    const auto show = [&](const detail::variant_info& v) {
      if (!all && v.what != only) return;
      if (*as_json) {
        out.push_back({{"id", v.id},
                       {"pattern", name_of(v.what)},
                       {"backend", name_of(v.where)},
                       {"rung", v.rung},
                       {"summary", v.summary},
                       {"available", available(v.where)}});
      } else {
        fmt::print("{:<44} {:<5} {:>2}  {}{}\n", v.id, name_of(v.where), v.rung, v.summary,
                   available(v.where) ? "" : "  [backend not usable here]");
      }
    };
    const auto& r = detail::rungs();
    for (const auto& x : r.reduce) show(x.info);
    for (const auto& x : r.histogram) show(x.info);
    for (const auto& x : r.matmul) show(x.info);
    if (*as_json) fmt::print("{}\n", out.dump(1));
  });
}

}  // namespace pplab::cli
