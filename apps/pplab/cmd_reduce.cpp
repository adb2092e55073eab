// pplab reduce --op OP: one reduction over a file or generated data.
#include <fmt/format.h>

#include "common.hpp"
#include "core/run.hpp"
#include "core/timer.hpp"

namespace pplab::cli {
namespace {

struct reduce_options {
  data_options data;
  std::string op_name, backend_name = "cpu", variant;
  bool json = false;
};

void run(const reduce_options& o) {
  const op what = parse_op(o.op_name);
  const backend where = parse_backend(o.backend_name);
  io::input in = load_data(o.data);
  // An image's channels are reduced together: every sample value counts once.
  io::array& a = in.channels.front();
  for (std::size_t c = 1; c < in.channels.size(); ++c)
    a.bytes.insert(a.bytes.end(), in.channels[c].bytes.begin(), in.channels[c].bytes.end());
  const std::size_t n = a.size();
  if (what == op::mean && n == 0)
    fail(errc::invalid_argument, "the mean of an empty input is undefined");
  const detail::reduce_problem p{a.type, what, n};
  detail::stopwatch clock;
  const auto& r = detail::rung_for<detail::reduce_rung>(where, o.variant, p);
  const scalar value = detail::run_variant(r, p, a.data());
  const std::string used(r.info.id);
  const double ms = clock.seconds() * 1e3;
  if (o.json) {
    nlohmann::json j = {{"op", name_of(what)},
                        {"dtype", name_of(a.type)},
                        {"n", n},
                        {"value", json_scalar(value)},
                        {"variant", used}};
    fmt::print("{}\n", j.dump());
    return;
  }
  fmt::print("{} of {}: {}\n", name_of(what), describe(o.data, in), format_scalar(value));
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
  cmd->add_option("--backend", o->backend_name, "seq, cpu or cuda (default cpu)");
  cmd->add_option("--variant", o->variant, "run one rung by id (see `pplab list reduce`)");
  cmd->add_flag("--json", o->json, "print one JSON object {op, dtype, n, value, variant}");
  o->data.add_to(*cmd, "f32");
  cmd->callback([o] { run(*o); });
}

}  // namespace pplab::cli
