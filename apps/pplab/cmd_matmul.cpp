// pplab matmul --a A.npy --b B.npy [--out C.npy]: C = alpha * A * B (+ beta * C).
#include <fmt/format.h>

#include <optional>

#include "common.hpp"
#include "core/run.hpp"
#include "core/sizes.hpp"
#include "core/timer.hpp"
#include "io/output.hpp"

namespace pplab::cli {
namespace {

struct matmul_cli {
  std::string a_path, b_path, c_path, out_path, backend_name = "cpu", variant;
  double alpha = 1, beta = 1;
};

io::array load_matrix(const std::string& path, const char* name) {
  io::array m = io::read_npy(path);
  if (m.shape.size() != 2)
    fail(errc::bad_data, fmt::format("{}: {} must be a 2-D matrix; it has {} dimensions", path,
                                     name, m.shape.size()));
  if (!is_float(m.type))
    fail(errc::bad_data, fmt::format("{}: {} has dtype {}; matmul takes float32 or float64 "
                                     "(convert with a.astype(np.float32))",
                                     path, name, name_of(m.type)));
  return m;
}

void run(const matmul_cli& o) {
  // Opened first: an output that cannot be written is reported before the work, not after it.
  std::optional<io::output_file> out;
  if (!o.out_path.empty()) out.emplace(o.out_path);
  const io::array a = load_matrix(o.a_path, "A"), b = load_matrix(o.b_path, "B");
  if (a.type != b.type)
    fail(errc::invalid_argument, fmt::format("A is {} and B is {}; give both the same dtype",
                                             name_of(a.type), name_of(b.type)));
  const std::size_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (b.shape[0] != k)
    fail(errc::invalid_argument,
         fmt::format("shapes do not match: A is {}x{}, B is {}x{}; A's columns must equal B's rows",
                     m, k, b.shape[0], n));
  io::array c;
  c.type = a.type;
  c.shape = {m, n};
  if (!o.c_path.empty()) {
    c = io::read_npy(o.c_path);
    if (c.type != a.type || c.shape != std::vector<std::size_t>{m, n})
      fail(errc::invalid_argument,
           fmt::format("--c must be a {}x{} {} matrix", m, n, name_of(a.type)));
  } else {
    c.bytes.resize(detail::checked_bytes({m, n, size_of(a.type)},
                                         fmt::format("C, a {}x{} {} matrix,", m, n, name_of(a.type))));
  }
  const double beta = o.c_path.empty() ? 0.0 : o.beta;
  const backend where = parse_backend(o.backend_name);
  const detail::matmul_problem p{a.type, m, n, k};
  detail::stopwatch clock;
  const auto& r = detail::rung_for<detail::matmul_rung>(where, o.variant, p);
  detail::run_variant(r, {p, o.alpha, beta, a.data(), k, b.data(), n, c.data(), n, nullptr, nullptr});
  const std::string used(r.info.id);
  const double s = clock.seconds();
  fmt::print("C = A*B: ({}x{}) x ({}x{}) {} in {:.3f} ms, {:.2f} GFLOP/s [{}]\n", m, k, k, n,
             name_of(a.type), s * 1e3, 2.0 * double(m) * double(n) * double(k) / s * 1e-9, used);
  if (out) {
    io::write_npy(*out, c);
    fmt::print("wrote {}\n", o.out_path);
  } else if (m * n <= 64) {
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < n; ++j)
        fmt::print(" {:12.6g}", a.type == dtype::f32
                                    ? double(reinterpret_cast<const float*>(c.data())[i * n + j])
                                    : reinterpret_cast<const double*>(c.data())[i * n + j]);
      fmt::print("\n");
    }
  } else {
    fmt::print("(give --out C.npy to save the {}x{} result)\n", m, n);
  }
}

}  // namespace

void add_matmul(CLI::App& app) {
  auto o = std::make_shared<matmul_cli>();
  auto* cmd = app.add_subcommand(
      "matmul", "multiply two matrices from .npy files: C = alpha*A*B (+ beta*C with --c)");
  cmd->add_option("--a", o->a_path, "A, an MxK float32 or float64 .npy matrix")->required();
  cmd->add_option("--b", o->b_path, "B, a KxN .npy matrix of the same dtype")->required();
  cmd->add_option("--c", o->c_path, "C to accumulate into (with --beta)");
  cmd->add_option("--out", o->out_path, "write C to this .npy file");
  cmd->add_option("--alpha", o->alpha, "scale of A*B (default 1)");
  cmd->add_option("--beta", o->beta, "scale of --c (default 1; without --c, C starts at zero)");
  cmd->add_option("--backend", o->backend_name, "seq, cpu or cuda (default cpu)");
  cmd->add_option("--variant", o->variant, "run one rung by id (see `pplab list matmul`)");
  cmd->callback([o] { run(*o); });
}

}  // namespace pplab::cli
