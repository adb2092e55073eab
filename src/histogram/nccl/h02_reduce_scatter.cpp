// histogram/nccl/h02_reduce_scatter: each GPU counts its slice, then ncclReduceScatter leaves
// GPU g with the sum of its share of the slots only (the counts zero-padded to a multiple of the
// GPU count), half the traffic of an all-reduce; each share is then copied to where the answer
// lies (peer copies when one process drives the GPUs; an ncclAllGather first when each process
// must hold the whole answer). Exact, as h01. Worth it when the counts are many and the answer
// may stay spread over the GPUs; here the answer is gathered, which gives back what it saved.
// 2 x H200: within 3% of h01 at 1024 and 2^20 bins (docs/nccl.md).
// Measured (2 x H200 joined by NVLink, against one GPU on the whole problem in the same run,
// whole calls): f32 2^20 bins, 2^30 values per GPU, on 2026-11-23 18.59 ms against 22.99, 1.24x
// (h01 1.21x; bench/results/h200x2-2026-11-23-nccl-7c46775.json); on 2026-11-30 4.909 ms against
// 9.330, 1.90x (h01 1.89x; h200x2-2026-11-30-nccl-961c9ad.json).
#include "histogram/nccl/local_counts.hpp"

namespace pplab::detail::histogram_nccl {
namespace {

void run(const histogram_call& c) {
  const std::size_t width = slots(c.p), gpus = std::size_t(nccl::world_size());
  const std::size_t share = (width + gpus - 1) / gpus;
  std::vector<nccl::device_buffer> counts = histogram_nccl::local_counts(c, share * gpus);
  std::vector<nccl::device_buffer> mine;
  nccl::each([&](const nccl::member& m) { mine.emplace_back(m, share * 8); });
  const std::vector<nccl::member>& ms = nccl::members();
  PPLAB_NCCL(ncclGroupStart());
  for (std::size_t i = 0; i < ms.size(); ++i)
    PPLAB_NCCL(ncclReduceScatter(counts[i].get(), mine[i].get(), share, ncclUint64, ncclSum,
                                 ms[i].comm, ms[i].stream));
  PPLAB_NCCL(ncclGroupEnd());
  nccl::gpu_array& out = nccl::array_at(static_cast<void*>(c.counts));
  if (nccl::one_process()) {
    nccl::each([&](std::size_t i, const nccl::member& m) {
      const std::size_t first = std::size_t(m.rank) * share;
      const std::size_t len = first < width ? std::min(share, width - first) : 0;
      if (len) nccl::write_range(out, first * 8, mine[i].get(), len * 8, m);
    });
  } else {
    // This process's GPU has one share; the whole answer comes back into its padded counts.
    const nccl::member& m = ms.front();
    PPLAB_CUDA(cudaSetDevice(m.device));
    PPLAB_NCCL(ncclAllGather(mine[0].get(), counts[0].get(), share, ncclUint64, m.comm, m.stream));
    nccl::write_range(out, 0, counts[0].get(), width * 8, m);
  }
  nccl::synchronize();
}

}  // namespace

extern const histogram_rung h02_reduce_scatter{
    .info = {.step = 2,
             .summary = "ncclReduceScatter (each GPU adds its share of the slots), then the shares "
                        "copied to the answer"},
    .can_run = any_histogram,
    .run = run,
};

}  // namespace pplab::detail::histogram_nccl
