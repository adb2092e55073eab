// matmul/cuda/m11_by_shape: the GPU default. One tiling does not fit every shape: a 128 x 128 tile
// per block is the fastest per flop, but a C with fewer such tiles than two per SM leaves SMs idle
// (1024^3 has 64 tiles for 132 SMs; 128 x 8192 x 8192 has 64). The table, with the measurements
// that chose it (H200, ratios to cuBLAS in the same run, docs/matmul.md):
//
//   class                                 test                              kernel
//   f64 (sm_90), tiles or depth           128^2 tiles >= 1 per SM, or k >= 512   m13, tensor cores
//   f32, deep K                           k >= 512                          m15 (pads B, slices K)
//   enough big tiles, whole               128^2 tiles >= 2 per SM           m08, 128 x 128
//   enough big tiles, odd sizes           the same, M, N, K not whole       m12, padded copies
//   few tiles, deep K (f64 off sm_90)     fewer, and k >= 2 x 256           m10, slices of K
//   few tiles, shallow K                  fewer, and k < 512                m08, 64 x 64
//
// f32 with a deep K (bench/results/h200-2026-11-24-matmul-d58d0d6.json, ratios to cuBLAS in the
// same run; the steps in ...-m15-wide-async-steps.txt): m15 0.96x at 4096^3 (m08 0.89x), 0.97x at
// 8192^3 (0.90x), 0.98x at 4093^3 (m12 0.93x; 1.00x since m15 reads A in place and stages C:
// ...-m15-odd-shapes.txt), 1.08x at 1024^3 (m10 1.03x), 0.93x at
// 128 x 8192 x 8192 (m10 0.86x). A shallow K keeps the table below: at 8192 x 8192 x 128
// m08 1.07x, m15 1.06x (0.98x with its copies at k steps 0 and 3). The rest, before m15:
// (bench/results/h200-2026-11-23-matmul-2ea7328.json) 4096^3, 8192^3, 8192 x 8192 x 128: m08's
// interior kernel (0.89x, 0.90x, 1.07x; the 64 x 64 tiles 0.76-0.99x). 4093^3: m12 0.93x against
// m08's 0.87x (...-2026-11-24-matmul-4b55444.json). 1024^3: m10 1.02x against 1.01x for 64 x 64
// tiles and 0.54x for m08. 128 x 8192 x 8192: m10 0.87x, 64 x 64 tiles 0.64x. Shallow K has too
// little depth to slice: smaller tiles are the way to more blocks there. Where m12's or m10's
// scratch does not fit, the policy runs m08. f64 (...-2026-11-24-matmul-m13-split-k.json): m13
// 1.02x cuBLAS DGEMM at 4096^3 and 1.03x at 2048^3 (m08 0.46x, 0.47x), 0.90x at 1024^3 in 2 slices
// of K (m10 0.40x); f64 with few tiles and a shallow K keeps the SIMT table.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::gpu_matmul {

void m08_run(const matmul_call&);
void m08_small_run(const matmul_call&);
void m10_run(const matmul_call&);
std::size_t m10_scratch(const matmul_problem&);
void m12_run(const matmul_call&);
std::size_t m12_scratch(const matmul_problem&);
bool m12_whole_already(const matmul_problem&);
bool m13_can_run(const matmul_problem&);
std::size_t m13_scratch(const matmul_problem&);
void m13_run(const matmul_call&);
bool m15_can_run(const matmul_problem&);
std::size_t m15_scratch(const matmul_problem&);
void m15_run(const matmul_call&);

namespace {

enum class shape_class { big_tiles, split_k, small_tiles, f64_tensor_cores, f32_wide_async };

shape_class classify(const matmul_problem& p) {
  const std::size_t tiles = ceil_div(p.m, 128) * ceil_div(p.n, 128);
  // m13 runs one block per SM, and slices K itself where the tiles are fewer than the SMs.
  if (m13_can_run(p) && (tiles >= std::size_t(sm_count()) || p.k >= 512))
    return shape_class::f64_tensor_cores;
  if (m15_can_run(p) && p.k >= 512) return shape_class::f32_wide_async;
  if (tiles >= 2 * std::size_t(sm_count())) return shape_class::big_tiles;
  return p.k >= 512 ? shape_class::split_k : shape_class::small_tiles;
}

}  // namespace

std::size_t m11_scratch(const matmul_problem& p) {
  if (p.m == 0 || p.n == 0) return 0;
  switch (classify(p)) {
  case shape_class::big_tiles:
    return m12_whole_already(p) ? 0 : m12_scratch(p);
  case shape_class::split_k:
    return m10_scratch(p);
  case shape_class::small_tiles:
    return 0;
  case shape_class::f64_tensor_cores:
    return m13_scratch(p);
  case shape_class::f32_wide_async:
    return m15_scratch(p);
  }
  return 0;
}

void m11_run(const matmul_call& c) {
  if (c.p.m == 0 || c.p.n == 0) return;
  switch (classify(c.p)) {
  case shape_class::big_tiles:
    return m12_whole_already(c.p) ? m08_run(c) : m12_run(c);
  case shape_class::split_k:
    return m10_run(c);
  case shape_class::small_tiles:
    return m08_small_run(c);
  case shape_class::f64_tensor_cores:
    return m13_run(c);
  case shape_class::f32_wide_async:
    return m15_run(c);
  }
}

}  // namespace pplab::detail::gpu_matmul
