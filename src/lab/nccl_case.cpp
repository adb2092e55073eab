// The lab's nccl case: the ladders of combines for reduce and histogram and the row split of
// matmul, on data already in the GPUs' memory (an array split evenly over them; the lab's
// matrices split by whole rows), in one process driving every GPU; under mpirun (one process per
// GPU) the matmul rungs of a job, on each process's blocks. Beside them, in the same run:
// one GPU alone on the whole problem with the cuda backend's best rung (rung 0 of the table, timed
// the same way: the ratio column is the scaling from 1 GPU to all), the GPUs' ceilings (one GPU's
// read and multiply-add rates times the GPU count) and the links' (peer copy, all-reduce bus
// bandwidth, 4-byte all-reduce latency: the executor's). A last reduce problem of 2^20 values per
// GPU shows the latency of a whole call beside the 4-byte all-reduce's.
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/generate.hpp"
#include "core/host/host_executor.hpp"
#include "core/run.hpp"
#include "core/verify.hpp"
#include "histogram/binning.hpp"
#include "lab/freivalds.hpp"
#include "lab/lab_loop.hpp"
#include "matmul/rung.hpp"
#include "reduce/rung.hpp"

namespace pplab::lab {
namespace {

detail::executor& gpus() { return detail::executor_for(backend::nccl); }
detail::executor& one_gpu() { return detail::executor_for(backend::cuda); }

struct scales {
  std::size_t per_gpu, matmul;
};
scales scale_of(size s) {
  switch (s) {
  case size::full:
    return {std::size_t(1) << 30, 16384};
  case size::quick:
    return {std::size_t(1) << 24, 2048};
  default:
    return {std::size_t(1) << 16, 96};
  }
}

bool wanted(const session& s, const detail::rung_info& v) {
  return v.where == backend::nccl && s.wants(v.pattern(), backend::nccl) && wants_rung(s.opts, v);
}

void rate(session& s, row& r, bool one, double bytes, double flops) {
  if (flops > 0) {
    r.GFLOPs = flops / (r.median_ms * 1e-3) * 1e-9;
    r.ceiling = one ? "gpu_fp32_GFLOPs" : "nccl_fp32_GFLOPs";
    r.pct_of_ceiling = 100 * r.GFLOPs / s.ceiling(r.ceiling);
  } else {
    r.GBps = bytes / (r.median_ms * 1e-3) * 1e-9;
    r.ceiling = one ? "gpu_read_GBps" : "nccl_read_GBps";
    r.pct_of_ceiling = 100 * r.GBps / s.ceiling(r.ceiling);
  }
}

std::string on_gpus() { return " on " + std::to_string(detail::nccl_gpu_count()) + " GPUs"; }

// Rung 0 of a problem: one GPU alone on the whole of it, timed as the nccl rows are (the host's
// clock around the call and the wait for its end, every L2 flushed before), so that the ratio
// is the scaling of a whole call; its GPU time alone (CUDA events) goes in the note.
template <class Run>
void one_gpu_row(session& s, std::string_view what, std::string_view id, const std::string& group,
                 const std::string& dtype, const std::string& op, std::size_t n, double bytes,
                 double flops, Run&& run) {
  const detail::timing t = gpus().time(
      [&] {
        run();
        one_gpu().synchronize();
      },
      s.plan(3));
  const detail::timing events = one_gpu().time(run, s.plan(3));
  row r =
      row_of(what, {"one GPU: " + std::string(id), backend::nccl, 0, ""}, group, dtype, op, n, t);
  r.verified = true;  // the cuda ladder's own rung, verified in its own case
  char gpu_time[96];
  std::snprintf(gpu_time, sizeof gpu_time, "; its GPU time alone %.3f ms", events.median_s * 1e3);
  r.note = "GPU 0 alone on the whole problem, a whole call: the scaling baseline" +
           std::string(gpu_time);
  rate(s, r, true, bytes, flops);
  s.out.rows.push_back(r);
}

void reduce_rows(session& s) {
  const std::size_t per_gpu = scale_of(s.opts.scale).per_gpu, g = detail::nccl_gpu_count();
  for (std::size_t n : {per_gpu * g, (std::size_t(1) << 20) * g}) {
    if (n != per_gpu * g && s.opts.scale == size::tiny) continue;
    const dtype t = dtype::f32;
    const op o = op::sum;
    const std::string group = "f32 sum n=" + pow2_label(n / g) + " per GPU" + on_gpus();
    s.progress("data and reference for " + group);
    std::unique_ptr<float[]> host(new float[n]);
    detail::generate(t, host.get(), n, detail::distribution::uniform, 42);
    const detail::reduce_problem p{t, o, n};
    const scalar ref = detail::run_rung(
        *detail::find<detail::reduce_rung>("reduce/seq/r01_sequential_loop"), p, host.get());
    double scale = 0;
    for (std::size_t i = 0; i < n; ++i) scale += std::abs(double(host[i]));
    {
      const auto& best = detail::default_rung<detail::reduce_rung>(backend::cuda, p);
      detail::buffer in(one_gpu(), n * 4), out(one_gpu(), 256);
      one_gpu().copy_in(in.get(), host.get(), n * 4);
      detail::buffer scratch = detail::scratch_for(one_gpu(), best.scratch(p));
      s.progress("one GPU for " + group);
      one_gpu_row(s, "reduce", best.info.id, group, "f32", "sum", n, double(n * 4), 0, [&] {
        best.run({p, in.get(), out.as<scalar>(), scratch.get(), one_gpu().stream()});
      });
    }
    detail::buffer in(gpus(), n * 4), out(gpus(), 256);
    gpus().copy_in(in.get(), host.get(), n * 4);
    host.reset();
    for (const auto& r : detail::rungs_of<detail::reduce_rung>()) {
      if (!wanted(s, r.info) || !r.can_run(p)) continue;
      s.progress(std::string(r.info.id) + " (" + group + ")");
      const detail::timing tm = gpus().time(
          [&] {
            r.run({p, in.get(), out.as<scalar>(), nullptr, nullptr});
          },
          s.plan(3));
      scalar got;
      gpus().copy_out(&got, out.get(), sizeof got);
      double err = 0;
      row w = row_of(r.info, group, "f32", "sum", n, tm);
      w.verified = detail::close_enough(got, ref, scale, n, false, err);
      w.max_rel_err = err;
      if (!r.info.reproducible) w.note = "float order is NCCL's: not reproducible";
      rate(s, w, false, double(n * 4), 0);
      if (n != per_gpu * g)
        w.add_note("a whole call: " + std::to_string(int(w.median_ms * 1e3)) +
                   " us, beside the 4-byte all-reduce's " +
                   std::to_string(int(s.ceiling("nccl_latency_us"))) + " us");
      s.out.rows.push_back(w);
    }
  }
}

void histogram_rows(session& s) {
  const std::size_t g = detail::nccl_gpu_count(), n = scale_of(s.opts.scale).per_gpu * g;
  for (std::size_t bins : {std::size_t(1024), std::size_t(1) << 20}) {
    const dtype t = dtype::f32;
    const std::string group =
        "f32 " + pow2_label(bins) + " bins n=" + pow2_label(n / g) + " per GPU" + on_gpus();
    s.progress("data and reference for " + group);
    std::unique_ptr<float[]> host(new float[n]);
    detail::generate(t, host.get(), n, detail::distribution::uniform, 7);
    const detail::histogram_problem p{t, n, bins, 0.0, 1.0, false, false};
    const std::size_t width = detail::slots(p);
    std::vector<std::uint64_t> ref(width), got(width);
    detail::run_rung(*detail::find<detail::histogram_rung>("histogram/seq/h01_sequential"), p,
                     host.get(), ref.data());
    {
      const auto& best = detail::default_rung<detail::histogram_rung>(backend::cuda, p);
      detail::buffer in(one_gpu(), n * 4), counts(one_gpu(), width * 8);
      one_gpu().copy_in(in.get(), host.get(), n * 4);
      detail::buffer scratch = detail::scratch_for(one_gpu(), best.scratch(p));
      s.progress("one GPU for " + group);
      one_gpu_row(
          s, "histogram", best.info.id, group, "f32", "histogram", n, double(n * 4), 0, [&] {
            best.run({p, in.get(), counts.as<std::uint64_t>(), scratch.get(), one_gpu().stream()});
          });
    }
    detail::buffer in(gpus(), n * 4), counts(gpus(), width * 8);
    gpus().copy_in(in.get(), host.get(), n * 4);
    host.reset();
    for (const auto& r : detail::rungs_of<detail::histogram_rung>()) {
      if (!wanted(s, r.info) || !r.can_run(p)) continue;
      s.progress(std::string(r.info.id) + " (" + group + ")");
      gpus().fill(counts.get(), 0xab, width * 8);  // poison: the rung must write every slot
      const detail::timing tm = gpus().time(
          [&] {
            r.run({p, in.get(), counts.as<std::uint64_t>(), nullptr, nullptr});
          },
          s.plan(3));
      gpus().copy_out(got.data(), counts.get(), width * 8);
      row w = row_of(r.info, group, "f32", "histogram", n, tm);
      w.verified = got == ref, w.max_rel_err = 0;
      rate(s, w, false, double(n * 4), 0);
      s.out.rows.push_back(w);
    }
  }
}

// A row of an f32 n^3 product, verified by Freivalds' relative error `err`.
void gemm_row(session& s, const detail::rung_info& v, const std::string& group, std::size_t n,
              const detail::timing& tm, double err) {
  row w = row_of(v, group, "f32", "gemm", n * n * n, tm);
  w.max_rel_err = err;
  w.verified = !std::isnan(err) && err <= detail::dot_tolerance(n, dtype::f32);
  if (!w.verified) w.note = "Freivalds' check failed";
  rate(s, w, false, 0, 2.0 * double(n) * double(n) * double(n));
  s.out.rows.push_back(w);
}

void matmul_rows(session& s) {
  const std::size_t n = scale_of(s.opts.scale).matmul;
  const dtype t = dtype::f32;
  const std::string group = "f32 " + std::to_string(n) + "^3" + on_gpus();
  const double flops = 2.0 * double(n) * double(n) * double(n);
  s.progress("data for " + group);
  std::vector<float> a(n * n), b(n * n), c(n * n);
  detail::generate(t, a.data(), n * n, detail::distribution::uniform, 1);
  detail::generate(t, b.data(), n * n, detail::distribution::uniform, 2);
  const detail::matmul_problem p{t, n, n, n};
  const std::size_t bytes = n * n * 4;
  {
    const auto& best = detail::default_rung<detail::matmul_rung>(backend::cuda, p);
    detail::buffer da(one_gpu(), bytes), db(one_gpu(), bytes), dc(one_gpu(), bytes);
    one_gpu().copy_in(da.get(), a.data(), bytes);
    one_gpu().copy_in(db.get(), b.data(), bytes);
    detail::buffer scratch = detail::scratch_for(one_gpu(), best.scratch(p));
    s.progress("one GPU for " + group);
    one_gpu_row(s, "matmul", best.info.id, group, "f32", "gemm", n * n * n, 0, flops, [&] {
      best.run(
          {p, 1.0, 0.0, da.get(), n, db.get(), n, dc.get(), n, scratch.get(), one_gpu().stream()});
    });
  }
  // Split evenly by bytes: whole rows on each GPU when the GPU count divides the rows' bytes.
  detail::buffer da(gpus(), bytes), db(gpus(), bytes), dc(gpus(), bytes);
  gpus().copy_in(da.get(), a.data(), bytes);
  gpus().copy_in(db.get(), b.data(), bytes);
  for (const auto& r : detail::rungs_of<detail::matmul_rung>()) {
    if (!wanted(s, r.info) || !r.can_run(p)) continue;
    s.progress(std::string(r.info.id) + " (" + group + ")");
    gpus().fill(dc.get(), 0xff, bytes);  // NaN: beta = 0 must not read C
    const detail::timing tm = gpus().time(
        [&] {
          r.run({p, 1.0, 0.0, da.get(), n, db.get(), n, dc.get(), n, nullptr, nullptr});
        },
        s.plan(3));
    gpus().copy_out(c.data(), dc.get(), bytes);
    const double err = freivalds(a.data(), b.data(), c.data(), n, n, n);
    gemm_row(s, r.info, group, n, tm, err);
  }
}

// Under mpirun, one process per GPU: the rungs that run in a job (SUMMA on each process's blocks,
// as the mpi backend lays them out), beside rank 0's GPU alone on the whole product. Every rank
// generates only its blocks; rank 0 also the whole matrices, for its row and Freivalds' check.
void job_matmul_rows(session& s) {
  const std::size_t n = scale_of(s.opts.scale).matmul;
  const dtype t = dtype::f32;
  const bool root = gpus().rank() == 0;
  const matmul_blocks mine =
      matmul_blocks_of(backend::nccl, n, n, n);
  const std::string group = "f32 " + std::to_string(n) + "^3 on " + std::to_string(gpus().ranks()) +
                            " processes, one GPU each";
  const double flops = 2.0 * double(n) * double(n) * double(n);
  const detail::matmul_problem p{t, n, n, n};
  const std::size_t bytes = n * n * 4;
  std::vector<float> wa(root ? n * n : 0), wb(root ? n * n : 0), wc(root ? n * n : 0);
  if (root) {
    detail::generate(t, wa.data(), n * n, detail::distribution::uniform, 1);
    detail::generate(t, wb.data(), n * n, detail::distribution::uniform, 2);
  }
  {
    const auto& best = detail::default_rung<detail::matmul_rung>(backend::cuda, p);
    const std::size_t mine_bytes = root ? bytes : 0;
    detail::buffer da(one_gpu(), mine_bytes), db(one_gpu(), mine_bytes), dc(one_gpu(), mine_bytes);
    if (root) {
      one_gpu().copy_in(da.get(), wa.data(), bytes);
      one_gpu().copy_in(db.get(), wb.data(), bytes);
    }
    detail::buffer scratch = detail::scratch_for(one_gpu(), root ? best.scratch(p) : 0);
    s.progress("one GPU for " + group);
    one_gpu_row(s, "matmul", best.info.id, group, "f32", "gemm", n * n * n, 0, flops, [&] {
      if (root)
        best.run({p, 1.0, 0.0, da.get(), n, db.get(), n, dc.get(), n, scratch.get(),
                  one_gpu().stream()});
    });
  }
  const std::vector<float> a = generated_block(mine.a, n, 1), b = generated_block(mine.b, n, 2);
  std::vector<float> c(mine.c.rows * mine.c.cols + 1);
  detail::buffer da(gpus(), mine.a.rows * mine.a.cols * 4),
      db(gpus(), mine.b.rows * mine.b.cols * 4), dc(gpus(), mine.c.rows * mine.c.cols * 4);
  gpus().copy_in(da.get(), a.data(), da.size());
  gpus().copy_in(db.get(), b.data(), db.size());
  for (const auto& r : detail::rungs_of<detail::matmul_rung>()) {
    if (!wanted(s, r.info) || !r.can_run(p)) continue;
    s.progress(std::string(r.info.id) + " (" + group + ")");
    gpus().fill(dc.get(), 0xff, dc.size());  // NaN: beta = 0 must not read C
    const detail::timing tm = gpus().time(
        [&] {
          r.run({p, 1.0, 0.0, da.get(), mine.a.cols, db.get(), mine.b.cols, dc.get(), mine.c.cols,
                 nullptr, nullptr});
        },
        s.plan(3));
    gpus().copy_out(c.data(), dc.get(), dc.size());
    const std::vector<std::byte> whole_c = gather_c(backend::nccl, c.data(), n, n, n, 4);
    double err = 0;
    if (root)
      err =
          freivalds(wa.data(), wb.data(), reinterpret_cast<const float*>(whole_c.data()), n, n, n);
    gpus().broadcast_from_root(&err, sizeof err);
    gemm_row(s, r.info, group, n, tm, err);
  }
}

}  // namespace

// The rungs that can run the case's f32 problems in this launch (one process driving every GPU,
// or a job of one process per GPU: its matmul rungs differ).
std::vector<std::string> planned_nccl(const settings& s) {
  std::vector<std::string> out;
  const bool job = detail::executor_for(backend::nccl).ranks() > 1;  // its matmul alone
  for (std::string& id : planned_of(s, backend::nccl)) {
    const detail::matmul_rung* m = detail::find<detail::matmul_rung>(id);
    if (m ? !m->can_run({dtype::f32, 1, 1, 1}) : job) continue;
    out.push_back(std::move(id));
  }
  return out;
}

void run_nccl_case(session& s) {
  if (!s.wants("reduce", backend::nccl) && !s.wants("histogram", backend::nccl) &&
      !s.wants("matmul", backend::nccl))
    return;
  if (gpus().ranks() > 1) {
    s.progress("a job of one process per GPU: its matmul (the other patterns' rows run in one "
               "process driving every GPU, without mpirun)");
    s.measure(one_gpu());
    s.measure(gpus());
    if (s.wants("matmul", backend::nccl)) job_matmul_rows(s);
    return;
  }
  s.measure(one_gpu());
  s.measure(gpus());
  if (s.wants("reduce", backend::nccl)) reduce_rows(s);
  if (s.wants("histogram", backend::nccl)) histogram_rows(s);
  if (s.wants("matmul", backend::nccl)) matmul_rows(s);
}

}  // namespace pplab::lab
