// The GPU matmul ladder, registered in order; the lab and the tests walk it as registered.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail {
namespace gpu_matmul {
bool m00_can_run(const matmul_problem&);
void m00_run(const matmul_call&);
void m01_run(const matmul_call&);
void m02_run(const matmul_call&);
template <int TW> void m03_run(const matmul_call&);
template <int TW> std::string m03_explain(const matmul_problem&);
void m04_run(const matmul_call&);
void m05_run(const matmul_call&);
void m06_run(const matmul_call&);
void m07_wide_run(const matmul_call&);
void m07_narrow_run(const matmul_call&);
void m08_run(const matmul_call&);
void m08_small_run(const matmul_call&);
bool m09_can_run(const matmul_problem&);
void m09_run(const matmul_call&);
bool m10_can_run(const matmul_problem&);
std::size_t m10_scratch(const matmul_problem&);
void m10_run(const matmul_call&);
std::size_t m12_scratch(const matmul_problem&);
void m12_run(const matmul_call&);
bool m13_can_run(const matmul_problem&);
std::size_t m13_scratch(const matmul_problem&);
void m13_run(const matmul_call&);
bool m14_can_run(const matmul_problem&);
std::size_t m14_scratch(const matmul_problem&);
void m14_run(const matmul_call&);
bool m15_can_run(const matmul_problem&);
std::size_t m15_scratch(const matmul_problem&);
void m15_run(const matmul_call&);
bool m16_can_run(const matmul_problem&);
std::size_t m16_scratch(const matmul_problem&);
void m16_run(const matmul_call&);
}  // namespace gpu_matmul

void register_matmul_cuda(std::vector<matmul_rung>& r) {
  using namespace gpu_matmul;
  const auto add = [&](std::string_view id, int rung, std::string_view summary,
                       bool (*can)(const matmul_problem&), void (*run)(const matmul_call&)) {
    r.push_back({{id, backend::cuda, rung, summary}, can, nullptr, run});
  };
  add("matmul/cuda/m00_cublas", 0, "cuBLAS sgemm (strict fp32) / dgemm: the vendor baseline",
      m00_can_run, m00_run);
  add("matmul/cuda/m01_naive", 1, "one thread per element of C, warps down the rows: uncoalesced",
      grid_fits, m01_run);
  add("matmul/cuda/m02_coalesced", 2, "one thread per element of C, warps along the rows",
      grid_fits, m02_run);
  const auto tiled = [&](std::string_view id, std::string_view summary,
                         void (*run)(const matmul_call&),
                         std::string (*explain)(const matmul_problem&)) {
    r.push_back({{id, backend::cuda, 3, summary}, grid_fits, nullptr, run, explain});
  };
  tiled("matmul/cuda/m03_tiled_w8", "shared-memory tiles 8 x 8, a barrier after load and compute",
        m03_run<8>, m03_explain<8>);
  tiled("matmul/cuda/m03_tiled_w16", "shared-memory tiles 16 x 16", m03_run<16>, m03_explain<16>);
  tiled("matmul/cuda/m03_tiled_w32", "shared-memory tiles 32 x 32", m03_run<32>, m03_explain<32>);
  add("matmul/cuda/m04_register_strip", 4,
      "1-D register tiling: 8 results down a column per thread, 64 x 64 tiles", grid_fits, m04_run);
  add("matmul/cuda/m05_register_block", 5,
      "2-D register tiling: 8 x 8 results per thread, 128 x 128 tiles", grid_fits, m05_run);
  add("matmul/cuda/m06_vector_transposed", 6,
      "16-byte loads, A's tile transposed: no shared-memory bank conflicts", grid_fits, m06_run);
  add("matmul/cuda/m07_warp_tiled_8x16", 7,
      "warp tiles 64 x 64, 128 threads of 8 x 16 results (f64: 8 x 8)", grid_fits, m07_wide_run);
  add("matmul/cuda/m07_warp_tiled_8x8", 7, "warp tiles 64 x 32, 256 threads of 8 x 8 results",
      grid_fits, m07_narrow_run);
  add("matmul/cuda/m08_double_buffered", 8,
      "two buffers in shared memory and in registers: loads overlap the multiply", grid_fits,
      m08_run);
  add("matmul/cuda/m08_double_buffered_64x64", 8, "the same with 64 x 64 tiles: 4x the blocks",
      grid_fits, m08_small_run);
  add("matmul/cuda/m09_async_pipeline", 9,
      "m07 fed by cp.async through 3 shared-memory stages, A's tile untransposed", m09_can_run,
      m09_run);
  const auto add_with_scratch = [&](std::string_view id, int rung, std::string_view summary,
                                    std::size_t (*scratch)(const matmul_problem&),
                                    void (*run)(const matmul_call&)) {
    r.push_back({{id, backend::cuda, rung, summary}, m10_can_run, scratch, run});
  };
  add_with_scratch("matmul/cuda/m10_split_k", 10,
                   "m08 over slices of K when C has too few tiles for the SMs", m10_scratch,
                   m10_run);
  r.push_back({{"matmul/cuda/m12_padded_whole_tiles", backend::cuda, 12,
                "A and B copied into zero-padded whole tiles, then m08's interior kernel"},
               grid_fits,
               m12_scratch,
               m12_run});
  r.push_back({{"matmul/cuda/m13_f64_tensor_cores", backend::cuda, 13,
                "f64 on the fp64 tensor cores (mma.sync m16n8k4), tiles by cp.async"},
               m13_can_run,
               m13_scratch,
               m13_run});
  r.push_back({{"matmul/cuda/m14_f32_split_tf32", backend::cuda, 14,
                "f32 on the TF32 tensor cores within fp32's error bound: each operand split in "
                "two, three products (opt-in)",
                false, true, false, /*opt_in=*/true, /*tf32_split=*/true},
               m14_can_run,
               m14_scratch,
               m14_run});
  r.push_back({{"matmul/cuda/m15_wide_async", backend::cuda, 15,
                "f32: 8 x 16 results per thread, tiles by cp.async (A transposed by 4-byte "
                "copies) issued among the multiply-adds"},
               m15_can_run,
               m15_scratch,
               m15_run});
  r.push_back({{"matmul/cuda/m16_f32_split_tf32_wgmma", backend::cuda, 16,
                "m14's three TF32 products on Hopper's warpgroup products (wgmma), the operands "
                "split once by a first pass, tiles by the copy engine (opt-in)",
                false, true, false, /*opt_in=*/true, /*tf32_split=*/true},
               m16_can_run,
               m16_scratch,
               m16_run});
}

}  // namespace pplab::detail
