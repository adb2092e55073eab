// The lab's matmul case: C = A*B, verified by Freivalds' check (C x against A (B x) in double,
// O(n^2) instead of an O(n^3) reference) with the tolerance of core/verify.hpp; GFLOP/s against
// the multiply-add peak of the type (f64 on a GPU: its tensor cores' peak, where measured). Every
// backend gets square f32 matrices and a square matrix times a vector each way (A x, x B: read
// once, so held against the read ceiling); the device backends also get the GPU ladder's shapes
// (square at 1024, 4096 and 8192, the odd 4093, the two skinny products, f64 at 1024, 2048 and
// 4096, and the vector products at 16384 in f32 and f64).
// Split over a job's ranks: f32 1024^3 (4096^3 in a full run) in SUMMA's blocks; over a host's
// GPUs: f32 2048^3 (16384^3), split by whole rows in one process, or in SUMMA's blocks in a job of
// one process per GPU.
#include <algorithm>
#include <cmath>

#include "core/generate.hpp"
#include "core/host/host_executor.hpp"
#include "core/verify.hpp"
#include "lab/freivalds.hpp"
#include "lab/lab_loop.hpp"
#include "matmul/rung.hpp"

namespace pplab::lab {
namespace {

struct matmul_case {
  using rung_type = detail::matmul_rung;
  static constexpr int host_min_reps = 3;
  using problem = lab_problem<detail::matmul_problem>;

  // batch > 1: a stack of that many products, each matrix its own (torch.bmm's problem).
  static problem gemm(dtype t, std::size_t m, std::size_t n, std::size_t k, bool device_only,
                      std::size_t batch = 1) {
    const double bytes = double(batch) * double(m * k + k * n + m * n) * double(size_of(t));
    problem pr{{t, m, n, k, batch},
               std::string(name_of(t)) + " " +
                   (batch > 1 ? std::to_string(batch) + " x " : std::string()) + std::to_string(m) +
                   "x" + std::to_string(n) + "x" + std::to_string(k),
               std::string(name_of(t)),
               batch > 1 ? "stack" : "gemm",
               batch * m * n * k,
               bytes,
               2.0 * double(batch) * double(m) * double(n) * double(k),
               false,
               detail::distribution::uniform,
               std::nullopt,
               {}};
    pr.device_only = device_only;
    if (m == 1 || n == 1) {  // a vector: a reduction bound by reading the matrix once
      pr.op = "gemv";
      pr.flops = 0;
      pr.note =
          m == 1 ? "x B: held against the read ceiling" : "A x: held against the read ceiling";
    }
    return pr;
  }

