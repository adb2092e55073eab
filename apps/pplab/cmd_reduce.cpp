// pplab reduce --op OP: one reduction over a file or generated data.
#include <fmt/format.h>

#include "common.hpp"
#include "pplab/stopwatch.hpp"

namespace pplab::cli {
namespace {

struct reduce_options {
  data_options data;
  backend_options backend;
  std::string op_name, variant;
  bool json = false;
};

void run(const reduce_options& o) {
  const op what = parse_op(o.op_name);
  const backend where = o.backend.resolve("reduce", o.variant);
  loaded data = load_data(o.data, where);
  // An image's channels are reduced together: every sample value counts once.
  io::array& a = data.in.channels.front();
  for (std::size_t c = 1; c < data.in.channels.size(); ++c)
    a.bytes.insert(a.bytes.end(), data.in.channels[c].bytes.begin(),
                   data.in.channels[c].bytes.end());
  stopwatch clock;
  scalar value;
  std::string used;
  value = reduce(where, a.type, a.data(), a.size(), what, {o.variant, &used});
  const double ms = clock.seconds() * 1e3;
  if (!prints(where)) return;
  if (o.json) {
    nlohmann::json j = {{"op", name_of(what)},
                        {"dtype", name_of(a.type)},
                        {"n", data.whole},
                        {"value", json_scalar(value)},
                        {"rung", used}};
    fmt::print("{}\n", j.dump());
    return;
  }
  fmt::print("{} of {}: {}\n", name_of(what), describe(o.data, data), format_scalar(value));
  fmt::print("  {} in {:.3f} ms\n", used, ms);
}

}  // namespace

void add_reduce(CLI::App& app) {
  auto o = std::make_shared<reduce_options>();
  auto* cmd = app.add_subcommand(
      "reduce",
      "reduce data to one value: sum, product, min, max or mean.\n"
      "Integer sums and products are exact modulo 2^64; float sums accumulate in double;\n"
      "min and max return NaN if any element is NaN; an empty input gives the identity.");
  cmd->add_option("--op", o->op_name, "sum, product, min, max or mean")->required();
  o->backend.add_to(*cmd);
  cmd->add_option(
      "--rung,--variant", o->variant,
      "run one rung by id, or by its last part (r09_vector_loads); see `pplab list reduce`");
  cmd->add_flag("--json", o->json, "print one JSON object {op, dtype, n, value, rung}");
  o->data.add_to(*cmd, "f32");
  cmd->callback([o] { run(*o); });
}

}  // namespace pplab::cli
