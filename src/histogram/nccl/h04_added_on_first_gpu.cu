// histogram/nccl/h04_added_on_first_gpu: for few bins, the whole answer added on one GPU. GPU 0's
// counting is enqueued last (from one host thread the GPU enqueued last starts last), so by the
// time it has counted, the others have too: one kernel on GPU 0, in stream order behind its own
// counts, adds every GPU's counts (the others' read over the GPUs' link, peer access) and writes
// each slot where the answer holds it (on another GPU: a peer write). The other GPUs' streams then
// wait for it, once (their slices of the answer, and their counts, are touched by it). Against
// h03 (each GPU adds its own share): one cross-GPU wait at the end instead of two and one small
// kernel instead of one per GPU; h03's division of the adding wins where the counts are many.
// Integer sums: exact, the same counts every run. One process whose GPUs reach each other's
// memory.
// Prediction (2 x H200, data on the GPUs, against h03 in the same run): 1024 bins, 2^30 f32 per
// GPU, 1.004 ms -> ~0.995 ms (one cross-GPU wait and one launch less). Measured (one run,
// bench/results/h200x2-2026-11-30-nccl-961c9ad.txt section 7): 1.012 ms against h03's 1.017 and
// h01's 1.017 (one GPU 1.935 ms: 1.91x); 2^20 bins 4.994 ms, h03's too.
#include "histogram/nccl/local_counts.hpp"

namespace pplab::detail::histogram_nccl {
namespace {

struct answer_args {
  const std::uint64_t* counts[nccl::most_peer_gpus];  // every GPU's, each in its GPU's memory
  std::uint64_t* slice[nccl::most_peer_gpus];         // the answer's slices, in slot order
  std::size_t first[nccl::most_peer_gpus];            // the first slot of each
  int gpus;
  std::size_t slots;  // of the whole answer
};

__global__ void add_all(answer_args a) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < a.slots;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t sum = 0;
    for (int g = 0; g < a.gpus; ++g) sum += a.counts[g][i];
    int s = a.gpus - 1;  // the slice holding slot i: the last one starting at or before it
    while (s > 0 && a.first[s] > i) --s;
    a.slice[s][i - a.first[s]] = sum;
  }
}

void run(const histogram_call& c) {
  const std::vector<nccl::member>& ms = nccl::members();
  // Counted: GPU k's counts are complete. Added: GPU 0 has written the answer.
  static nccl::member_marks& counted = *new nccl::member_marks;
  static nccl::member_marks& added = *new nccl::member_marks;
  const std::size_t width = slots(c.p);
  std::vector<nccl::device_buffer> counts =
      histogram_nccl::local_counts(c, width, nccl::visit::first_last);
  nccl::gpu_array& out = nccl::array_at(static_cast<void*>(c.counts));
  answer_args a{};
  a.gpus = int(ms.size()), a.slots = out.bytes / 8;
  for (std::size_t g = 0; g < ms.size(); ++g) {
    a.counts[g] = counts[g].as<std::uint64_t>();
    a.slice[g] = static_cast<std::uint64_t*>(out.slices[g].data);
    a.first[g] = out.slices[g].bytes ? out.slices[g].offset / 8 : a.slots;  // empty: never chosen
  }
  a.first[0] = 0;
  nccl::each([&](std::size_t k, const nccl::member&) {
    if (k != 0) counted.record(k);
  });
  nccl::each([&](std::size_t k, const nccl::member& m) {
    if (k == 0) {
      counted.wait_for_others(0);
      const unsigned blocks = unsigned(std::min<std::size_t>((a.slots + 255) / 256, 1024));
      add_all<<<blocks, 256, 0, m.stream>>>(a);
      PPLAB_CUDA(cudaGetLastError());
      added.record(0);
    } else {
      added[0].wait_in(m.stream);
    }
  });
}

}  // namespace

extern const histogram_rung h04_added_on_first_gpu{
    .info = {.step = 4,
             .summary = "one process: GPU 0, counting last, adds every GPU's counts into the "
                        "whole answer (one kernel, one cross-GPU wait)"},
    .can_run = counts_added_by_peers,
    .run = run,
};

}  // namespace pplab::detail::histogram_nccl
