#pragma once
// What the nccl histogram rungs share: every GPU counts its slice of the array with the cuda
// backend's best rung into 64-bit counts (bins + 3 slots, zero-padded to `width`) in its own
// memory, enqueued on its stream (an empty slice's counts: zeros, no rung). The rungs differ in how
// the counts are added over the GPUs.
#include <vector>

#include "core/nccl/array.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"

namespace pplab::detail::histogram_nccl {

// The rungs that add the counts by reading the other GPUs' memory (h03, h04): one process whose
// GPUs reach each other's.
inline bool counts_added_by_peers(const histogram_problem& p) {
  return any_histogram(p) && nccl::peers_reach_each_other();
}

inline std::vector<nccl::device_buffer> local_counts(const histogram_call& c, std::size_t width,
                                                     nccl::visit order = nccl::visit::in_order) {
  const nccl::gpu_array& in = nccl::array_at(c.in);
  const std::size_t e = size_of(c.p.type);
  std::vector<nccl::device_buffer> out(nccl::members().size());
  // From this thread, GPU after GPU: the cuda rungs only enqueue. (One thread per GPU,
  // started per call, measured slower on 2 H200s: 236 us against 61 us for a whole call of
  // 2^20 values per GPU; a pool of threads kept between calls is the next step.)
  nccl::each_agreed(
      [&](std::size_t k, const nccl::member& m) {
        histogram_problem q = c.p;
        q.n = in.slices[k].bytes / e;
        const std::size_t written = q.n ? slots(q) : 0;  // a rung overwrites every slot
        out[k] = nccl::device_buffer(m, width * 8);
        if (written < width)
          PPLAB_CUDA(cudaMemsetAsync(out[k].as<std::uint64_t>() + written, 0, (width - written) * 8,
                                     m.stream));
        if (!q.n) return;
        const histogram_rung& r = default_rung<histogram_rung>(backend::cuda, q);
        nccl::device_buffer own_scratch;
        void* scratch = nccl::kept_scratch(k, r.scratch(q), own_scratch);
        r.run({q, in.slices[k].data, out[k].as<std::uint64_t>(), scratch, m.stream});
      },
      order);
  return out;
}

}  // namespace pplab::detail::histogram_nccl
