#include "histogram/binning.hpp"

namespace pplab::detail {

void histogram_nccl_h01(const histogram_call&);
void histogram_nccl_h02(const histogram_call&);

// Each GPU counts its slice with the cuda backend's best rung; the rungs differ in how the
// 64-bit counts are added over the GPUs (both exact).
void register_histogram_nccl(std::vector<histogram_rung>& r) {
  r.push_back({{"histogram/nccl/h01_allreduce", backend::nccl, 1,
                "one ncclAllReduce of the counts, in place"},
               any_histogram,
               nullptr,
               histogram_nccl_h01});
  r.push_back({{"histogram/nccl/h02_reduce_scatter", backend::nccl, 2,
                "ncclReduceScatter (each GPU adds its share of the slots), then the "
                "shares copied to the answer"},
               any_histogram,
               nullptr,
               histogram_nccl_h02});
}

}  // namespace pplab::detail
