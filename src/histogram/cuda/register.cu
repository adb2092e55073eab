// The GPU histogram ladder, registered in order; the lab and the tests walk it as registered.
#include "core/modules.hpp"
#include "histogram/cuda/histogram_cuda.cuh"
#include "histogram/cuda/rungs.hpp"

namespace pplab::detail {

void register_histogram_cuda(std::vector<histogram_rung>& r) {
  using namespace gpu_histogram;
  const auto add = [&](std::string_view id, int rung, std::string_view summary,
                       bool (*can)(const histogram_problem&),
                       std::size_t (*scratch)(const histogram_problem&),
                       void (*run)(const histogram_call&), bool racy = false) {
    r.push_back({{id, backend::cuda, rung, summary, racy, !racy}, can, scratch, run});
  };
  const auto teaching = supports<dtypes::teaching>, all = supports<dtypes::all>;
  add("histogram/cuda/h00_cub", 0, "cub::DeviceHistogram::HistogramEven: the vendor baseline",
      h00_can_run, h00_scratch, h00_run);
  add("histogram/cuda/h01_racy_increment", 1,
      "counts[bin]++ without atomics: the data race, counts lost", teaching, nullptr, h01_run,
      true);
  add("histogram/cuda/h02_sectioned_atomics", 2,
      "a contiguous section per thread, global atomics: uncoalesced", teaching, nullptr, h02_run);
  add("histogram/cuda/h03_interleaved_atomics", 3,
      "interleaved (coalesced) partition, global atomics", all, nullptr, h03_run);
  add("histogram/cuda/h04_shared_privatized", 4,
      "a private shared-memory histogram per block, flushed once", h04_can_run, nullptr, h04_run);
  add("histogram/cuda/h05_lane_sub_histograms", 5,
      "a shared copy per lane (bank-conflict free) and 16-byte loads", h05_can_run, nullptr,
      h05_run);
  add("histogram/cuda/h06_cluster_distributed", 6,
      "bins past one block: one histogram over a cluster's shared memory", h06_can_run, nullptr,
      h06_run);
  add("histogram/cuda/h07_packed_16bit_counters", 7,
      "two 16-bit counters per word: twice the bins in one block, all atomics local", h07_can_run,
      nullptr, h07_run);
  add("histogram/cuda/h08_merged_runs", 8,
      "h05 with each thread's runs of one slot added by one atomic", h08_can_run, nullptr, h08_run);
  add("histogram/cuda/h09_radix_partition", 9,
      "many bins: slots as keys, CUB radix sort by bucket, shared-memory counts per bucket",
      h09_can_run, h09_scratch, h09_run);
  add("histogram/cuda/h10_block_multisplit", 10,
      "many bins: a hand-written split by bucket (16-bit low slots), shared-memory counts",
      h10_can_run, h10_scratch, h10_run);
  add("histogram/cuda/h11_partial_privatized", 11,
      "many bins, skewed: hot bins (from a sample) in shared memory, the rest global atomics",
      h11_can_run, h11_scratch, h11_run);
  add("histogram/cuda/h12_sampled_choice", 12,
      "many bins: h11 when a sample's hot slots hold most of the data, else h10", h12_can_run,
      h12_scratch, h12_run);
}

}  // namespace pplab::detail

namespace pplab::detail {

std::vector<ceiling> gpu_atomic_rates_here(executor& ex, double budget_s);  // atomic_rates.cu
std::size_t cub_rgba_scratch_here(std::size_t pixels);                      // h00_cub.cu
void cub_rgba_histogram_here(const void* pixels, std::size_t n_pixels, std::uint64_t* counts,
                             void* scratch, void* stream);

// What the lab reaches through the module's table (src/histogram/cuda_forward.cpp).
void add_histogram_cuda_exports(module_exports& e) {
  e.add("gpu_atomic_rates", &gpu_atomic_rates_here);
  e.add("cub_rgba_scratch", &cub_rgba_scratch_here);
  e.add("cub_rgba_histogram", &cub_rgba_histogram_here);
}

}  // namespace pplab::detail
