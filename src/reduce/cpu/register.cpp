#include "reduce/reduce_common.hpp"

namespace pplab::detail {

void reduce_cpu_r01(const reduce_call&);
void reduce_cpu_r02(const reduce_call&);
void reduce_cpu_r03(const reduce_call&);

void register_reduce_cpu(std::vector<reduce_rung>& r) {
  r.push_back({{"reduce/cpu/r01_omp_reduction_clause", backend::cpu, 1,
                "OpenMP reduction clause: per-thread copies combined by the runtime", false, false},
               any_problem,
               nullptr,
               reduce_cpu_r01});
  r.push_back({{"reduce/cpu/r02_partition_tree_combine", backend::cpu, 2,
                "per-thread partials on their own cache lines, combined in a tree"},
               any_problem,
               nullptr,
               reduce_cpu_r02});
  r.push_back({{"reduce/cpu/r03_simd_accumulators", backend::cpu, 3,
                "independent SIMD accumulators over fixed blocks: memory speed, same bits"},
               any_problem,
               nullptr,
               reduce_cpu_r03});
}

}  // namespace pplab::detail
