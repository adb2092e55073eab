// histogram/nccl/h03_shares_added_from_peers: h02's division of the work (each GPU adds the
// counts of its own share of the slots only) without NCCL. Once every GPU has counted (each GPU's
// stream waits for the others' marks), a kernel on each GPU adds, for the slots of the answer that
// lie in its own memory, every GPU's counts, reading the others' over the GPUs' link (peer
// access), and writes the sums straight into the answer: no collective's latency, no copy of the
// shares afterwards, no wait inside the call. Integer sums: exact, the same counts every run.
// One process whose GPUs reach each other's memory.
// Prediction (2 x H200, data on the GPUs, against h01 in the same run): 1024 bins, 2^30 f32 per
// GPU, 1.028 ms -> ~0.99 ms (one small all-reduce's ~30 us and two copies less: 1.88x -> ~1.95x
// one GPU); 2^20 bins: each GPU reads 4 MiB of its peer's counts at ~400 GB/s (~10 us) where h01's
// all-reduce moves 8 MiB at 322 GB/s bus (~26 us) plus its latency: 4.94 ms -> ~4.90 ms.
// Measured (2 x H200, three runs, bench/results/h200x2-2026-11-30-nccl-961c9ad.txt section 7):
// 1024 bins 1.018 / 1.004 / 1.017 ms against h01's 1.023 / 1.012 / 1.017 (one GPU 1.934-1.935
// ms: 1.90-1.93x); 2^20 bins 4.850 / 4.913 / 4.994 ms against h01's 4.923 / 4.920 / 5.049 (one
// GPU 9.32-9.41 ms: 1.88-1.92x). Less than predicted at 1024 bins: the two GPUs' 0.95 ms of
// counting hide nothing of a call's fixed costs, and each GPU's add waits for the other GPU.
#include "histogram/nccl/local_counts.hpp"

namespace pplab::detail::histogram_nccl {
namespace {

struct share_args {
  const std::uint64_t* counts[nccl::most_peer_gpus];  // every GPU's, each in its GPU's memory
  int gpus;
  std::size_t first, len;  // this GPU's share: slots [first, first + len)
  std::uint64_t* out;      // where they lie in the answer
};

__global__ void add_share(share_args a) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < a.len;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t sum = 0;
    for (int g = 0; g < a.gpus; ++g) sum += a.counts[g][a.first + i];
    a.out[i] = sum;
  }
}

void run(const histogram_call& c) {
  const std::vector<nccl::member>& ms = nccl::members();
  // Counted: GPU k's counts are complete. Added: GPU k has read every GPU's counts (each GPU
  // frees its counts on its own stream, behind every other GPU's reads).
  static nccl::member_marks& counted = *new nccl::member_marks;
  static nccl::member_marks& added = *new nccl::member_marks;
  const std::size_t width = slots(c.p);
  std::vector<nccl::device_buffer> counts = histogram_nccl::local_counts(c, width);
  nccl::each([&](std::size_t k, const nccl::member&) { counted.record(k); });
  nccl::gpu_array& out = nccl::array_at(static_cast<void*>(c.counts));
  share_args a{};
  a.gpus = int(ms.size());
  for (std::size_t g = 0; g < ms.size(); ++g) a.counts[g] = counts[g].as<std::uint64_t>();
  nccl::each([&](std::size_t k, const nccl::member& m) {
    counted.wait_for_others(k);
    const nccl::slice& mine = out.slices[k];
    a.first = mine.offset / 8, a.len = mine.bytes / 8;
    a.out = static_cast<std::uint64_t*>(mine.data);
    if (a.len) {
      const unsigned blocks = unsigned(std::min<std::size_t>((a.len + 255) / 256, 1024));
      add_share<<<blocks, 256, 0, m.stream>>>(a);
      PPLAB_CUDA(cudaGetLastError());
    }
    added.record(k);
  });
  nccl::each([&](std::size_t k, const nccl::member&) { added.wait_for_others(k); });
}

}  // namespace

extern const histogram_rung h03_shares_added_from_peers{
    .info = {.step = 3,
             .summary = "one process: each GPU adds its share of the slots, reading the others' "
                        "counts over the link (no collective)"},
    .can_run = counts_added_by_peers,
    .run = run,
};

}  // namespace pplab::detail::histogram_nccl
