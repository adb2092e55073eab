// histogram/nccl/h01_allreduce: each GPU counts its slice with the cuda backend's best rung, then
// one ncclAllReduce of the 64-bit counts, in place, leaves the whole histogram on every GPU;
// each GPU then copies the part of the answer that lies in its own memory (no peer copy).
// Integer sums: exact, the same counts every run. The combine moves 2(G-1)/G x the counts per
// GPU at the all-reduce bus bandwidth (8 MiB of counts for 2^20 bins: ~25 us at 330 GB/s).
// Measured (2 x H200 joined by NVLink, against one GPU on the whole problem in the same run,
// whole calls; docs/nccl.md): on 2026-11-23 (bench/results/h200x2-2026-11-23-nccl-7c46775.json)
// f32 1024 bins, 2^30 values per GPU, 1.352 ms against 2.580, 1.91x; 2^20 bins 1.21x. On
// 2026-11-30 (h200x2-2026-11-30-nccl-961c9ad.json) 1024 bins 1.028 ms against 1.935, 1.88x;
// 2^20 bins 4.938 ms against 9.330, 1.89x, once GPU 0's pool kept h12's 544 MiB of scratch
// between calls (1.07x before: mapped again at every call).
#include "histogram/nccl/local_counts.hpp"

namespace pplab::detail::histogram_nccl {
namespace {

void run(const histogram_call& c) {
  const std::size_t width = slots(c.p);
  std::vector<nccl::device_buffer> counts = histogram_nccl::local_counts(c, width);
  const std::vector<nccl::member>& ms = nccl::members();
  PPLAB_NCCL(ncclGroupStart());
  for (std::size_t i = 0; i < ms.size(); ++i) {
    auto* p = counts[i].as<std::uint64_t>();
    PPLAB_NCCL(ncclAllReduce(p, p, width, ncclUint64, ncclSum, ms[i].comm, ms[i].stream));
  }
  PPLAB_NCCL(ncclGroupEnd());
  nccl::gpu_array& out = nccl::array_at(static_cast<void*>(c.counts));
  nccl::each([&](std::size_t i, const nccl::member& m) {
    const nccl::slice& mine = out.slices[i];
    nccl::write_range(out, mine.offset, counts[i].as<char>() + mine.offset, mine.bytes, m);
  });
  nccl::synchronize();
}

}  // namespace

extern const histogram_rung h01_allreduce{
    .info = {.step = 1, .summary = "one ncclAllReduce of the counts, in place"},
    .can_run = any_histogram,
    .run = run,
};

}  // namespace pplab::detail::histogram_nccl
