// pplab matmul --a A.npy --b B.npy [--out C.npy]: C = alpha * A * B (+ beta * C); A and B also
// vectors or stacks of matrices, as numpy.matmul takes them (one process).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <optional>
#include <vector>

#include "common.hpp"
#include "pplab/io.hpp"
#include "pplab/stopwatch.hpp"

namespace pplab::cli {
namespace {

struct matmul_cli {
  backend_options backend;
  std::string a_path, b_path, c_path, out_path, variant;
  std::string shape, dtype_name = "f32";  // generated matrices: --shape MxNxK
  std::uint64_t seed = 1;
  double alpha = 1, beta = 1;
};

// "MxNxK" as three sizes (0 allowed: an empty product).
std::array<std::size_t, 3> parse_shape(const std::string& s) {
  std::array<std::size_t, 3> out{};
  const char* p = s.data();
  const char* end = s.data() + s.size();
  for (std::size_t i = 0; i < 3; ++i) {
    const auto [next, ec] = std::from_chars(p, end, out[i]);
    const bool last = i == 2;
    if (ec != std::errc() || next == p || (last ? next != end : (next == end || *next != 'x')))
      fail(errc::invalid_argument,
           "--shape wants MxNxK, three sizes such as 4096x4096x4096; got '" + s + "'");
    p = next + (last ? 0 : 1);
  }
  return out;
}

// A generated matrix of `cols` columns, or this rank's block of it: element (i, j) is element
// i * cols + j of the seeded stream, whichever rank makes it.
io::array generated(dtype t, std::size_t rows, std::size_t cols, const matrix_block& b,
                    std::uint64_t seed) {
  io::array m;
  m.type = t;
  m.shape = {rows, cols};
  m.bytes.resize(checked_bytes({b.rows, b.cols, size_of(t)}, "a generated matrix"));
  for (std::size_t i = 0; i < b.rows; ++i)
    generate(t, static_cast<std::byte*>(m.data()) + i * b.cols * size_of(t), b.cols,
             distribution::uniform, seed, (b.row0 + i) * cols + b.col0);
  return m;
}

// The whole matrix, or on a job of several ranks only this rank's block of it (`which` gets the
// file's shape). `stacks`: on one process, a 1-D array or a stack of matrices is taken too (as
// numpy.matmul takes them: run_stacked).
io::array load_matrix(const std::string& path, const char* name,
                      const io::block_chooser* which = nullptr, bool stacks = false) {
  io::array m = which ? io::read_npy_block(path, *which) : io::read_npy(path);
  if (m.shape.size() != 2 && !(stacks && !m.shape.empty()))
    fail(errc::bad_data,
         fmt::format("{}: {} must be a 2-D matrix{}; it has {} dimensions", path, name,
                     stacks ? ", a vector or a stack of matrices" : " on a job of several ranks",
                     m.shape.size()));
  if (!is_float(m.type))
    fail(errc::bad_data, fmt::format("{}: {} has dtype {}; matmul takes float32 or float64 "
                                     "(convert with a.astype(np.float32))",
                                     path, name, name_of(m.type)));
  return m;
}

// numpy.matmul's shapes, for operands that are not both matrices (one process): a 1-D A is a
// row and a 1-D B a column, that axis dropped from C; stacks (..., m, k) x (..., k, n) have their
// leading axes broadcast against each other (each the other's length, or 1), one product per
// matrix of C's stack.
void run_stacked(const matmul_cli& o, backend where, const io::array& a, const io::array& b,
                 std::optional<io::output_file>& out) {
  if (a.type != b.type)
    fail(errc::invalid_argument, fmt::format("A is {} and B is {}; give both the same dtype",
                                             name_of(a.type), name_of(b.type)));
  if (!o.c_path.empty()) fail(errc::invalid_argument, "--c takes matrices: A and B 2-D");
  std::vector<std::size_t> as = a.shape, bs = b.shape;
  if (as.size() == 1) as.insert(as.begin(), 1);  // a row
  if (bs.size() == 1) bs.push_back(1);           // a column
  const std::size_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  if (bs[bs.size() - 2] != k)
    fail(errc::invalid_argument,
         fmt::format("shapes do not match: A is {} and B is {}; A's columns ({}) must equal B's "
                     "rows ({})",
                     fmt::join(a.shape, "x"), fmt::join(b.shape, "x"), k, bs[bs.size() - 2]));
  // The stack's shape: the leading axes aligned on the right, each pair equal or one of them 1.
  const std::size_t la = as.size() - 2, lb = bs.size() - 2, lead = std::max(la, lb);
  std::vector<std::size_t> batch(lead), a_len(lead, 1), b_len(lead, 1);
  for (std::size_t d = 0; d < lead; ++d) {
    if (d + la >= lead) a_len[d] = as[d + la - lead];
    if (d + lb >= lead) b_len[d] = bs[d + lb - lead];
    if (a_len[d] != b_len[d] && a_len[d] != 1 && b_len[d] != 1)
      fail(errc::invalid_argument,
           fmt::format("the stacks' shapes do not broadcast: A is {} and B is {}",
                       fmt::join(a.shape, "x"), fmt::join(b.shape, "x")));
    batch[d] = a_len[d] == 1 ? b_len[d] : a_len[d];
  }
  std::size_t count = 1;
  for (std::size_t d : batch) count *= d;
  io::array c;
  c.type = a.type;
  c.shape = batch;
  if (a.shape.size() >= 2) c.shape.push_back(m);
  if (b.shape.size() >= 2) c.shape.push_back(n);
  const std::size_t elem = size_of(a.type);
  c.bytes.resize(checked_bytes({count, m, n, elem}, "C"));
  stopwatch clock;
  std::string used;
  // One call for the stack where each operand's matrices are one stride apart: a stack of its
  // own (every axis the stack's) or one matrix for all (every axis 1); else a call per matrix.
  const auto one_stride = [&](const std::vector<std::size_t>& len,
                              std::size_t matrix) -> std::optional<std::size_t> {
    if (len == batch) return matrix;
    if (std::all_of(len.begin(), len.end(), [](std::size_t l) { return l == 1; })) return 0;
    return std::nullopt;
  };
  const std::optional<std::size_t> sa = one_stride(a_len, m * k), sb = one_stride(b_len, k * n);
  if (sa && sb)
    matmul_batched(where, a.type, count, m, n, k, o.alpha, a.data(), k, *sa, b.data(), n, *sb, 0.0,
                   c.data(), n, m * n, {o.variant, &used});
  for (std::size_t i = 0; i < count && !(sa && sb); ++i) {
    // Matrix i of C's stack, and the matrices of A's and B's stacks it multiplies.
    std::size_t rest = i, ai = 0, bi = 0, a_step = 1, b_step = 1;
    for (std::size_t d = lead; d-- > 0;) {
      const std::size_t at = rest % batch[d];
      rest /= batch[d];
      ai += (a_len[d] == 1 ? 0 : at) * a_step, a_step *= a_len[d];
      bi += (b_len[d] == 1 ? 0 : at) * b_step, b_step *= b_len[d];
    }
    matmul(where, a.type, m, n, k, o.alpha,
           static_cast<const std::byte*>(a.data()) + ai * m * k * elem, k,
           static_cast<const std::byte*>(b.data()) + bi * k * n * elem, n, 0.0,
           static_cast<std::byte*>(c.data()) + i * m * n * elem, n, {o.variant, &used});
  }
  const double s = clock.seconds();
  fmt::print("C = A*B: ({}) x ({}) -> ({}) {}, {} product{} in {:.3f} ms [{}]\n",
             fmt::join(a.shape, "x"), fmt::join(b.shape, "x"), fmt::join(c.shape, "x"),
             name_of(a.type), count, count == 1 ? "" : "s", s * 1e3, used.empty() ? "-" : used);
  if (out) {
    io::write_npy(*out, c);
    fmt::print("wrote {}\n", o.out_path);
  } else if (c.size() <= 64) {
    for (std::size_t i = 0; i < c.size(); ++i)
      fmt::print(" {:12.6g}", a.type == dtype::f32 ? double(static_cast<const float*>(c.data())[i])
                                                   : static_cast<const double*>(c.data())[i]);
    fmt::print("\n");
  } else {
    fmt::print("(give --out C.npy to save the {} result)\n", fmt::join(c.shape, "x"));
  }
}

void run(const matmul_cli& o) {
  // "split_tf32" names a precision, not a rung: the API picks its rung, on the GPU.
  const backend where = o.variant == "split_tf32" ? (require(backend::cuda), backend::cuda)
                                                  : o.backend.resolve("matmul", o.variant);
  const bool job = job_ranks(where) > 1;
  // Opened first: an output that cannot be written is reported before the work, not after it.
  std::optional<io::output_file> out;
  io::array a, b, c;
  std::exception_ptr failed;
  std::string shapes;
  try {
    if (!o.out_path.empty()) check_output_name(o.out_path, {".npy"});
    if (!o.out_path.empty() && job_rank(where) == 0) out.emplace(o.out_path);
    // On a job each rank reads only its blocks (SUMMA's layout), A's and B's from their shapes.
    std::size_t m = 0, n = 0, k = 0;
    const io::block_chooser a_block = [&](std::size_t rows, std::size_t cols) {
      m = rows, k = cols;
      const matrix_block x = matmul_blocks_of(where, rows, 0, cols).a;
      return io::block{x.row0, x.rows, x.col0, x.cols};
    };
    const io::block_chooser b_block = [&](std::size_t rows, std::size_t cols) {
      n = cols;
      const matrix_block x = matmul_blocks_of(where, 0, cols, rows).b;
      return rows == k ? io::block{x.row0, x.rows, x.col0, x.cols} : io::block{};
    };
    if (o.shape.empty() == o.a_path.empty() || o.a_path.empty() != o.b_path.empty())
      fail(errc::invalid_argument,
           "give --a and --b (.npy files), or --shape MxNxK to generate A and B");
    if (!o.shape.empty()) {
      const auto [gm, gn, gk] = parse_shape(o.shape);
      const dtype t = parse_dtype(o.dtype_name);
      if (!is_float(t))
        fail(errc::invalid_argument, "--dtype for matmul is f32 or f64; got " + o.dtype_name);
      const matmul_blocks mine = matmul_blocks_of(where, gm, gn, gk);
      // A, B and C together must fit before any of them is made (C's size alone can be absurd).
      const std::string what = fmt::format("A, B and C of {} {}", o.shape, name_of(t));
      const std::size_t need = checked_bytes({mine.a.rows, mine.a.cols, size_of(t)}, what) +
                               checked_bytes({mine.b.rows, mine.b.cols, size_of(t)}, what) +
                               checked_bytes({mine.c.rows, mine.c.cols, size_of(t)}, what);
      if (need > physical_memory_bytes())
        fail(errc::invalid_argument,
             fmt::format("{} would take {} MiB, more than this machine's {} MiB of memory; ask "
                         "for less",
                         what, need >> 20, physical_memory_bytes() >> 20));
      m = gm, n = gn, k = gk;
      a = generated(t, gm, gk, mine.a, o.seed);
      b = generated(t, gk, gn, mine.b, o.seed + 1);
    } else {
      a = load_matrix(o.a_path, "A", job ? &a_block : nullptr, !job);
      b = load_matrix(o.b_path, "B", job ? &b_block : nullptr, !job);
      if (a.shape.size() != 2 || b.shape.size() != 2) {  // vectors or stacks: one process
        run_stacked(o, where, a, b, out);
        return;
      }
    }
    const io::block_chooser c_block = [&](std::size_t rows, std::size_t cols) {
      const matrix_block x = matmul_blocks_of(where, m, n, k).c;
      return rows == m && cols == n ? io::block{x.row0, x.rows, x.col0, x.cols} : io::block{};
    };
    if (!o.c_path.empty()) c = load_matrix(o.c_path, "C", job ? &c_block : nullptr);
    shapes = fmt::format("matrices {}{}x{} {}{}x{} {}", name_of(a.type), a.shape[0], a.shape[1],
                         name_of(b.type), b.shape[0], b.shape[1],
                         o.c_path.empty() ? "" : fmt::format("{}x{}", c.shape[0], c.shape[1]));
  } catch (...) {
    failed = std::current_exception();
  }
  agree(where, shapes, 0, failed);
  // Every rank has the same shapes now: what follows fails on all of them alike.
  together([&] {
    if (a.type != b.type)
      fail(errc::invalid_argument, fmt::format("A is {} and B is {}; give both the same dtype",
                                               name_of(a.type), name_of(b.type)));
    const std::size_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
    if (b.shape[0] != k)
      fail(errc::invalid_argument,
           fmt::format(
               "shapes do not match: A is {}x{}, B is {}x{}; A's columns must equal B's rows", m, k,
               b.shape[0], n));
    const matmul_blocks mine = matmul_blocks_of(where, m, n, k);
    if (!o.c_path.empty()) {
      if (c.type != a.type || c.shape != std::vector<std::size_t>{m, n})
        fail(errc::invalid_argument,
             fmt::format("--c must be a {}x{} {} matrix", m, n, name_of(a.type)));
    } else {
      c.type = a.type;
      c.shape = {m, n};
      c.bytes.resize(checked_bytes({mine.c.rows, mine.c.cols, size_of(a.type)},
                                   fmt::format("C, a {}x{} {} matrix,", m, n, name_of(a.type))));
    }
    const double beta = o.c_path.empty() ? 0.0 : o.beta;
    stopwatch clock;
    std::string used;
    matmul(where, a.type, m, n, k, o.alpha, a.data(), mine.a.cols, b.data(), mine.b.cols, beta,
           c.data(), mine.c.cols, {o.variant, &used});
    const double s = clock.seconds();
    if (job) c.bytes = gather_c(where, c.data(), m, n, k, size_of(c.type));
    if (job_rank(where) != 0) return;
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
  });
}

}  // namespace

void add_matmul(CLI::App& app) {
  auto o = std::make_shared<matmul_cli>();
  auto* cmd = app.add_subcommand(
      "matmul", "multiply two matrices from .npy files, or generated ones: C = alpha*A*B (+ beta*C "
                "with --c)");
  cmd->add_option("--a", o->a_path,
                  "A, an MxK float32 or float64 .npy matrix (or, on one process, a K vector or a "
                  "stack ...xMxK, as numpy.matmul)");
  cmd->add_option("--b", o->b_path,
                  "B, a KxN .npy matrix of the same dtype (or a K vector, or a stack ...xKxN)");
  cmd->add_option("--shape", o->shape,
                  "MxNxK: generate A and B instead (uniform in [0, 1); on --backend mpi each rank "
                  "makes only its blocks)");
  cmd->add_option("--dtype", o->dtype_name, "dtype of generated matrices: f32 (default) or f64");
  cmd->add_option("--seed", o->seed, "seed of generated matrices, 0 to 2^64 - 1 (default 1)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--c", o->c_path, "C to accumulate into (with --beta)");
  cmd->add_option("--out", o->out_path, "write C to this .npy file");
  cmd->add_option("--alpha", o->alpha, "scale of A*B (default 1)");
  cmd->add_option("--beta", o->beta, "scale of --c (default 1; without --c, C starts at zero)");
  o->backend.add_to(*cmd);
  cmd->add_option(
      "--rung,--variant", o->variant,
      "run one rung by id, or by its last part (m15_wide_async); see `pplab list matmul`; "
      "split_tf32: f32 on the TF32 tensor cores, each operand split in two (the GPU's best "
      "such rung)");
  cmd->callback([o] { run(*o); });
}

}  // namespace pplab::cli
