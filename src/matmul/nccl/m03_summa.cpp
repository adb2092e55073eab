// matmul/nccl/m03_summa: a job of one process per GPU (mpirun). Each process holds the blocks of
// A, B and C that the mpi backend gives a rank (matmul/mpi/grid.hpp: the ranks as a rows x cols
// grid), so a program written for `--backend mpi` runs here unchanged. SUMMA as in the mpi rung
// m01, with NCCL on the GPUs: for each panel of k, the GPU holding A's columns broadcasts them
// along its grid row, the one holding B's rows along its grid column (communicators split from
// the job's once, ncclCommSplit), and every GPU adds the panels' product to its block of C with
// the cuda backend's best rung. The next panel's broadcast runs on the side stream while the
// current product runs: two panel buffers, marks between the streams.
// Data moved per GPU: about m*k/rows + k*n/cols elements in, against 2mnk/P flops. 2 GPUs (a
// 1 x 2 grid) at 16384^3 f32: A's other half (512 MiB, ~1.5 ms over NVLink) against ~100 ms of
// multiply, hidden but for the first panel; panels of up to 4096 columns keep the products large
// (an extra read and write of C per panel: 4 panels, ~0.8 ms in all at the read ceiling).
// Measured (2 x H200, a job of two processes, Open MPI's default binding,
// bench/results/h200x2-2026-11-30-nccl-job-961c9ad.json): f32 16384^3 in 93.88 ms against
// 174.92 ms on one GPU, 1.86x, 0.96x one process's m02: 4 products of 22.6-23.1 ms, the panels'
// broadcasts hidden but the first. A job's first call also connects the row communicator's
// channels (~0.9 s with each rank on one core, 0.15 s with --bind-to none); the lab's 0.15-0.18x
// before 2026-11-30 was that first call alone (docs/nccl.md).
#include "core/nccl/array.hpp"
#include "matmul/matmul_common.hpp"
#include "matmul/mpi/grid.hpp"
#include "matmul/rung.hpp"

