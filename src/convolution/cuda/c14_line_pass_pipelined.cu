// convolution/cuda/c14_line_pass_pipelined: c13's 1-D pass (line_pass.cuh), a block filtering a
// run of tiles down the image through a ring of stages in shared memory, the copies of the next
// tiles in flight while it filters one. c13's block copies its tile, waits, then filters: at 4
// blocks an SM (its 54-64 registers a thread) an SM has at most 4 tiles' copies in flight, 19 KB
// across at 15 taps, where the H200's bandwidth times its latency asks for ~36 KB an SM (4.8 TB/s
// x ~1 us over 132 SMs), and fewer while its blocks filter: c13 ran at 50% (across) and 63% (down)
// of the copy ceiling. Three stages across (a tile is 9.5 KB at 15 taps), two down (11 KB), a
// block's run up to 8 tiles where the image has blocks enough to fill the GPU 8 times (four
// stages across measured the same, 0.179 ms).
#include "convolution/cuda/line_pass.cuh"

namespace pplab::detail::convolution_cuda {
namespace {
void run(const convolution_call& c) { run_line<3, 2, 8>(c); }
}  // namespace

extern const convolution_rung c14_line_pass_pipelined{
    .info = {.step = 14,
             .summary = "c13's 1-D pass, a block's tiles through a ring of stages: the next tiles' "
                        "copies in flight while one is filtered"},
    .can_run = line_can_run,
    .run = run,
};

}  // namespace pplab::detail::convolution_cuda
