// matmul/nccl/m02_broadcast_overlapped: m01 with B's broadcast hidden behind the first part of
// the multiply. Each GPU splits its product by B's rows (the k dimension):
//   C_g  = alpha * A_g[:, own]  * B[own, :]  + beta * C_g   B's rows that lie whole in GPU g's
//                                                            own slice: read in place, no wait;
//   C_g += alpha * A_g[:, rest] * B[rest, :]                 once the broadcast, enqueued on the
//                                                            side stream meanwhile, has landed.
// With G GPUs the own rows are about K/G, so the first product (2MNK/G^2 flops per GPU) is far
// longer than the broadcast it hides (B's bytes once over the links).
// Prediction, 2 x H200, 16384^3 f32: m01 takes 106 ms against 98.5 ms for half of one GPU's 197;
// B (1 GiB, half of it received by each GPU) moves in ~1.5-3 ms at 325-395 GB/s, so hiding it
// gives back that much (~1.89x one GPU). Costs: one more read and write of C's rows (0.2 ms at
// the read ceiling) and the SMs NCCL's kernels take while the first product runs.
// The sums run in a fixed order (own rows, then the rest): the same bits on every run for a given
// GPU count; not the same bits as m01's single product (a different order of the k terms).
// Measured (2 x H200 joined by NVLink): on 2026-11-23 with m08 on each GPU, 103.0 ms against
// 196.6 ms on one GPU, 1.91x (m01 104.8 ms, 1.88x); on 2026-11-30 with m15, and each GPU's pool
// keeping the 1 GiB of B between calls (bench/results/h200x2-2026-11-30-nccl-961c9ad.json),
// 90.27 ms against 174.96 ms, 1.94x (m01 91.33 ms, 1.92x): the two products 44.5 and 45.2 ms,
// half a GPU's product 87.5 ms; docs/nccl.md.
#include "matmul/matmul_common.hpp"
#include "matmul/nccl/row_split.hpp"

namespace pplab::detail::matmul_nccl {
namespace {

void run(const matmul_call& c) {
  const matmul_problem& p = c.p;
  const std::size_t e = size_of(p.type), gpus = std::size_t(nccl::world_size());
  const nccl::gpu_array &a = nccl::array_at(c.a), &b = nccl::array_at(c.b);
  nccl::gpu_array& cc = nccl::array_at(c.c);
  std::deque<nccl::stream_mark> landed;
  const std::vector<nccl::device_buffer> whole_b =
      matmul_nccl::whole_b_everywhere(b, &nccl::member::side, &landed);
  nccl::each([&](std::size_t i, const nccl::member& m) {
    const part rows = part_of(p.m, m.rank, int(gpus));
    // B's rows [own0, own1): those whose n elements lie whole in this GPU's slice of B.
    const nccl::slice& bs = b.slices[i];
    const std::size_t pitch = c.ldb * e;
    std::size_t own0 = 0, own1 = 0;
    if (p.n && bs.bytes && bs.offset + bs.bytes >= p.n * e) {
      own0 = std::min(p.k, ceil_div(bs.offset, pitch));
      own1 = std::min(p.k, (bs.offset + bs.bytes - p.n * e) / pitch + 1);
      own1 = std::max(own0, own1);
    }
    nccl::device_buffer a_copy, c_copy;
    const char* a_rows =
        matmul_nccl::rows_of(a, i, rows.first, rows.count, c.lda, p.k, e, a_copy, true);
    char* c_rows =
        matmul_nccl::rows_of(cc, i, rows.first, rows.count, c.ldc, p.n, e, c_copy, c.beta != 0);
    // One product of C's rows with B's rows [k0, k0 + kb) read from `b_rows` (B's row k0).
    const auto product = [&](std::size_t k0, std::size_t kb, const char* b_rows, double beta) {
      const matmul_problem q{p.type, rows.count, p.n, kb};
      const matmul_rung& r = default_rung<matmul_rung>(backend::cuda, q);
      nccl::device_buffer scratch(m, std::max<std::size_t>(r.scratch(q), 256), 256);
      r.run({q, c.alpha, beta, a_rows + k0 * e, c.lda, b_rows, c.ldb, c_rows, c.ldc, scratch.get(),
             m.stream});
    };
    if (!rows.count) {  // no rows here (m < G): nothing to compute, but the broadcast must land
      landed[i].wait_in(m.stream);
      return;
    }
    // The own rows first (k = 0 when there are none: C = beta * C, never reading C at beta 0).
    const char* own_b =
        own1 > own0 ? static_cast<const char*>(bs.data) + (own0 * pitch - bs.offset) : nullptr;
    product(own0, own1 - own0, own_b, c.beta);
    landed[i].wait_in(m.stream);
    if (own0 > 0) product(0, own0, whole_b[i].as<char>(), 1.0);
    if (own1 < p.k) product(own1, p.k - own1, whole_b[i].as<char>() + own1 * pitch, 1.0);
    matmul_nccl::write_rows_back(cc, i, rows.first, rows.count, c.ldc, p.n, e, c_copy);
  });
  // Every stream waits for the side streams (landed), so the buffers' frees on `stream` come last.
  nccl::synchronize();
}

}  // namespace

extern const matmul_rung m02_broadcast_overlapped{
    .info = {.step = 2,
             .summary = "m01 with B's broadcast hidden behind the product of the rows of B each "
                        "GPU holds (one process)"},
    .can_run = in_one_process,
    .run = run,
};

}  // namespace pplab::detail::matmul_nccl
