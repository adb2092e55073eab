// matmul/nccl/m01_rows_broadcast_b: the rows of C split over the GPUs (part_of(m): GPU g computes
// C's rows of its part from A's same rows), B whole on every GPU: each GPU broadcasts the bytes of
// B it holds (one ncclBroadcast per GPU, grouped), then multiplies with the cuda backend's best
// rung. Rows of A and C that lie in another GPU's slice are fetched over NVLink first (none
// when the arrays are split by rows, as the lab's are). Moves B once to every GPU (K x N
// elements, ~3 ms for 1 GiB at the all-gather rate) against 2MNK/G flops each: at 16384^3 f32
// the broadcast is ~3% of a GPU's share (~90 ms), so G GPUs should give ~0.97 G x one GPU.
// 2 x H200 (docs/nccl.md): 106 ms at 16384^3 f32 against 197 ms on one GPU, 1.85x.
// One process drives the GPUs (the rows of another process's slices are not reachable here).
#include "core/nccl/array.hpp"
#include "core/run.hpp"
#include "matmul/matmul_common.hpp"

namespace pplab::detail {

void matmul_nccl_m01(const matmul_call& c) {
  if (!nccl::one_process())
    fail(errc::unsupported, "matmul on the nccl backend runs in one process that drives all the "
                            "GPUs; in a job of several processes use the mpi backend with "
                            "--local cuda");
  const matmul_problem& p = c.p;
  const std::size_t e = size_of(p.type), gpus = std::size_t(nccl::world_size());
  const nccl::gpu_array &a = nccl::array_at(c.a), &b = nccl::array_at(c.b);
  nccl::gpu_array& cc = nccl::array_at(c.c);
  const std::vector<nccl::member>& ms = nccl::members();
  // B whole on every GPU: every GPU's slice of B broadcast from it to the others.
  std::vector<nccl::device_buffer> whole_b;
  nccl::each([&](const nccl::member& m) { whole_b.emplace_back(m, b.bytes); });
  PPLAB_NCCL(ncclGroupStart());
  for (std::size_t root = 0; root < gpus; ++root) {
    const nccl::slice& s = b.slices[root];
    if (!s.bytes) continue;
    for (std::size_t i = 0; i < gpus; ++i)
      PPLAB_NCCL(ncclBroadcast(s.data, whole_b[i].as<char>() + s.offset, s.bytes, ncclUint8,
                               int(root), ms[i].comm, ms[i].stream));
  }
  PPLAB_NCCL(ncclGroupEnd());
  // Rows [first, first + count) of a packed-by-ld matrix in an array: in place when they lie in
  // the member's own slice, else fetched into `copy`.
  const auto rows_of = [&](const nccl::gpu_array& x, std::size_t i, std::size_t first,
                           std::size_t count, std::size_t ld, std::size_t cols,
                           nccl::device_buffer& copy, bool fetch) -> char* {
    const std::size_t lo = first * ld * e, bytes = count ? ((count - 1) * ld + cols) * e : 0;
    const nccl::slice& s = x.slices[i];
    if (lo >= s.offset && lo + bytes <= s.offset + s.bytes)
      return static_cast<char*>(s.data) + (lo - s.offset);
    copy = nccl::device_buffer(ms[i], count * ld * e);
    if (fetch && bytes) nccl::read_range(x, lo, copy.get(), bytes, ms[i]);
    return copy.as<char>();
  };
  // Buffers are freed in stream order after the work that uses them: locals suffice.
  std::size_t i = 0;
  nccl::each([&](const nccl::member& m) {
    const part rows = part_of(p.m, m.rank, int(gpus));
    const matmul_problem q{p.type, rows.count, p.n, p.k};
    nccl::device_buffer a_copy, c_copy;
    const char* a_rows = rows_of(a, i, rows.first, rows.count, c.lda, p.k, a_copy, true);
    char* c_rows = rows_of(cc, i, rows.first, rows.count, c.ldc, p.n, c_copy, c.beta != 0);
    const matmul_rung& r = default_rung<matmul_rung>(backend::cuda, q);
    nccl::device_buffer scratch(m, std::max<std::size_t>(r.scratch(q), 256), 256);
    r.run({q, c.alpha, c.beta, a_rows, c.lda, whole_b[i].get(), c.ldb, c_rows, c.ldc, scratch.get(),
           m.stream});
    if (c_copy.get() && rows.count)
      nccl::write_range(cc, rows.first * c.ldc * e, c_copy.get(),
                        ((rows.count - 1) * c.ldc + p.n) * e, m);
    ++i;
  });
  nccl::synchronize();
}

}  // namespace pplab::detail
