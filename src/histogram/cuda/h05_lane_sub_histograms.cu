// histogram/cuda/h05_lane_sub_histograms: beyond the notes, toward the bandwidth limit. h04 with
// (1) several private copies per block, interleaved so that copy c of slot b sits at b x R + c
// and thread t counts into copy t % R: with R = 32 every lane of a warp owns its own bank, so a
// warp's 32 shared atomics never conflict and never hit one address, whatever the data (a byte
// histogram where every byte is one value runs as fast as a uniform one); and (2) 16-byte loads,
// four in flight per thread (the toolbox's for_each_vectorized), so a warp reads 2 KiB per step
// and the load instructions are a sixteenth of h04's for bytes. R is the largest power of two up
// to 32 whose copies fit in 48 KiB (256 bins: R = 32, 33 KiB; 1024 bins: R = 8); past 48 KiB one
// copy, up to the block's shared-memory limit. The copies are summed per slot at the end, one
// global atomic per nonzero slot per block; windows of at most 2^22 elements per thread keep the
// 32-bit counters from wrapping (histogram_cuda.cuh).
// Measured (H200, bench/results/h200-2026-11-23-histogram-f907169.json): bytes 0.272 ms, 3944 GB/s
// = 91% of the read ceiling and 1.84x CUB; bytes all one value the same 0.272 ms (1.13x CUB, 1.00x
// its uniform time); f32 1024 bins 0.296 ms, 3630 GB/s = 12.0x CUB; 90% of the floats in one bin
// 0.425 ms (1.44x its uniform time: that bin's counter is shared by the 4 lanes of a warp that use
// one of R = 8 copies, and is the one every warp hits).
#include "histogram/cuda/lane_sub_histograms.cuh"

namespace pplab::detail::gpu_histogram {

bool h05_can_run(const histogram_problem& p) { return lane_sub::can_run(p); }
void h05_run(const histogram_call& c) { dispatch<lane_sub::rung<false>, dtypes::all>(c); }

}  // namespace pplab::detail::gpu_histogram
