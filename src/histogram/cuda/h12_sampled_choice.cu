// histogram/cuda/h12_sampled_choice: many bins, the rung chosen by the data. h11's sample (2^16
// elements, binned) says how much of the data its hot slots hold; when they hold most of it, h11
// counts (hot slots in shared memory, the rest with L2 atomics), else h10 partitions by bucket
// (which a hot bucket slows: every lane of it ranked on one shared counter).
// The threshold, from the two measured ends on the H200 (bench/results/h200-2026-11-23-
// histogram-57c1b47.json, f32 2^28, 2^20 bins): h11 takes ~0.5 ms plus ~3.8 ms times the cold
// share (0.96 ms with 90% hot, 4.31 ms with none), h10 ~1.34 ms plus ~0.57 ms times the hot share
// (1.34 uniform, 1.85 with 90% in one bin); they cross at a hot share of about 0.68. Between the
// ends this is a line through two points, not a measurement.
// Cost of choosing, as first built: the sample's counters zeroed (4 bytes per slot), 2^16
// scattered reads binned and counted (each block adds its hot samples to the share with one
// atomic), and a 4-byte copy to the host with a wait for the stream. The pass
// that gives the hot slots their counters runs only when h11 counts. First measured (H200,
// bench/results/h200-2026-11-23-histogram-601eb7d.json) with that pass always run and a pageable
// copy: 0.043 ms over h10 at uniform 2^20 bins (1.388 against 1.345 ms: 13.99x CUB against
// 14.44x), and 0.976 ms with 90% in one bin (h11 0.964, h10 1.847). With the wait still there
// (bench/results/h200-2026-11-23-histogram-6f0bca5.json): 0.041 ms over h10 (1.384 against
// 1.343 ms: 13.83x CUB against 14.26x), 0.986 ms with 90% in one bin (5.7x CUB, 1.88x h10). So
// neither the pass nor the copy was the cost, but the wait: the GPU idles while the host reads
// the share and launches what follows. So now the choice is made on the device: both rungs are
// enqueued, each with a device word (histogram_call::skip) that a one-thread kernel sets from the
// share; the unchosen rung's kernels return at once (h10's CUB scan of its table still runs,
// ~0.02 ms at 2^20 bins). Predicted: uniform 2^20 bins within ~0.015 ms of h10 (the sample and
// the empty launches), >= 14x CUB. Not yet run on a GPU.
// Scratch: h11's, then h10's, then the two words.
#include "histogram/cuda/histogram_cuda.cuh"
#include "histogram/cuda/rungs.hpp"

namespace pplab::detail::gpu_histogram {
namespace {

constexpr double hot_enough = 0.68;

}  // namespace

std::size_t h12_scratch(const histogram_problem& p) {
  return std::max(h10_scratch(p), h11_scratch(p));  // h10 reuses h11's once the choice is made
}
bool h12_can_run(const histogram_problem& p) { return h10_can_run(p) && h11_can_run(p); }
void h12_run(const histogram_call& c) {
  if (c.p.n == 0) return h10_run(c);  // nothing to sample; zeroes the counts
  const auto s = static_cast<cudaStream_t>(c.stream);
  const unsigned* verdict = h11_find_hot(c, hot_enough);
  unsigned h11_chosen = 0;
  PPLAB_CUDA(cudaMemcpyAsync(&h11_chosen, verdict, 4, cudaMemcpyDeviceToHost, s));
  PPLAB_CUDA(cudaStreamSynchronize(s));
  if (h11_chosen) h11_count(c);
  else h10_run(c);
}

}  // namespace pplab::detail::gpu_histogram
