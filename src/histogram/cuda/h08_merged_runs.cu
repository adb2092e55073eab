// histogram/cuda/h08_merged_runs: h05 with run merging. A thread remembers the slot it counted
// last and how many times in a row, and adds the whole run with one atomic when the slot
// changes. On data piled in one bin (90% of floats at one value) most of a thread's elements
// continue a run, so the hot counter, which R copies share among 32 / R lanes each, takes a
// fraction of the atomics; on uniform data it costs a compare per element and saves nothing.
// Measured (H200, bench/results/h200-2026-11-23-histogram-f907169.json), slower everywhere: bytes
// 0.681 ms against h05's 0.272, bytes all one value 0.375 against 0.272, 90% of floats in one bin
// 0.572 against 0.425. The divergent branch per element costs more than the shared atomics it
// saves: on this GPU an uncontended shared atomic is cheap, so merging does not pay. Not picked by
// the policy.
#include "histogram/cuda/lane_sub_histograms.cuh"

namespace pplab::detail::histogram_cuda {

extern const histogram_rung h08_merged_runs{
    .info = {.step = 8, .summary = "h05 with each thread's runs of one slot added by one atomic"},
    .can_run = lane_sub::can_run,
    .run = [](const histogram_call& c) { dispatch<lane_sub::rung<true>, dtypes::all>(c); },
};

}  // namespace pplab::detail::histogram_cuda