namespace pplab::detail::matmul_nccl {
namespace {

// The blocks of a job of one process per GPU (m01 and m02 take arrays split over one process's).
bool in_a_job(const matmul_problem& p) { return one_float_product(p) && nccl::job_of_processes(); }

constexpr std::size_t max_panel = 4096;

struct grid_comms {
  ncclComm_t row = nullptr, col = nullptr;
};

// The grid's row and column communicators, split from the job's on the first call, when every
// process runs this rung together (ncclCommSplit is collective), and kept for the process as the
// job's own communicator is (the grid depends only on the process count, fixed for a job).
const grid_comms& comms_of(const nccl::member& m, const rank_grid& g) {
  static const grid_comms comms = [&] {
    grid_comms c;
    PPLAB_NCCL(ncclCommSplit(m.comm, g.row, g.col, &c.row, nullptr));
    PPLAB_NCCL(ncclCommSplit(m.comm, g.col, g.row, &c.col, nullptr));
    return c;
  }();
  return comms;
}

// Which of `parts` parts of [0, total) (part_of's cut) holds `index`.
int part_holding(std::size_t total, std::size_t index, int parts) {
  for (int j = 0; j + 1 < parts; ++j) {
    const part pj = part_of(total, j, parts);
    if (index < pj.first + pj.count) return j;
  }
  return parts - 1;
}

struct panel {
  std::size_t k0 = 0, kb = 0;
  int a_col = 0, b_row = 0;  // the grid column holding A's columns, the grid row B's rows
};

// Panels of k that lie in one grid column's part of A's columns and one grid row's part of
// B's rows, at most max_panel deep.
std::vector<panel> panels_of(const rank_grid& g, std::size_t k) {
  std::vector<panel> out;
  for (std::size_t k0 = 0; k0 < k;) {
    panel p;
    p.k0 = k0, p.a_col = part_holding(k, k0, g.cols), p.b_row = part_holding(k, k0, g.rows);
    const part a = part_of(k, p.a_col, g.cols), b = part_of(k, p.b_row, g.rows);
    const std::size_t end = std::min({a.first + a.count, b.first + b.count, k0 + max_panel});
    p.kb = end - k0;
    out.push_back(p);
    k0 = end;
  }
  return out;
}

void run(const matmul_call& c) {
  const matmul_problem& p = c.p;
  const nccl::member& m = nccl::members().at(0);
  const rank_grid g = grid_of(nccl::process_rank(), nccl::processes());
  const matmul_blocks mine = blocks_of(g, p.m, p.n, p.k);
  const std::size_t e = size_of(p.type), mr = mine.c.rows, nc = mine.c.cols;
  const auto data_of = [](const void* x) {
    const nccl::gpu_array& arr = nccl::array_at(x);
    return arr.slices.empty() ? nullptr : static_cast<char*>(arr.slices[0].data);
  };
  const char *a = data_of(c.a), *b = data_of(c.b);
  char* cc = data_of(c.c);
  const std::vector<panel> panels = panels_of(g, p.k);
  std::size_t deepest = 0;
  for (const panel& q : panels) deepest = std::max(deepest, q.kb);
  // Everything that can fail here is done before the first collective, and agreed on.
  std::vector<nccl::device_buffer> a_panel(2), b_panel(2);
  nccl::device_buffer scratch;
  std::exception_ptr failed;
  try {
    PPLAB_CUDA(cudaSetDevice(m.device));
    for (int s = 0; s < 2; ++s) {
      a_panel[s] = nccl::device_buffer(m, mr * deepest * e);
      b_panel[s] = nccl::device_buffer(m, deepest * nc * e);
    }
    std::size_t scratch_bytes = 256;
    for (const panel& q : panels) {
      const matmul_problem part_problem{p.type, mr, nc, q.kb};
      scratch_bytes =
          std::max(scratch_bytes,
                   default_rung<matmul_rung>(backend::cuda, part_problem).scratch(part_problem));
    }
    scratch = nccl::device_buffer(m, scratch_bytes, 256);
  } catch (...) {
    failed = std::current_exception();
  }
  nccl::agree(failed);
  const grid_comms& comms = comms_of(m, g);
  // The product of one panel pair into C's block (k = 0 with no panels: C = beta * C).
  const auto product = [&](std::size_t kb, const void* ap, const void* bp, double beta) {
    const matmul_problem q{p.type, mr, nc, kb};
    default_rung<matmul_rung>(backend::cuda, q)
        .run({q, c.alpha, beta, ap, kb, bp, nc, cc, c.ldc, scratch.get(), m.stream});
  };
  if (panels.empty()) product(0, nullptr, nullptr, c.beta);
  nccl::stream_mark allocated, ready[2], free[2];
  allocated.record(m.stream);
  allocated.wait_in(m.side);
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const panel& q = panels[i];
    const std::size_t s = i % 2, a_bytes = mr * q.kb * e, b_bytes = q.kb * nc * e;
    if (i >= 2) free[s].wait_in(m.side);  // the product two panels back has read this buffer
    if (g.col == q.a_col && a_bytes)      // A's panel: columns [k0, k0 + kb) of this block's rows
      PPLAB_CUDA(cudaMemcpy2DAsync(a_panel[s].get(), q.kb * e, a + (q.k0 - mine.a.col0) * e,
                                   c.lda * e, q.kb * e, mr, cudaMemcpyDeviceToDevice, m.side));
    if (g.row == q.b_row && b_bytes)  // B's panel: rows [k0, k0 + kb) of this block
      PPLAB_CUDA(cudaMemcpy2DAsync(b_panel[s].get(), nc * e, b + (q.k0 - mine.b.row0) * c.ldb * e,
                                   c.ldb * e, nc * e, q.kb, cudaMemcpyDeviceToDevice, m.side));
    // Every process of a grid row has the same mr, of a grid column the same nc: the byte counts
    // agree within each communicator, so skipping an empty broadcast is skipped everywhere.
    PPLAB_NCCL(ncclGroupStart());
    if (a_bytes)
      PPLAB_NCCL(ncclBroadcast(a_panel[s].get(), a_panel[s].get(), a_bytes, ncclUint8, q.a_col,
                               comms.row, m.side));
    if (b_bytes)
      PPLAB_NCCL(ncclBroadcast(b_panel[s].get(), b_panel[s].get(), b_bytes, ncclUint8, q.b_row,
                               comms.col, m.side));
    PPLAB_NCCL(ncclGroupEnd());
    ready[s].record(m.side);
    ready[s].wait_in(m.stream);
    product(q.kb, a_panel[s].get(), b_panel[s].get(), i == 0 ? c.beta : 1.0);
    free[s].record(m.stream);
  }
  // The side stream's work all came before a mark `stream` waited for: waiting for `stream` is
  // waiting for both, and the panels' frees (on `stream`) follow it.
  PPLAB_CUDA(cudaStreamSynchronize(m.stream));
}

}  // namespace

extern const matmul_rung m03_summa{
    .info = {.step = 3,
             .summary = "SUMMA on a job of one process per GPU: panels broadcast along the grid's "
                        "rows and columns while the last panels multiply (mpirun)"},
    .can_run = in_a_job,
    .run = run,
};

}  // namespace pplab::detail::matmul_nccl
