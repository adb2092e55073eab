// reduce/nccl/r03_partials_to_host: r02's answer without its collective. In one process every
// GPU's memory is this process's, so each GPU copies its partial straight to pinned host memory
// behind its local rung (a 32-byte copy on its own stream), and the host joins them in the GPUs'
// order once every stream has finished: the same bits as r02, every operator. r02's
// ncclAllGather (an NCCL kernel on every GPU, each waiting for the others, then a copy back: the
// lab's 4-byte all-reduce latency, ~23 us on 2 H200s, in every call) leaves the critical path; a
// whole call is then the slowest GPU's local rung, one small copy and the answer's write.
// A job of processes cannot reach the other processes' GPUs: r02 there.
// Prediction (2 x H200, against r02 in the same run): a whole call on 2^20 f32 per GPU shorter by
// about one small collective (then ~59 us to ~30 us); on 2^30 per GPU ~0.03 ms less (1.89x ->
// ~1.94x one GPU). Measured (bench/results/h200x2-2026-11-24-nccl-r03.txt, one run; that machine's
// 4-byte all-reduce took 30 us, the earlier one's 23): 2^20 per GPU, a whole call 56 us against
// r02's 86 and r01's 84 (one GPU alone 24 us): one collective's latency less, as predicted;
// 2^30 per GPU 1.024 ms, 1.89x one GPU, against r02's 1.036 ms, 1.87x (0.012 ms less, not 0.03).
// The same counts to the host for the histogram (h03, branch wip/nccl-host-combine) lost to h01's
// all-reduce: 0.96x at 2^10 bins, 0.84x at 2^20 (2^20 counts of 8 bytes per GPU through the host).
#include "core/nccl/world.hpp"
#include "reduce/nccl/reduce_nccl.hpp"

namespace pplab::detail::reduce_nccl {

namespace {

bool can_run(const reduce_problem& p) {
  return !p.exact && !is_arg(p.what) && !is_moments(p.what) && !skips_nan(p.what) &&
         !nccl::job_of_processes();
}

void run(const reduce_call& c) {
  // Each partial comes back into its pinned slot right behind its GPU's rung.
  std::vector<nccl::device_buffer> parts = local_partials(c, true);
  partial* host = pinned_partials();
  nccl::synchronize();
  put_answer(c, reduce_parts::in_order(host, int(nccl::members().size())));
}

}  // namespace

extern const reduce_rung r03_partials_to_host{
    .info = {.step = 3,
             .summary = "one process: partials copied to the host, joined in GPU order (r02's "
                        "answer, no collective)"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::reduce_nccl
