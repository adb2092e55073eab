#include "core/modules.hpp"
#include "reduce/cuda/reduce_cuda.cuh"

namespace pplab::detail {
namespace gpu_reduce {
#define PPLAB_RUNG(k)                                                                              \
  std::size_t r##k##_scratch(const reduce_problem&);                                               \
  void r##k##_run(const reduce_call&);
PPLAB_RUNG(00)
PPLAB_RUNG(01)
PPLAB_RUNG(02)
PPLAB_RUNG(03)
PPLAB_RUNG(04)
PPLAB_RUNG(05)
PPLAB_RUNG(06)
PPLAB_RUNG(07)
PPLAB_RUNG(08)
PPLAB_RUNG(09)
PPLAB_RUNG(10)
PPLAB_RUNG(11)
PPLAB_RUNG(12)
#undef PPLAB_RUNG
bool cub_float_sum_can_run(const reduce_problem&);
bool r11_can_run(const reduce_problem&);
std::size_t cub_float_sum_scratch(const reduce_problem&);
void cub_float_sum_run(const reduce_call&);
void reduce_rows_here(dtype t, const void* in, std::size_t rows, std::size_t cols, std::size_t ld,
                      op o, void* out, void* stream);  // rows.cu
}  // namespace gpu_reduce

// What the core reaches through the module's table (src/reduce/cuda_forward.cpp).
void add_reduce_cuda_exports(module_exports& e) {
  e.add("reduce_rows", &gpu_reduce::reduce_rows_here);
}

void register_reduce_cuda(std::vector<reduce_rung>& r) {
  // The ladder in order; the lab and the tests walk it as registered.
  using namespace gpu_reduce;
  const auto add = [&](std::string_view id, int rung, std::string_view summary,
                       bool (*can)(const reduce_problem&),
                       std::size_t (*scratch)(const reduce_problem&),
                       void (*run)(const reduce_call&), bool reproducible = true,
                       bool float_accumulator = false) {
    r.push_back({{id, backend::cuda, rung, summary, false, reproducible, float_accumulator},
                 can,
                 scratch,
                 run});
  };
  const auto wide = supports<dtypes::wide>, all = supports<dtypes::all>;
  add("reduce/cuda/r00_cub", 0, "cub::DeviceReduce with the same accumulator: the vendor baseline",
      all, r00_scratch, r00_run);
  add("reduce/cuda/cub_float_sum", -1,
      "cub::DeviceReduce::Sum as users call it, accumulating in float: a reference",
      cub_float_sum_can_run, cub_float_sum_scratch, cub_float_sum_run, true, true);
  add("reduce/cuda/r01_interleaved_divergent", 1,
      "shared-memory tree, t % (2*stride): divergent warps", wide, r01_scratch, r01_run);
  add("reduce/cuda/r02_strided_index", 2, "index 2*stride*t: no divergence, bank conflicts", wide,
      r02_scratch, r02_run);
  add("reduce/cuda/r03_sequential_addressing", 3,
      "stride halving from blockDim.x: compact, conflict-free", wide, r03_scratch, r03_run);
  add("reduce/cuda/r04_first_add_during_load", 4, "two elements per thread, added while loading",
      wide, r04_scratch, r04_run);
  add("reduce/cuda/r05_unroll_last_warp", 5, "last warp without block barriers (__syncwarp)", wide,
      r05_scratch, r05_run);
  add("reduce/cuda/r06_complete_unroll", 6, "block size as a template parameter: fully unrolled",
      wide, r06_scratch, r06_run);
  add("reduce/cuda/r07_grid_stride_cascade", 7,
      "resident grid, many elements per thread (cascading)", wide, r07_scratch, r07_run);
  add("reduce/cuda/r08_warp_shuffle", 8, "warp shuffles; shared memory only between warps", wide,
      r08_scratch, r08_run);
  add("reduce/cuda/r09_vector_loads", 9, "16-byte loads, four in flight per thread", all,
      r09_scratch, r09_run);
  add("reduce/cuda/r10_host_combine", 10, "block partials combined on the host", all, r10_scratch,
      r10_run);
  add("reduce/cuda/r11_atomic_combine", 11,
      "block partials combined by atomics (not deterministic)", r11_can_run, r11_scratch, r11_run,
      false);
  add("reduce/cuda/r12_last_block_finishes", 12,
      "one launch: the last block combines, deterministic", all, r12_scratch, r12_run);
}

}  // namespace pplab::detail
