#include "histogram/binning.hpp"

namespace pplab::detail {

void histogram_cpu_h01(const histogram_call&);
void histogram_cpu_h02(const histogram_call&);
void histogram_cpu_h03(const histogram_call&);
void histogram_cpu_h04(const histogram_call&);
std::size_t histogram_cpu_h02_scratch(const histogram_problem&);
std::size_t histogram_cpu_h03_scratch(const histogram_problem&);

namespace {
// Private copies are worth their memory up to this much scratch, all threads together.
constexpr std::size_t private_budget = std::size_t(512) << 20;
bool h02_fits(const histogram_problem& p) { return histogram_cpu_h02_scratch(p) <= private_budget; }
bool h03_fits(const histogram_problem& p) { return histogram_cpu_h03_scratch(p) <= private_budget; }
}  // namespace

void register_histogram_cpu(std::vector<histogram_rung>& r) {
  r.push_back({{"histogram/cpu/h01_shared_atomic", backend::cpu, 1,
                "one shared histogram, atomic increments"},
               any_histogram,
               nullptr,
               histogram_cpu_h01});
  r.push_back({{"histogram/cpu/h02_private_per_thread", backend::cpu, 2,
                "a private histogram per thread, merged by a reduction"},
               h02_fits,
               histogram_cpu_h02_scratch,
               histogram_cpu_h02});
  r.push_back({{"histogram/cpu/h03_sub_histograms", backend::cpu, 3,
                "several 32-bit sub-histograms per thread: skew does not serialize"},
               h03_fits,
               histogram_cpu_h03_scratch,
               histogram_cpu_h03});
  r.push_back({{"histogram/cpu/h04_partition_then_count", backend::cpu, 4,
                "one radix pass into L2-sized buckets, then count"},
               any_histogram,
               nullptr,
               histogram_cpu_h04});
}

}  // namespace pplab::detail
