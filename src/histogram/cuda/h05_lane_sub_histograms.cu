// histogram/cuda/h05_lane_sub_histograms: beyond the histogram notes, toward the bandwidth limit.
// h04 with (1) several private copies per block, interleaved so that copy c of slot b sits at b x R
// + c and thread t counts into copy t % R: with R = 32 every lane of a warp owns its own bank, so a
// warp's 32 shared atomics never conflict and never hit one address, whatever the data (a byte
// histogram where every byte is one value runs as fast as a uniform one); and (2) 16-byte loads,
// four in flight per thread (the toolbox's for_each_vectorized), so a warp reads 2 KiB per step
// and the load instructions are a sixteenth of h04's for bytes. R is the largest power of two up
// to 32 whose copies fit in 48 KiB (256 bins: R = 32, 33 KiB; 1024 bins: R = 8); past 48 KiB one
// copy, up to the block's shared-memory limit. The copies are summed per slot at the end, one
// global atomic per nonzero slot per block; windows of at most 2^22 elements per thread keep the
// 32-bit counters from wrapping (histogram_cuda.cuh).
// Measured (H200, bench/results/h200-2026-11-23-histogram-23d8f1c.json): bytes 0.268 ms,
// 4009 GB/s = 91% of the read ceiling and 1.86x CUB; bytes all one value the same 0.268 ms
// (1.15x CUB, 1.00x its uniform time); f32 1024 bins 0.337 ms, 3187 GB/s = 10.5x CUB; 90% of
// the floats in one bin 0.335 ms (0.99x its uniform time). Floats are bound by the binning: with
// a branch near edges (f907169) uniform floats took 0.296 ms but 90% on one edge 0.425 ms
// (divergent warps); the branch-free nearer-edge comparison costs 14% on uniform floats and
// makes skew free. Copies in 96 KiB instead of 48 (R = 16 for 1024 bins) changed nothing
// (0.431 against 0.424 ms skewed, 0.302 against 0.296 uniform: records
// ...-00e3fc4-copies{48k,96k}.txt in git's history): the hot counter's sharing was not the cost.
// Bins of a power-of-two width need no edge (power_of_two_width_binner, binning.hpp): f32 1024 bins
// of normal data over [-4, 4) 0.260 ms, 94.8% of the read ceiling, against 0.320 ms for 1000 bins
// over [0, 1) through the float binner in the same run
// (bench/results/h200-2026-11-27-histogram-power-of-two-8fbdca9.txt).
#include "histogram/cuda/lane_sub_histograms.cuh"

namespace pplab::detail::histogram_cuda {

extern const histogram_rung h05_lane_sub_histograms{
    .info = {.step = 5, .summary = "a shared copy per lane (bank-conflict free) and 16-byte loads"},
    .can_run = lane_sub::can_run,
    .run = [](const histogram_call& c) { dispatch<lane_sub::rung<false>, dtypes::all>(c); },
};

}  // namespace pplab::detail::histogram_cuda