  std::vector<problem> problems(const settings& opts) const {
    const size s = opts.scale;
    const std::size_t e = s == size::full ? 2048 : (s == size::quick ? 512 : 64);
    std::vector<problem> out{gemm(dtype::f32, e, e, e, false)};
    // A small product, as a stack's are: the size where packing does not pay (cpu m06).
    if (s != size::tiny) out.push_back(gemm(dtype::f32, 64, 64, 64, false));
    // Matrix times vector and vector times matrix (numpy.matmul with a 1-D operand).
    const std::size_t v = s == size::full ? 8192 : (s == size::quick ? 4096 : 96);
    out.push_back(gemm(dtype::f32, v, 1, v, false));
    out.push_back(gemm(dtype::f32, 1, v, v, false));
    // Points times a 3 x 3 matrix (numpy's `points @ R`): bound by moving A and C, not by its
    // multiply-adds (cpu m07).
    problem tall = gemm(dtype::f32, s == size::full ? 1 << 24 : (s == size::quick ? 1 << 20 : 4099),
                        3, 3, false);
    tall.roofline = true;
    tall.note = "points @ R: held against moving A and C";
    out.push_back(tall);
    if (s == size::full) {
      for (dtype t : {dtype::f32, dtype::f64}) {
        out.push_back(gemm(t, 16384, 1, 16384, true));
        out.push_back(gemm(t, 1, 16384, 16384, true));
      }
      for (std::size_t d : {1024, 4096, 4093, 8192}) out.push_back(gemm(dtype::f32, d, d, d, true));
      out.push_back(gemm(dtype::f32, 8192, 8192, 128, true));
      out.push_back(gemm(dtype::f32, 128, 8192, 8192, true));
      for (std::size_t d : {1024, 2048, 4096}) out.push_back(gemm(dtype::f64, d, d, d, true));
      // Stacks (torch.bmm's): few big products, many small ones.
      out.push_back(gemm(dtype::f32, 512, 512, 512, true, 256));
      out.push_back(gemm(dtype::f32, 128, 128, 128, true, 4096));
      out.push_back(gemm(dtype::f64, 128, 128, 128, true, 1024));
    } else if (s == size::quick) {
      out.push_back(gemm(dtype::f32, 1021, 1021, 1021, true));  // odd: every edge ragged
      out.push_back(gemm(dtype::f64, 512, 512, 512, true));
      out.push_back(gemm(dtype::f32, 128, 128, 128, true, 512));
    } else {
      out.push_back(gemm(dtype::f64, 67, 45, 33, true));  // the f64-only rungs get a row too
      out.push_back(gemm(dtype::f32, 33, 45, 67, true, 5));
    }
    const auto split = [&](backend b, std::size_t d, const std::string& on) {
      problem pr = gemm(dtype::f32, d, d, d, false);
      pr.group = "f32 " + std::to_string(d) + "^3 on " + on;
      pr.split = b;
      out.push_back(pr);
    };
    if (wants(opts, "matmul", backend::mpi))
      split(backend::mpi, s == size::full ? 4096 : (s == size::quick ? 1024 : 96),
            std::to_string(detail::executor_for(backend::mpi).ranks()) + " ranks");
    if (wants(opts, "matmul", backend::nccl)) {
      const detail::executor& gpus = detail::executor_for(backend::nccl);
      split(backend::nccl, s == size::full ? 16384 : (s == size::quick ? 2048 : 96),
            gpus.ranks() > 1 ? std::to_string(gpus.ranks()) + " processes, one GPU each"
                             : std::to_string(detail::nccl_gpu_count()) + " GPUs");
    }
    return out;
  }

  // The matrices in the problem's type (the other pair empty).
  struct host_data {
    std::vector<float> a32, b32;
    std::vector<double> a64, b64;
    const void* a() const { return a32.empty() ? (const void*)a64.data() : a32.data(); }
    const void* b() const { return b32.empty() ? (const void*)b64.data() : b32.data(); }
  };
  host_data prepare(const problem& pr) const {
    host_data h;
    const std::size_t na = pr.p.batch * pr.p.m * pr.p.k, nb = pr.p.batch * pr.p.k * pr.p.n;
    if (pr.p.type == dtype::f32) h.a32.resize(na), h.b32.resize(nb);
    else h.a64.resize(na), h.b64.resize(nb);
    detail::generate(pr.p.type, const_cast<void*>(h.a()), na, detail::distribution::uniform, 3);
    detail::generate(pr.p.type, const_cast<void*>(h.b()), nb, detail::distribution::uniform, 4);
    return h;
  }

  // A block of a row-major matrix of `cols` columns where an executor's rungs read it, packed
  // (its leading dimension its own width) unless it is the whole matrix.
  struct placed_block {
    std::vector<std::byte> packed;
    placed_input in;
  };
  static placed_block place_block(detail::executor& ex, const void* whole, std::size_t cols,
                                  const matrix_block& b, std::size_t e) {
    placed_block out;
    const auto* from = static_cast<const std::byte*>(whole);
    if (b.cols != cols) {
      out.packed.resize(b.rows * b.cols * e + 1);
      for (std::size_t i = 0; i < b.rows; ++i)
        std::copy_n(from + ((b.row0 + i) * cols + b.col0) * e, b.cols * e,
                    out.packed.data() + i * b.cols * e);
      from = out.packed.data();
    } else {
      from += b.row0 * cols * e;
    }
    out.in = place_input(ex, from, b.rows * b.cols * e);
    return out;
  }

