// histogram/cuda/h12_sampled_choice: many bins, the rung chosen by the data. h11's sample (2^16
// elements, binned) says how much of the data its hot slots hold; when they hold most of it, h11
// counts (hot slots in shared memory, the rest with L2 atomics), else h10 partitions by bucket
// (which a hot bucket slows: every lane of it ranked on one shared counter).
// The threshold, from the two measured ends on the H200 (bench/results/h200-2026-11-23-
// histogram-57c1b47.json, f32 2^28, 2^20 bins): h11 takes ~0.5 ms plus ~3.8 ms times the cold
// share (0.96 ms with 90% hot, 4.31 ms with none), h10 ~1.34 ms plus ~0.57 ms times the hot share
// (1.34 uniform, 1.85 with 90% in one bin); they cross at a hot share of about 0.68. Between the
// ends this is a line through two points, not a measurement.
// Cost of choosing: h11's words and sample counters zeroed (4 bytes per slot, one memset), 2^16
// scattered reads binned and counted, the share summed by one atomic per block and compared by
// the last block to finish (the verdict, one word), a 4-byte copy to the host and a wait for the
// stream, then the chosen rung's launches. The pass that gives the hot slots their counters runs
// only when h11 counts.
// Measured on the H200, f32 2^28, 2^20 bins (bench/results/h200-2026-11-23-histogram-76a62c3.json,
// ratios in the same run): 1.372 ms uniform against h10's 1.339 (14.2x CUB against 14.5x), 0.977
// ms with 90% in one bin against h11's 0.958 (5.8x CUB, 1.9x h10). The steps that led here, and
// the two versions tried and not kept, are in docs/histogram.md.
// Tested (test_histogram, test_cuda incl. 2^31 + 77 bytes, test_lab) and compute-sanitizer clean
// (memcheck, racecheck, synccheck) on the H200 (...-76a62c3-gpu-check.txt).
// Scratch: the larger of h10's and h11's (h10 reuses h11's once the verdict is read).
#include "histogram/cuda/h11_parts.hpp"
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr double hot_enough = 0.68;

void run(const histogram_call& c) {
  if (c.p.n == 0) return h10_block_multisplit.run(c);  // nothing to sample; zeroes the counts
  const auto s = static_cast<cudaStream_t>(c.stream);
  const unsigned* verdict = h11_find_hot(c, hot_enough);
  unsigned h11_chosen = 0;
  PPLAB_CUDA(cudaMemcpyAsync(&h11_chosen, verdict, 4, cudaMemcpyDeviceToHost, s));
  PPLAB_CUDA(cudaStreamSynchronize(s));
  if (h11_chosen) h11_count(c);
  else h10_block_multisplit.run(c);
}

}  // namespace

extern const histogram_rung h12_sampled_choice{
    .info = {.step = 12,
             .summary = "many bins: h11 when a sample's hot slots hold most of the data, else h10"},
    .can_run =
        [](const histogram_problem& p) {
          return h10_block_multisplit.can_run(p) && h11_partial_privatized.can_run(p);
        },
    .scratch_bytes =
        [](const histogram_problem& p) {
          // h10 reuses h11's once the choice is made
          return std::max(h10_block_multisplit.scratch(p), h11_partial_privatized.scratch(p));
        },
    .run = run,
};

}  // namespace pplab::detail::histogram_cuda
