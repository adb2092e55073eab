// pplab::matmul: checks shapes, strides and overlap, picks the backend's rung, runs it.
#include <omp.h>

#include <atomic>
#include <exception>
#include <optional>
#include <string>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/pieces.hpp"
#include "matmul/mpi/grid.hpp"
#include "matmul/rung.hpp"
#include "pplab/device.hpp"
#include "pplab/interrupt.hpp"
#include "pplab/job.hpp"
#include "pplab/matmul.hpp"

namespace pplab {
namespace {

struct span_bytes {
  const char* begin;
  const char* end;
};
span_bytes extent(const void* p, std::size_t rows, std::size_t cols, std::size_t ld,
                  std::size_t elem) {
  const char* b = static_cast<const char*>(p);
  if (!rows || !cols) return {b, b};
  return {b, b + ((rows - 1) * ld + cols) * elem};
}
bool overlap(span_bytes x, span_bytes y) { return x.begin < y.end && y.begin < x.end; }

// The variant "split_tf32" names a precision rather than a rung: the first of the policy's split
// rungs for the problem that can run it and whose scratch fits the device's free memory (m16's
// is the operands split, twice their size), else the first that can run it.
std::string_view split_tf32_rung(backend where, const detail::matmul_problem& p) {
  if (p.type != dtype::f32)
    fail(errc::invalid_argument,
         "matmul: split_tf32 multiplies f32 matrices, not " + std::string(name_of(p.type)));
  if (const detail::matmul_rung* r = detail::first_fitting<detail::matmul_rung>(
          detail::split_tf32_policy(where, p), p, detail::free_bytes_when_asked(where),
          detail::find_by_id_or_end<detail::matmul_rung>))
    return r->info.id;
  fail(errc::unsupported, "matmul: split_tf32 runs on the cuda backend, on a GPU with TF32 tensor "
                          "cores (sm_80 on); not on backend " +
                              std::string(name_of(where)));
}

}  // namespace

namespace {

// One product's arguments, as this process holds them (its blocks in a job): the type, leading
// dimensions, pointers, device memory where `on_device`, and C apart from A and B.
void check_product(detail::executor& ex, dtype t, const matmul_blocks& mine, const void* a,
                   std::size_t lda, const void* b, std::size_t ldb, const void* c, std::size_t ldc,
                   bool on_device) {
  const std::size_t am = mine.a.rows, ak = mine.a.cols, bk = mine.b.rows, bn = mine.b.cols,
                    cm = mine.c.rows, cn = mine.c.cols;
  if (t != dtype::f32 && t != dtype::f64)
    fail(errc::invalid_argument,
         "matmul: dtype " + std::string(name_of(t)) + " is not supported; use f32 or f64");
  const auto check = [](const char* name, std::size_t ld, std::size_t cols) {
    if (ld < cols)
      fail(errc::invalid_argument, std::string("matmul: ld") + name + " = " + std::to_string(ld) +
                                       " is less than its column count " + std::to_string(cols));
  };
  check("a", lda, ak), check("b", ldb, bn), check("c", ldc, cn);
  if ((am && ak && !a) || (bk && bn && !b) || (cm && cn && !c))
    fail(errc::invalid_argument, "matmul: a matrix with elements has a null data pointer");
  if (on_device &&
      ((am && ak && !ex.holds(a)) || (bk && bn && !ex.holds(b)) || (cm && cn && !ex.holds(c))))
    fail(errc::invalid_argument, "matmul: a matrix is not in GPU memory; pass host matrices "
                                 "through pplab::matmul(pplab::backend::cuda, ...)");
  const std::size_t elem = size_of(t);
  const span_bytes cs = extent(c, cm, cn, ldc, elem);
  if (overlap(cs, extent(a, am, ak, lda, elem)) || overlap(cs, extent(b, bk, bn, ldb, elem)))
    fail(errc::invalid_argument, "matmul: C overlaps A or B; write the product to its own memory");
}

// `on_device`: a, b and c are in the memory of the cuda backend's GPU, and stay there.
void multiply(backend where, dtype t, std::size_t m, std::size_t n, std::size_t k, double alpha,
              const void* a, std::size_t lda, const void* b, std::size_t ldb, double beta, void* c,
              std::size_t ldc, const rung_choice& how, bool on_device) {
  detail::require_backend(where);
  // This process's blocks: the whole matrices, or one rank's on the mpi backend.
  detail::executor& ex = detail::executor_for(where);
  const matmul_blocks mine = detail::blocks_of(detail::grid_of(ex.rank(), ex.ranks()), m, n, k);
  lda = lda ? lda : mine.a.cols, ldb = ldb ? ldb : mine.b.cols, ldc = ldc ? ldc : mine.c.cols;
  // What every rank must agree on; only the backends of several processes read it, and
  // formatting it took a tenth of a short product's call from Python.
  std::string signature;
  if (where == backend::mpi || where == backend::nccl) {
    char numbers[96];
    std::snprintf(numbers, sizeof numbers, " alpha %.17g beta %.17g", alpha, beta);
    signature = "matmul " + std::string(name_of(t)) + " " + std::to_string(m) + "x" +
                std::to_string(n) + "x" + std::to_string(k) + numbers;
  }
  detail::agree_on_call(where, signature, 0,
                        [&] { check_product(ex, t, mine, a, lda, b, ldb, c, ldc, on_device); });
  // A GPU's grid holds at most 65535 blocks of rows, 8 rows each in the rungs of the smallest
  // tiles (grid_fits): a taller product (points @ R of 10^6 points) runs as products of at most
  // this many rows of C each, a whole number of 128-row tiles; each row's sums are as in one call.
  constexpr std::size_t gpu_rows_per_call = 4095 * 128;
  const std::size_t rows_per_call = where == backend::cuda ? gpu_rows_per_call : m;
  const std::size_t e = size_of(t);
  detail::together([&] {
    std::size_t i0 = 0;
    do {
      const std::size_t rows = std::min(rows_per_call, m - i0);
      const void* a_rows = static_cast<const char*>(a) + i0 * lda * e;
      void* c_rows = static_cast<char*>(c) + i0 * ldc * e;
      const detail::matmul_problem p{t, rows, n, k};
      const rung_choice named{how.rung == "split_tf32" ? split_tf32_rung(where, p) : how.rung,
                              how.ran};
      const detail::matmul_rung& r = detail::chosen_rung<detail::matmul_rung>(where, p, named);
      if (!on_device) {
        detail::run_rung(r, {p, alpha, beta, a_rows, lda, b, ldb, c_rows, ldc, nullptr, nullptr});
      } else {
        // No matmul rung counts in its scratch, so one that asks for none gets none: no
        // allocation and no zeroing launched before a short product (the vector rungs' 0.25 ms).
        detail::buffer scratch = r.scratch(p) ? detail::scratch_of(ex, r, p) : detail::buffer();
        r.run({p, alpha, beta, a_rows, lda, b, ldb, c_rows, ldc, scratch.get(), ex.stream()});
        ex.finish_in_place();
      }
      i0 += rows;
    } while (i0 < m);
  });
}

}  // namespace

void matmul(backend where, dtype t, std::size_t m, std::size_t n, std::size_t k, double alpha,
            const void* a, std::size_t lda, const void* b, std::size_t ldb, double beta, void* c,
            std::size_t ldc, const rung_choice& how) {
  multiply(where, t, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, how, false);
}

void matmul_device(dtype t, std::size_t m, std::size_t n, std::size_t k, double alpha,
                   const void* a, std::size_t lda, const void* b, std::size_t ldb, double beta,
                   void* c, std::size_t ldc, const rung_choice& how) {
  multiply(backend::cuda, t, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, how, true);
}

namespace {

// A stack of products (matmul_batched). On the cpu backend, a stack of small products is shared
// among the threads, one product to a thread at a time (its rung's own parallel regions then run
// on that one thread): a 128^3 product alone keeps two threads busy for a fraction of its time
// (packing, the edges), and a stack of them keeps every thread on whole products. A stack in GPU
// memory runs in one launch of a stack rung (m19). Larger products, and every other backend, run
// one after another, each with the whole machine. Small: detail::small_product (256^3).

// A stack in GPU memory run by one stack rung (the policy's: m19 or cuBLAS's strided batch; the
// split's, m14; or one the caller names), every product's matrices checked as one product's are
// (the first's and the last's: the strides between are checked by the caller). False where a
// single-product rung is named: the caller runs the products one by one.
bool stack_in_one_launch(dtype t, std::size_t batch, std::size_t m, std::size_t n, std::size_t k,
                         double alpha, const void* a, std::size_t lda, std::size_t stride_a,
                         const void* b, std::size_t ldb, std::size_t stride_b, double beta, void* c,
                         std::size_t ldc, std::size_t stride_c, const rung_choice& asked) {
  const detail::matmul_problem p{t, m, n, k, batch};
  const rung_choice how{asked.rung == "split_tf32" ? split_tf32_rung(backend::cuda, p) : asked.rung,
                        asked.ran};
  if (!how.rung.empty()) {
    const detail::matmul_rung* named = detail::find_by_id_or_end<detail::matmul_rung>(how.rung);
    if (named && !named->can_run(p)) return false;
  }
  detail::require_backend(backend::cuda);
  detail::executor& ex = detail::executor_for(backend::cuda);
  const matmul_blocks whole = detail::blocks_of({}, m, n, k);
  lda = lda ? lda : k, ldb = ldb ? ldb : n, ldc = ldc ? ldc : n;
  const std::size_t e = size_of(t), last = batch - 1;
  check_product(ex, t, whole, a, lda, b, ldb, c, ldc, true);
  check_product(ex, t, whole, static_cast<const char*>(a) + last * stride_a * e, lda,
                static_cast<const char*>(b) + last * stride_b * e, ldb,
                static_cast<char*>(c) + last * stride_c * e, ldc, true);
  const detail::matmul_rung& r = detail::chosen_rung<detail::matmul_rung>(backend::cuda, p, how);
  detail::buffer scratch = r.scratch(p) ? detail::scratch_of(ex, r, p) : detail::buffer();
  r.run({p, alpha, beta, a, lda, b, ldb, c, ldc, scratch.get(), ex.stream(), stride_a, stride_b,
         stride_c});
  ex.finish_in_place();
  return true;
}

void multiply_stack(backend where, dtype t, std::size_t batch, std::size_t m, std::size_t n,
                    std::size_t k, double alpha, const void* a, std::size_t lda,
                    std::size_t stride_a, const void* b, std::size_t ldb, std::size_t stride_b,
                    double beta, void* c, std::size_t ldc, std::size_t stride_c,
                    const rung_choice& how, bool on_device) {
  if (t != dtype::f32 && t != dtype::f64)
    fail(errc::invalid_argument,
         "matmul: dtype " + std::string(name_of(t)) + " is not supported; use f32 or f64");
  const std::size_t rows_c = ldc ? ldc : n;
  if (batch > 1 && m && n && stride_c < (m - 1) * rows_c + n)
    fail(errc::invalid_argument, "matmul: C's matrices overlap: stride_c " +
                                     std::to_string(stride_c) +
                                     " is less than one matrix's extent, " +
                                     std::to_string((m - 1) * rows_c + n) + " elements");
  const std::size_t e = size_of(t);
  const char *a0 = static_cast<const char*>(a), *b0 = static_cast<const char*>(b);
  char* c0 = static_cast<char*>(c);
  // The whole stacks' extents: no product may write where another reads.
  const auto stack = [&](const char* p, std::size_t stride, std::size_t rows, std::size_t cols,
                         std::size_t ld) {
    span_bytes s = extent(p, rows, cols, ld ? ld : cols, e);
    if (s.end != s.begin) s.end += (batch - 1) * stride * e;
    return s;
  };
  if (batch > 1) {
    const span_bytes cs = stack(c0, stride_c, m, n, ldc);
    if (overlap(cs, stack(a0, stride_a, m, k, lda)) || overlap(cs, stack(b0, stride_b, k, n, ldb)))
      fail(errc::invalid_argument,
           "matmul: C's stack overlaps A's or B's; write the products to their own memory");
  }
  if (batch == 0) return;
  if (on_device && batch > 1 &&
      stack_in_one_launch(t, batch, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c,
                          ldc, stride_c, how))
    return;
  const auto product = [&](std::size_t i, const rung_choice& h) {
    multiply(where, t, m, n, k, alpha, a0 + i * stride_a * e, lda, b0 + i * stride_b * e, ldb, beta,
             c0 + i * stride_c * e, ldc, h, on_device);
  };
  // The first product through the whole API: its checks, its rung chosen. A job's backends (mpi,
  // nccl) take every product so, each a call of the job's own. On one machine the others differ
  // from the first only by the strides checked above, and go straight to the same rung.
  std::string ran;
  product(0, {how.rung, &ran});
  if (how.ran) *how.ran = ran;
  if (where == backend::mpi || where == backend::nccl) {
    for (std::size_t i = 1; i < batch; ++i) product(i, {how.rung, nullptr});
    return;
  }
  const detail::matmul_rung& r = *detail::find_by_id_or_end<detail::matmul_rung>(ran);
  const detail::matmul_problem p{t, m, n, k};
  const auto call = [&](std::size_t i, void* scratch, void* stream) -> detail::matmul_call {
    return {p,
            alpha,
            beta,
            a0 + i * stride_a * e,
            lda ? lda : k,
            b0 + i * stride_b * e,
            ldb ? ldb : n,
            c0 + i * stride_c * e,
            ldc ? ldc : n,
            scratch,
            stream};
  };
  if (on_device) {
    detail::executor& ex = detail::executor_for(backend::cuda);
    for (std::size_t i = 1; i < batch; ++i) {
      detail::buffer scratch = r.scratch(p) ? detail::scratch_of(ex, r, p) : detail::buffer();
      r.run(call(i, scratch.get(), ex.stream()));
    }
    ex.finish_in_place();
    return;
  }
  const bool small = detail::small_product({t, m, n, k});
  // A vendor's rung (OpenBLAS) threads each product itself: its products are not shared.
  const bool over_threads =
      where == backend::cpu && small && omp_get_max_threads() > 1 && r.info.step >= 1;
  // A small product on the host is the rung's call alone (its scratch, if any, is the host's
  // run path's: run_rung), with a stop asked for every 256 products on the calling thread, not
  // for each: a check may take a lock (Python's GIL), which cost more than a 16^3 product. A
  // host stack on the cuda backend goes through run_rung, which copies each product's matrices
  // in and out: its rung reads GPU memory only.
  const bool host_rung = where == backend::seq || where == backend::cpu;
  const bool direct = host_rung && small && !r.scratch_bytes;
  const auto one = [&](std::size_t i) {
    if (direct) r.run(call(i, nullptr, nullptr));
    else detail::run_rung(r, call(i, nullptr, nullptr));
  };
  if (!over_threads) {
    for (std::size_t i = 1; i < batch; ++i) {
      if (direct && i % 256 == 0) stop_if_interrupted();
      one(i);
    }
    return;
  }
  std::exception_ptr failed;
  std::atomic<bool> stop{false};
  const int caller = omp_get_thread_num();  // 0: the team's first thread is the caller's
  // Products handed out in runs of at least 2^15 multiply-adds: one at a time, the shared
  // counter's traffic cost about as much as an 8^3 product.
  const int run = int(std::max<std::size_t>(1, (std::size_t(1) << 15) / std::max<std::size_t>(
                                                    1, m * n * k)));
#pragma omp parallel for schedule(dynamic, run)
  for (std::ptrdiff_t i = 1; i < std::ptrdiff_t(batch); ++i) {
    if (stop.load(std::memory_order_relaxed)) continue;
    try {
      if (direct && i % 256 == 0 && omp_get_thread_num() == caller) stop_if_interrupted();
      one(std::size_t(i));
    } catch (...) {
      stop.store(true, std::memory_order_relaxed);
#pragma omp critical(pplab_matmul_stack)
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
}

}  // namespace

void matmul_batched(backend where, dtype t, std::size_t batch, std::size_t m, std::size_t n,
                    std::size_t k, double alpha, const void* a, std::size_t lda,
                    std::size_t stride_a, const void* b, std::size_t ldb, std::size_t stride_b,
                    double beta, void* c, std::size_t ldc, std::size_t stride_c,
                    const rung_choice& how) {
  multiply_stack(where, t, batch, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc,
                 stride_c, how, false);
}

void matmul_batched_device(dtype t, std::size_t batch, std::size_t m, std::size_t n, std::size_t k,
                           double alpha, const void* a, std::size_t lda, std::size_t stride_a,
                           const void* b, std::size_t ldb, std::size_t stride_b, double beta,
                           void* c, std::size_t ldc, std::size_t stride_c, const rung_choice& how) {
  multiply_stack(backend::cuda, t, batch, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta,
                 c, ldc, stride_c, how, true);
}

matmul_blocks matmul_blocks_of(backend where, std::size_t m, std::size_t n, std::size_t k) {
  return detail::blocks_of(detail::grid_of(job_rank(where), job_ranks(where)), m, n, k);
}

std::vector<std::byte> gather_c(backend where, const void* block, std::size_t m, std::size_t n,
                                std::size_t k, std::size_t elem_bytes) {
  return detail::assemble_c(detail::executor_for(where), block, m, n, k, elem_bytes);
}

matmul_blocks mpi_matmul_blocks(std::size_t m, std::size_t n, std::size_t k) {
  detail::executor& ex = detail::executor_for(backend::mpi);
  if (!ex.usable()) return detail::blocks_of({}, m, n, k);
  return detail::blocks_of(detail::grid_of(ex.rank(), ex.ranks()), m, n, k);
}

namespace {
// A stack of host matrices on a device backend (one process): each operand's whole extent, from
// its first product's first element to its last product's last, copied in as it lies (strides and
// leading dimensions kept), C's copied in, worked on and copied back whole, so the bytes between
// its rows and matrices come back as they were.
void run_stack_rung(const detail::matmul_rung& r, detail::executor& ex,
                    const detail::matmul_call& host) {
  const detail::matmul_problem& p = host.p;
  const std::size_t e = size_of(p.type);
  const auto extent_of = [&](std::size_t rows, std::size_t cols, std::size_t ld,
                             std::size_t stride) {
    return rows && cols ? ((p.batch - 1) * stride + (rows - 1) * ld + cols) * e : 0;
  };
  const std::size_t na = extent_of(p.m, p.k, host.lda, host.stride_a),
                    nb = extent_of(p.k, p.n, host.ldb, host.stride_b),
                    nc = extent_of(p.m, p.n, host.ldc, host.stride_c);
  detail::buffer a(ex, na), b(ex, nb), c(ex, nc);
  ex.copy_in(a.get(), host.a, na);
  ex.copy_in(b.get(), host.b, nb);
  ex.copy_in(c.get(), host.c, nc);
  detail::buffer scratch = detail::scratch_for(ex, r.scratch(p));
  detail::matmul_call call = host;
  call.a = a.get(), call.b = b.get(), call.c = c.get();
  call.scratch = scratch.get(), call.stream = ex.stream();
  r.run(call);
  ex.copy_out(host.c, c.get(), nc);
}
}  // namespace

// Host matrices on a device backend: A, B (and C when beta != 0) are copied into packed device
// matrices row by row (the leading dimensions stay on the host side), C is copied back the same
// way, so the bytes between the rows of a sub-matrix view are never touched.
void detail::run_rung(const matmul_rung& r, executor& ex, const matmul_call& host) {
  const matmul_problem& p = host.p;
  if (ex.host_memory()) {
    buffer scratch = scratch_for(ex, r.scratch(p));
    matmul_call call = host;
    call.scratch = scratch.get(), call.stream = ex.stream();
    // A long product runs in bands of K (C = alpha A1 B1 + beta C, then C += alpha Ak Bk), so
    // that a stop asked from outside (pplab/interrupt.hpp) is taken between bands. A band is at
    // least piece_work() multiply-adds (2^33: a second or so) and a whole number of 256 columns
    // of A (the packed rung's kc block, whose results it leaves as they were); a smaller product
    // is one band.
    // On one machine's cores only (seq, cpu): an mpi rung's pointers are its rank's blocks.
    const double per_k = 2.0 * double(p.m) * double(p.n);
    const bool one_host = r.info.where == backend::seq || r.info.where == backend::cpu;
    const std::size_t band =
        one_host && per_k > 0
            ? std::max<std::size_t>(256, std::size_t(std::ceil(piece_work() / per_k / 256)) * 256)
            : p.k;
    const std::size_t e = size_of(p.type);
    for (std::size_t k0 = 0;;) {
      stop_if_interrupted();
      call.p.k = std::min(band, p.k - k0);
      call.a = static_cast<const char*>(host.a) + k0 * e;
      call.b = static_cast<const char*>(host.b) + k0 * host.ldb * e;
      call.beta = k0 == 0 ? host.beta : 1.0;
      r.run(call);
      k0 += call.p.k;
      if (k0 >= p.k) break;
    }
    return;
  }
  if (p.batch > 1) return run_stack_rung(r, ex, host);
  // This process's blocks (the whole matrices unless the backend runs a job of several).
  const matmul_blocks mine = blocks_of(grid_of(ex.rank(), ex.ranks()), p.m, p.n, p.k);
  const matrix_block &ab = mine.a, &bb = mine.b, &cb = mine.c;
  const std::size_t e = size_of(p.type);
  buffer a(ex, ab.rows * ab.cols * e), b(ex, bb.rows * bb.cols * e), c(ex, cb.rows * cb.cols * e);
  ex.copy_rows_in(a.get(), ab.cols * e, host.a, host.lda * e, ab.cols * e, ab.rows);
  ex.copy_rows_in(b.get(), bb.cols * e, host.b, host.ldb * e, bb.cols * e, bb.rows);
  if (host.beta != 0)
    ex.copy_rows_in(c.get(), cb.cols * e, host.c, host.ldc * e, cb.cols * e, cb.rows);
  buffer scratch = scratch_for(ex, r.scratch(p));
  r.run({p, host.alpha, host.beta, a.get(), ab.cols, b.get(), bb.cols, c.get(), cb.cols,
         scratch.get(), ex.stream()});
  ex.copy_rows_out(host.c, host.ldc * e, c.get(), cb.cols * e, cb.cols * e, cb.rows);
}

void detail::run_rung(const matmul_rung& r, const matmul_call& host_call) {
  require_backend(r.info.where);
  run_rung(r, executor_for(r.info.where), host_call);
}

}  // namespace pplab
