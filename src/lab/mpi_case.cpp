// The lab's mpi case: the ladder of combines for reduce and histogram and SUMMA for matmul, on a
// job of ranks that each generate only their own part (the counter-based generator makes every
// rank count see the same data). Beside them, in the same run: one rank alone on the whole array
// with the local backend's best rung (rung 0 of the table: the ratio column is the scaling), the
// cpu backend alone on the threads of all the ranks when they share one host (what the job's
// cores do without MPI), and the transport's ceilings (the executor's: ping-pong latency,
// point-to-point bandwidth, the 8-byte all-reduce). Rows are rated against the ranks' read or
// multiply-add rates added up. Every rank runs the same code; rank 0 prints.
#include <omp.h>
#include <sched.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>

#include "core/ceilings.hpp"
#include "core/generate.hpp"
#include "core/run.hpp"
#include "core/verify.hpp"
#include "histogram/binning.hpp"
#include "lab/freivalds.hpp"
#include "lab/lab_loop.hpp"
#include "matmul/rung.hpp"
#include "reduce/rung.hpp"

namespace pplab::lab {
namespace {

detail::executor& job() { return detail::executor_for(backend::mpi); }

// True on every rank when `ok` is true on every rank.
bool every_rank(bool ok) {
  const std::vector<std::byte> all = job().gather_to_root(&ok, 1);
  bool every = true;
  for (std::byte b : all) every = every && b != std::byte{0};
  job().broadcast_from_root(&every, sizeof every);
  return every;
}

// `work` timed on rank 0 alone while the others wait; every rank gets the timing.
template <class F> detail::timing on_rank_0(const session& s, F&& work) {
  detail::timing t;
  if (job().rank() == 0) {
    work();  // once untimed: a slow first call (a GPU context starting) is not a sample
    t = detail::time_it(work, 3, s.opts.budget_s);
  }
  job().barrier();  // the others sleep here, leaving rank 0 their cores
  job().broadcast_from_root(&t, sizeof t);
  return t;
}

// Rank 0's value on every rank, once rank 0 has it (the others sleep meanwhile).
template <class T> void share(T& value) {
  job().barrier();
  job().broadcast_from_root(&value, sizeof value);
}

struct scales {
  std::size_t n, matmul;
};
scales scale_of(size s) {
  switch (s) {
  case size::full:
    return {std::size_t(1) << 28, 4096};
  case size::quick:
    return {std::size_t(1) << 24, 1024};
  default:
    return {std::size_t(1) << 16, 96};
  }
}

void rate(session& s, row& r, double bytes, double flops) {
  if (flops > 0) {
    r.GFLOPs = flops / (r.median_ms * 1e-3) * 1e-9;
    r.ceiling = "mpi_fp32_GFLOPs";
    r.pct_of_ceiling = 100 * r.GFLOPs / s.ceiling(r.ceiling);
  } else {
    r.GBps = bytes / (r.median_ms * 1e-3) * 1e-9;
    r.ceiling = "mpi_read_GBps";
    r.pct_of_ceiling = 100 * r.GBps / s.ceiling(r.ceiling);
  }
}

// The rows beside the ladder: rank 0's local best rung on the whole problem (rung 0, the scaling
// baseline), and the cpu backend on every rank's threads at once when the local backend is cpu.
template <class Run>
void add_single_process_rows(session& s, std::string_view what, const std::string& local_id,
                             const std::string& group, const std::string& dtype,
                             const std::string& op, std::size_t n, double bytes, double flops,
                             Run&& run_whole) {
  const detail::timing one = on_rank_0(s, [&] { run_whole(); });
  const std::string name = "one rank: " + local_id;
  row r = row_of(what, {name, backend::mpi, 0, ""}, group, dtype, op, n, one);
  r.verified = true;  // the reference's own rung family; its answer is not rechecked here
  r.note = "rank 0 alone, the whole " + std::string(flops > 0 ? "product" : "array") +
           ": the scaling baseline";
  rate(s, r, bytes, flops);
  s.out.rows.push_back(r);
  if (mpi_local() != backend::cpu) return;
  int threads = omp_get_max_threads(), all = 0;
  const std::vector<std::byte> each = job().gather_to_root(&threads, sizeof threads);
  for (std::size_t i = 0; i + sizeof(int) <= each.size(); i += sizeof(int)) {
    int t = 0;
    std::memcpy(&t, each.data() + i, sizeof t);
    all += t;
  }
  share(all);
  const int before = omp_get_max_threads();
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const int cores = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : all;
  if (job().rank() == 0) omp_set_num_threads(all);
  const detail::timing cpu = on_rank_0(s, [&] { run_whole(); });
  if (job().rank() == 0) omp_set_num_threads(before);
  row c = row_of(
      what, {"cpu backend, " + std::to_string(all) + " threads, one process", backend::mpi, -1, ""},
      group, dtype, op, n, cpu);
  c.verified = true;
  c.note = "the job's threads in one process (meaningful when the ranks share a host)";
  int bound = cores;
  share(bound);  // rank 0's
  if (bound < all)
    c.add_note("rank 0 may use only " + std::to_string(bound) +
               " cores (the launcher's binding: mpirun --bind-to none lifts it)");
  rate(s, c, bytes, flops);
  s.out.rows.push_back(c);
}

bool wanted(const session& s, const detail::rung_info& v) {
  return v.where == backend::mpi && s.wants(v.pattern(), backend::mpi) && wants_rung(s.opts, v);
}

void reduce_rows(session& s) {
  const std::size_t n = scale_of(s.opts.scale).n;
  for (auto [t, o] : {std::pair{dtype::f32, op::sum}, {dtype::i32, op::sum}}) {
    const std::size_t w = size_of(t);
    const detail::part mine = detail::part_of(n, job().rank(), job().ranks());
    std::vector<std::byte> part(mine.count * w + 1);
    detail::generate(t, part.data(), mine.count, detail::distribution::uniform, 42, mine.first);
    const std::string group = std::string(name_of(t)) + " " + std::string(name_of(o)) +
                              " n=" + pow2_label(n) + " on " + std::to_string(job().ranks()) +
                              " ranks";
    const detail::reduce_problem whole{t, o, n}, local{t, o, mine.count};
    s.progress("reference and one rank for " + group);
    std::unique_ptr<std::byte[]> all;
    scalar ref;
    double scale = 0;
    const auto& local_rung = detail::default_rung<detail::reduce_rung>(mpi_local(), whole);
    if (job().rank() == 0) {
      all.reset(new std::byte[n * w + 1]);
      detail::generate(t, all.get(), n, detail::distribution::uniform, 42);
      ref = detail::run_rung(*detail::find<detail::reduce_rung>("reduce/seq/r01_sequential_loop"),
                             whole, all.get());
      visit_dtype(t, [&](auto tag) {
        using T = decltype(tag);
        const T* x = reinterpret_cast<const T*>(all.get());
        for (std::size_t i = 0; i < n; ++i) scale += std::abs(double(x[i]));
      });
    }
    share(ref), share(scale);
    add_single_process_rows(
        s, "reduce", std::string(local_rung.info.id), group, std::string(name_of(t)),
        std::string(name_of(o)), n, double(n * w), 0,
        [&] { detail::run_rung(local_rung, detail::executor_for(mpi_local()), whole, all.get()); });
    all.reset();
    for (const auto& r : detail::rungs_of<detail::reduce_rung>()) {
      if (!wanted(s, r.info)) continue;
      s.progress(std::string(r.info.id) + " (" + group + ")");
      scalar got;
      const detail::timing tm = job().time(
          [&] {
            r.run({local, part.data(), &got, nullptr, nullptr});
          },
          s.plan(5));
      double err = 0;
      const bool ok = every_rank(detail::close_enough(got, ref, scale, n, false, err));
      row out = row_of(r.info, group, std::string(name_of(t)), std::string(name_of(o)), n, tm);
      out.verified = ok, out.max_rel_err = err;
      if (!r.info.reproducible) out.note = "float order is the library's: not reproducible";
      rate(s, out, double(n * w), 0);
      s.out.rows.push_back(out);
    }
  }
}

void histogram_rows(session& s) {
  const std::size_t big = scale_of(s.opts.scale).n;
  // The last problem has few values for its bins: its time is the combine's (8 MiB of counts).
  for (auto [bins, n] : {std::pair{std::size_t(1024), big},
                         {std::size_t(1) << 20, big},
                         {std::size_t(1) << 20, std::size_t(1) << 14}}) {
    const dtype t = dtype::f32;
    const detail::part mine = detail::part_of(n, job().rank(), job().ranks());
    std::vector<std::byte> part(mine.count * 4 + 1);
    detail::generate(t, part.data(), mine.count, detail::distribution::uniform, 7, mine.first);
    const std::string group = "f32 " + pow2_label(bins) + " bins n=" + pow2_label(n) + " on " +
                              std::to_string(job().ranks()) + " ranks";
    const detail::histogram_problem whole{t, n, bins, 0.0, 1.0, false, false};
    detail::histogram_problem local = whole;
    local.n = mine.count;
    s.progress("reference and one rank for " + group);
    std::vector<std::uint64_t> ref(detail::slots(whole)), scratch(ref.size());
    std::unique_ptr<std::byte[]> all;
    const auto& local_rung = detail::default_rung<detail::histogram_rung>(mpi_local(), whole);
    if (job().rank() == 0) {
      all.reset(new std::byte[n * 4 + 1]);
      detail::generate(t, all.get(), n, detail::distribution::uniform, 7);
      detail::run_rung(*detail::find<detail::histogram_rung>("histogram/seq/h01_sequential"), whole,
                       all.get(), ref.data());
    }
    job().barrier();
    job().broadcast_from_root(ref.data(), ref.size() * 8);
    add_single_process_rows(s, "histogram", std::string(local_rung.info.id), group, "f32",
                            "histogram", n, double(n * 4), 0, [&] {
                              detail::run_rung(local_rung, detail::executor_for(mpi_local()), whole,
                                               all.get(), scratch.data());
                            });
    all.reset();
    for (const auto& r : detail::rungs_of<detail::histogram_rung>()) {
      if (!wanted(s, r.info)) continue;
      s.progress(std::string(r.info.id) + " (" + group + ")");
      std::vector<std::uint64_t> got(ref.size());
      const detail::timing tm = job().time(
          [&] {
            r.run({local, part.data(), got.data(), nullptr, nullptr});
          },
          s.plan(5));
      row out = row_of(r.info, group, "f32", "histogram", n, tm);
      out.verified = every_rank(got == ref), out.max_rel_err = 0;
      rate(s, out, double(n * 4), 0);
      s.out.rows.push_back(out);
    }
  }
}

void matmul_rows(session& s) {
  const std::size_t n = scale_of(s.opts.scale).matmul;
  const dtype t = dtype::f32;
  const matmul_blocks mine =
      matmul_blocks_of(backend::mpi, n, n, n);
  const std::vector<float> a = generated_block(mine.a, n, 1), b = generated_block(mine.b, n, 2);
  std::vector<float> c(mine.c.rows * mine.c.cols + 1);
  const std::string group =
      "f32 " + std::to_string(n) + "^3 on " + std::to_string(job().ranks()) + " ranks";
  const double flops = 2.0 * double(n) * double(n) * double(n);
  const detail::matmul_problem whole{t, n, n, n};
  std::vector<float> wa, wb, wc;
  if (job().rank() == 0) {
    wa.resize(n * n), wb.resize(n * n), wc.resize(n * n);
    detail::generate(t, wa.data(), n * n, detail::distribution::uniform, 1);
    detail::generate(t, wb.data(), n * n, detail::distribution::uniform, 2);
  }
  const auto& local_rung = detail::default_rung<detail::matmul_rung>(mpi_local(), whole);
  s.progress("one rank for " + group);
  add_single_process_rows(s, "matmul", std::string(local_rung.info.id), group, "f32", "gemm",
                          n * n * n, 0, flops, [&] {
                            detail::run_rung(local_rung, detail::executor_for(mpi_local()),
                                             {whole, 1.0, 0.0, wa.data(), n, wb.data(), n,
                                              wc.data(), n, nullptr, nullptr});
                          });
  for (const auto& r : detail::rungs_of<detail::matmul_rung>()) {
    if (!wanted(s, r.info)) continue;
    s.progress(std::string(r.info.id) + " (" + group + ")");
    const detail::timing tm = job().time(
        [&] {
          r.run({whole, 1.0, 0.0, a.data(), mine.a.cols, b.data(), mine.b.cols, c.data(),
                 mine.c.cols, nullptr, nullptr});
        },
        s.plan(3));
    const std::vector<std::byte> whole_c = gather_c(backend::mpi, c.data(), n, n, n, 4);
    double err = 0;
    if (job().rank() == 0)
      err =
          freivalds(wa.data(), wb.data(), reinterpret_cast<const float*>(whole_c.data()), n, n, n);
    share(err);
    row out = row_of(r.info, group, "f32", "gemm", n * n * n, tm);
    out.max_rel_err = err;
    out.verified = !std::isnan(err) && err <= detail::dot_tolerance(n, t);
    if (!out.verified) out.note = "Freivalds' check failed";
    rate(s, out, 0, flops);
    s.out.rows.push_back(out);
  }
}

}  // namespace

std::vector<std::string> planned_mpi(const settings& s) { return planned_of(s, backend::mpi); }

void run_mpi_case(session& s) {
  if (!s.wants("reduce", backend::mpi) && !s.wants("histogram", backend::mpi) &&
      !s.wants("matmul", backend::mpi))
    return;
  s.measure(job());
  if (s.wants("reduce", backend::mpi)) reduce_rows(s);
  if (s.wants("histogram", backend::mpi)) histogram_rows(s);
  if (s.wants("matmul", backend::mpi)) matmul_rows(s);
}

}  // namespace pplab::lab
