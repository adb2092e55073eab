// The GPU matmul ladder, registered in order; the lab and the tests walk it as registered.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail {
namespace gpu_matmul {
bool m00_can_run(const matmul_problem&);
void m00_run(const matmul_call&);
void m01_run(const matmul_call&);
void m02_run(const matmul_call&);
template <int TW> void m03_run(const matmul_call&);
}  // namespace gpu_matmul

void register_matmul_cuda(registry& r) {
  using namespace gpu_matmul;
  const auto add = [&](std::string_view id, int rung, std::string_view summary,
                       bool (*can)(const matmul_problem&), void (*run)(const matmul_call&)) {
    r.matmul.push_back({{id, pattern::matmul, backend::cuda, rung, summary}, can, nullptr, run});
  };
  add("matmul/cuda/m00_cublas", 0, "cuBLAS sgemm (strict fp32) / dgemm: the vendor baseline",
      m00_can_run, m00_run);
  add("matmul/cuda/m01_naive", 1, "one thread per element of C, warps down the rows: uncoalesced",
      grid_fits, m01_run);
  add("matmul/cuda/m02_coalesced", 2, "one thread per element of C, warps along the rows",
      grid_fits, m02_run);
  add("matmul/cuda/m03_tiled_w8", 3, "shared-memory tiles 8 x 8, a barrier after load and compute",
      grid_fits, m03_run<8>);
  add("matmul/cuda/m03_tiled_w16", 3, "shared-memory tiles 16 x 16", grid_fits, m03_run<16>);
  add("matmul/cuda/m03_tiled_w32", 3, "shared-memory tiles 32 x 32", grid_fits, m03_run<32>);
}

}  // namespace pplab::detail
