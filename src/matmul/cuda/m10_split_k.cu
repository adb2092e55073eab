// matmul/cuda/m10_split_k: products with few tiles of C and a long K (128 x 8192 x 8192 has 64
// tiles of 128 x 128 for 132 SMs; 1024^3 has 64) leave most of the GPU idle however fast each
// tile is. Here K is cut into slices, each (tile, slice) pair is a block of m08's kernel that
// stores its partial product in scratch, and a second pass adds the parts in slice order (the
// same sum on every run) and applies alpha and beta. Slices are chosen so the grid gives every SM
// at least two blocks, each slice at least 256 deep; a product with enough tiles gets one slice
// and is m08 itself. The cost: the parts written and read once more (slices x m x n elements
// each way), small beside the arithmetic for the shapes that take more than one slice.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 1024x1024x1024 in 0.063 ms,
// 34274 GFLOP/s (61.4% of the FMA peak), 1.02x cuBLAS's speed (m08 alone: 0.54x); f32 128x8192x8192
// 0.87x.
#include "matmul/cuda/double_buffered.cuh"

namespace pplab::detail::matmul_cuda {
namespace {

using P32 = narrow_sub4;
using P64 = narrow_threads_bk8;

std::size_t tiles_of(const matmul_problem& p) {
  return ceil_div(p.m, P32::BM) * ceil_div(p.n, P32::BN);  // the same tile for f32 and f64
}

// Two blocks per SM; BK = 16 is also a multiple of f64's 8.
k_cut slicing(const matmul_problem& p) {
  return cut_k(tiles_of(p), p.k, 2 * std::size_t(sm_count()), P32::BK);
}

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s, void* scratch) {
    if (g.m == 0 || g.n == 0) return;
    using P = std::conditional_t<sizeof(T) == 4, P32, P64>;
    const matmul_problem p{sizeof(T) == 4 ? dtype::f32 : dtype::f64, g.m, g.n, g.k};
    const k_cut cut = slicing(p);
    if (cut.count <= 1) return launch_double_buffered<T, P>(g, s);
    T* parts = static_cast<T*>(scratch);
    launch_double_buffered<T, P>(g, s, {parts, cut.ks, g.n % vec_width<T> == 0},
                                 unsigned(cut.count));
    launch_add_parts(g, parts, cut.count, s);
  }
};

std::size_t scratch(const matmul_problem& p) {
  if (p.m == 0 || p.n == 0 || !one_float_product(p)) return 0;
  return slicing(p).parts_elements(p.m, p.n) * size_of(p.type);
}

bool can_run(const matmul_problem& p) { return grid_fits(p) && ceil_div(p.k, min_k_slice) < 65536; }

void run(const matmul_call& c) {
  dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream), c.scratch);
}

}  // namespace

extern const matmul_rung m10_split_k{
    .info = {.step = 10, .summary = "m08 over slices of K when C has too few tiles for the SMs"},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
