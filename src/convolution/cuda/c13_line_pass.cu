// convolution/cuda/c13_line_pass: a mask of one row (1 x k) or one column (k x 1), its taps a
// run-time count: the 1-D pass that SciPy's correlate1d is, and that its separable named filters
// (gaussian_filter, uniform_filter, sobel) run once per axis on arrays of any rank; a stack of
// images in one launch (a 3-D array's middle axis). The kernels are line_pass.cuh's, one tile a
// block: staged by cp.async, then filtered. c06 and c07 compile their mask's side and take square
// masks; a line went to c04's output tiles, 0.705 ms (1 x 15) and 1.345 ms (15 x 1) on 8192^2 f32
// through Python on an H200, where one read and one write of the image take 0.12 ms.
// Measured (H200, 8192^2 f32, 15 taps, bench/results/h200-2026-11-29-argmax-axes-abdb009.txt):
// across 0.255 ms, down 0.203 ms, 50% and 63% of the copy ceiling (with the stage loaded through
// registers, 8 loads a thread in flight: 0.287 and 0.246; one load at a time: 0.382 and 0.296);
// with the edge tiles by cp.async and 8 shared reads a group of taps (line_pass.cuh, 47d1c8e):
// across 0.255 ms, down 0.183 ms (69%). What is left is the block's load phase, not overlapped
// with its own work: c14 overlaps it.
#include "convolution/cuda/line_pass.cuh"

namespace pplab::detail::convolution_cuda {
namespace {
void run(const convolution_call& c) { run_line<1, 1, 1>(c); }
}  // namespace

extern const convolution_rung c13_line_pass{
    .info = {.step = 13,
             .summary = "a mask of one row or one column (a 1-D pass), its taps a run-time count: "
                        "groups of 8 taps over registers of staged values"},
    .can_run = line_can_run,
    .run = run,
};

}  // namespace pplab::detail::convolution_cuda