  // This process's blocks of A, B and C: the whole matrices but in a job (SUMMA's grid).
  struct placed {
    matmul_blocks mine;
    placed_block a, b;
    detail::buffer c;
    detail::matmul_problem p;
  };
  // A stack: every product's matrices, one after another, as one tall matrix of each operand.
  placed place(detail::executor& ex, const problem& pr, const host_data& h) const {
    const auto& p = pr.p;
    const std::size_t e = size_of(p.type);
    if (p.batch > 1) {
      const std::size_t q = p.batch;
      const matmul_blocks whole{{0, p.m, 0, p.k}, {0, p.k, 0, p.n}, {0, p.m, 0, p.n}};
      return {whole, place_block(ex, h.a(), p.k, {0, q * p.m, 0, p.k}, e),
              place_block(ex, h.b(), p.n, {0, q * p.k, 0, p.n}, e),
              detail::buffer(ex, q * p.m * p.n * e), p};
    }
    const matmul_blocks mine = matmul_blocks_of(ex.kind(), p.m, p.n, p.k);
    return {mine, place_block(ex, h.a(), p.k, mine.a, e), place_block(ex, h.b(), p.n, mine.b, e),
            detail::buffer(ex, mine.c.rows * mine.c.cols * e), p};
  }
  detail::matmul_call call(const problem& pr, placed& pl, void* scratch, void* stream) const {
    return {pr.p,
            1.0,
            0.0,
            pl.a.in.data,
            pl.mine.a.cols,
            pl.b.in.data,
            pl.mine.b.cols,
            pl.c.get(),
            pl.mine.c.cols,
            scratch,
            stream,
            pr.p.m * pr.p.k,
            pr.p.k * pr.p.n,
            pr.p.m * pr.p.n};
  }
  void poison(detail::executor& ex, const problem&, placed& pl) const {
    ex.fill(pl.c.get(), 0xff, pl.c.size());  // NaN in every float
  }
  // In a job, every rank's block of C is gathered on rank 0, which checks it.
  verdict verify(detail::executor& ex, const problem& pr, const host_data& h, placed& pl,
                 const detail::rung_info& info) const {
    const auto& p = pr.p;
    const std::size_t e = size_of(p.type);
    std::vector<std::byte> c(pl.c.size() + 1);
    ex.copy_out(c.data(), pl.c.get(), pl.c.size());
    if (ex.ranks() > 1) c = gather_c(ex.kind(), c.data(), p.m, p.n, p.k, e);
    verdict v;
    if (ex.rank() != 0) {  // rank 0 speaks for the job
      v.ok = true, v.max_rel_err = 0;
      return v;
    }
    v.max_rel_err = 0;
    for (std::size_t q = 0; q < p.batch; ++q) {  // each product of a stack
      const std::size_t sa = q * p.m * p.k, sb = q * p.k * p.n, sc = q * p.m * p.n;
      const double err =
          p.type == dtype::f32
              ? freivalds(h.a32.data() + sa, h.b32.data() + sb,
                          reinterpret_cast<const float*>(c.data()) + sc, p.m, p.n, p.k)
              : freivalds(h.a64.data() + sa, h.b64.data() + sb,
                          reinterpret_cast<const double*>(c.data()) + sc, p.m, p.n, p.k);
      v.max_rel_err = std::isnan(err) ? err : std::max(v.max_rel_err, err);
      if (std::isnan(err)) break;
    }
    v.ok = !std::isnan(v.max_rel_err) &&
           v.max_rel_err <= (info.tf32_split ? detail::split_tf32_tolerance(p.k)
                                             : detail::dot_tolerance(p.k, p.type));
    if (!v.ok) v.note = "Freivalds' check failed";
    return v;
  }
  // cuBLAS DGEMM runs on the fp64 tensor cores: where the lab has no measure of them (a build
  // for a GPU before sm_90) the SIMT FMA peak does not bound it, and its row is shown without a
  // ceiling rather than above one.
  // m14 and m16 multiply f32 as three TF32 tensor-core products: each held against the peak of
  // the TF32 instructions it issues (mma.sync, wgmma) with all three counted (the SIMT fp32 peak
  // does not bound them).
  void extra_ceilings(session& s, detail::executor& ex, const problem& pr, row& out) const {
    const std::string tf32 = out.rung == "matmul/cuda/m16_f32_split_tf32_wgmma"
                                 ? "gpu_tf32_wgmma_GFLOPs"
                                 : "gpu_tf32_tensor_GFLOPs";
    const detail::matmul_rung* r = detail::find_by_id_or_end<detail::matmul_rung>(out.rung);
    if (r && r->info.tf32_split && !std::isnan(s.ceiling(tf32))) {
      out.ceiling = tf32;
      out.pct_of_ceiling = 100 * 3 * out.GFLOPs / s.ceiling(tf32);
      out.add_note("three TF32 products per multiply-add, all counted against the TF32 peak");
      return;
    }
    if (ex.host_memory() || pr.p.type != dtype::f64 || out.step != 0 ||
        out.ceiling == "gpu_fp64_tensor_GFLOPs")
      return;
    out.ceiling.clear();
    out.pct_of_ceiling = none;
    out.add_note("on the fp64 tensor cores: no SIMT ceiling bounds it");
  }
  // A stack on a GPU, also as a launch per product: the API's rung for one product, run on each
  // in turn (what a stack cost before m19), so that the stack rungs' lesson is measured.
  void extra_rows(session& s, detail::executor& ex, const problem& pr, const host_data& h) const {
    if (pr.p.batch < 2 || ex.host_memory() || ex.splits()) return;
    const detail::matmul_problem one{pr.p.type, pr.p.m, pr.p.n, pr.p.k};
    const detail::matmul_rung& r = detail::default_rung<detail::matmul_rung>(ex.kind(), one);
    const std::string name = "a launch per product: " + std::string(r.info.id);
    s.progress(name + " (" + pr.group + ")");
    placed pl = place(ex, pr, h);
    detail::buffer scratch = detail::scratch_for(ex, r.scratch(one));
    poison(ex, pr, pl);
    detail::matmul_call each = call(pr, pl, scratch.get(), ex.stream());
    each.p = one;
    const std::size_t e = size_of(one.type);
    const auto run_all = [&] {
      for (std::size_t q = 0; q < pr.p.batch; ++q) {
        detail::matmul_call c = each;
        c.a = static_cast<const char*>(each.a) + q * each.stride_a * e;
        c.b = static_cast<const char*>(each.b) + q * each.stride_b * e;
        c.c = static_cast<char*>(each.c) + q * each.stride_c * e;
        r.run(c);
      }
    };
    const detail::timing t = ex.time(run_all, s.plan(host_min_reps));
    const verdict v = agreed(ex, verify(ex, pr, h, pl, r.info));
    // its step the one rung's, so that a stack rung's ratio to the rung below is to this row
    row out = row_of(r.info.pattern(), {name, ex.kind(), r.info.step, ""}, pr.group, pr.dtype,
                     pr.op, pr.n, t);
    out.rung = name;
    out.verified = v.ok, out.max_rel_err = v.max_rel_err, out.note = v.note;
    out.add_note("the stack's products launched one by one: the baseline of the stack rungs");
    s.rate(out, ex, pr);
    s.out.rows.push_back(out);
  }
};

}  // namespace

void run_matmul_case(session& s) { run_case(s, matmul_case{}); }
std::vector<std::string> planned_matmul(const settings& s) { return planned(s, matmul_case{}); }

}  // namespace pplab::lab
