#include "reduce/reduce_common.hpp"

namespace pplab::detail {

bool reduce_nccl_r01_can_run(const reduce_problem&);
void reduce_nccl_r01(const reduce_call&);
void reduce_nccl_r02(const reduce_call&);
bool reduce_nccl_r03_can_run(const reduce_problem&);
void reduce_nccl_r03(const reduce_call&);

// The nccl ladder is a ladder of combines: each GPU runs the cuda backend's best rung on its
// slice, and the rungs differ in how the GPUs' partials meet.
void register_reduce_nccl(std::vector<reduce_rung>& r) {
  r.push_back({{"reduce/nccl/r01_allreduce_partials", backend::nccl, 1,
                "one ncclAllReduce of the GPUs' partials (float order: NCCL's)", false, false},
               reduce_nccl_r01_can_run,
               nullptr,
               reduce_nccl_r01});
  r.push_back({{"reduce/nccl/r02_device_order", backend::nccl, 2,
                "partials all-gathered, joined in GPU order: the same bits every run"},
               any_problem,
               nullptr,
               reduce_nccl_r02});
  r.push_back({{"reduce/nccl/r03_partials_to_host", backend::nccl, 3,
                "one process: partials copied to the host, joined in GPU order (r02's "
                "answer, no collective)"},
               reduce_nccl_r03_can_run,
               nullptr,
               reduce_nccl_r03});
}

}  // namespace pplab::detail
