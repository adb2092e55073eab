// matmul/nccl/m01_rows_broadcast_b: the rows of C split over the GPUs (part_of(m): GPU g computes
// C's rows of its part from A's same rows), B whole on every GPU: each GPU broadcasts the bytes of
// B it holds (one ncclBroadcast per GPU, grouped), then multiplies with the cuda backend's best
// rung. Rows of A and C that lie in another GPU's slice are fetched over NVLink first (none
// when the arrays are split by rows, as the lab's are). Moves B once to every GPU (K x N
// elements, ~3 ms for 1 GiB at the all-gather rate) against 2MNK/G flops each: at 16384^3 f32
// the broadcast is ~3% of a GPU's share (~90 ms), so G GPUs should give ~0.97 G x one GPU.
// 2 x H200 (docs/nccl.md): 106 ms at 16384^3 f32 against 197 ms on one GPU, 1.85x.
// One process drives the GPUs (in a job of processes, m03 runs SUMMA on the job's blocks).
// Measured (2 x H200 joined by NVLink, bench/results/h200x2-2026-11-23-nccl-7c46775.json, against
// one GPU on the whole problem in the same run, whole calls): f32 16384^3 in 104.8 ms against 196.6
// ms, 1.88x (m02, the broadcast overlapped: 1.91x).
#include "matmul/matmul_common.hpp"
#include "matmul/nccl/row_split.hpp"

namespace pplab::detail::matmul_nccl {
namespace {

void run(const matmul_call& c) {
  const matmul_problem& p = c.p;
  const std::size_t e = size_of(p.type), gpus = std::size_t(nccl::world_size());
  const nccl::gpu_array &a = nccl::array_at(c.a), &b = nccl::array_at(c.b);
  nccl::gpu_array& cc = nccl::array_at(c.c);
  const std::vector<nccl::device_buffer> whole_b =
      matmul_nccl::whole_b_everywhere(b, &nccl::member::stream, nullptr);
  // Buffers are freed in stream order after the work that uses them: locals suffice.
  nccl::each([&](std::size_t i, const nccl::member& m) {
    const part rows = part_of(p.m, m.rank, int(gpus));
    const matmul_problem q{p.type, rows.count, p.n, p.k};
    nccl::device_buffer a_copy, c_copy;
    const char* a_rows =
        matmul_nccl::rows_of(a, i, rows.first, rows.count, c.lda, p.k, e, a_copy, true);
    char* c_rows =
        matmul_nccl::rows_of(cc, i, rows.first, rows.count, c.ldc, p.n, e, c_copy, c.beta != 0);
    const matmul_rung& r = default_rung<matmul_rung>(backend::cuda, q);
    nccl::device_buffer scratch(m, std::max<std::size_t>(r.scratch(q), 256), 256);
    r.run({q, c.alpha, c.beta, a_rows, c.lda, whole_b[i].get(), c.ldb, c_rows, c.ldc, scratch.get(),
           m.stream});
    matmul_nccl::write_rows_back(cc, i, rows.first, rows.count, c.ldc, p.n, e, c_copy);
  });
  nccl::synchronize();
}

}  // namespace

extern const matmul_rung m01_rows_broadcast_b{
    .info = {.step = 1,
             .summary = "rows of C split over the GPUs, B broadcast to every GPU, the cuda rung on "
                        "each (one process)"},
    .can_run = in_one_process,
    .run = run,
};

}  // namespace pplab::detail::matmul_nccl
