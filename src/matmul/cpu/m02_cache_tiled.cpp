// matmul/cpu/m02_cache_tiled: the CPU image of the tiling notes' shared-memory tiles. C is cut into
// (tile, tile) tiles, one per task; for each, the loop walks the k dimension tile by tile and
// multiplies a (tile, tile) block of A by a (tile, tile) block of B into an accumulator tile
// that stays in L1. Each block of B is then reused `tile` times from cache instead of once from
// memory: the tiling notes' tile-size arithmetic, with the cache in the place of shared memory and
// no barrier needed (each task owns its tile of C). What limits it: the accumulator tile lives in
// L1, not registers, so each multiply-add still moves a load and a store: m03 fixes that.
// Measured (2-core EPYC dev machine, bench/results/cpu-2core-2026-11-21.json): f32 2048^3, 30.2
// GFLOP/s, 15.1% of the FMA peak measured in the same run, 0.20x OpenBLAS.
#include "matmul/matmul_common.hpp"

namespace pplab::detail::matmul_cpu {
namespace {

template <std::size_t tile> struct cache_tiled {
  template <class T> static void run(const gemm<T>& g) {
    const std::size_t tiles_m = (g.m + tile - 1) / tile, tiles_n = (g.n + tile - 1) / tile;
#pragma omp parallel for collapse(2) schedule(static)
    for (std::ptrdiff_t ti = 0; ti < std::ptrdiff_t(tiles_m); ++ti)
      for (std::ptrdiff_t tj = 0; tj < std::ptrdiff_t(tiles_n); ++tj) {
        const std::size_t i0 = std::size_t(ti) * tile, j0 = std::size_t(tj) * tile;
        const std::size_t mi = std::min(tile, g.m - i0), nj = std::min(tile, g.n - j0);
        alignas(64) T acc[tile][tile] = {};  // (tile rows of C, tile columns of C)
        for (std::size_t k0 = 0; k0 < g.k; k0 += tile) {
          const std::size_t kk = std::min(tile, g.k - k0);
          for (std::size_t i = 0; i < mi; ++i)
            for (std::size_t k = 0; k < kk; ++k) {
              const T a = g.a[(i0 + i) * g.lda + k0 + k];
              const T* brow = g.b + (k0 + k) * g.ldb + j0;
              for (std::size_t j = 0; j < nj; ++j) acc[i][j] += a * brow[j];
            }
        }
        for (std::size_t i = 0; i < mi; ++i) {
          T* crow = g.c + (i0 + i) * g.ldc + j0;
          scale_row(crow, nj, g.beta);
          for (std::size_t j = 0; j < nj; ++j) crow[j] += g.alpha * acc[i][j];
        }
      }
  }
};

// Tile sizes tried: 32 and 64 (64 x 64 floats = 16 KiB of accumulator, half of L1).
void run(const matmul_call& c) { dispatch_matmul<cache_tiled<64>>(c); }

}  // namespace

extern const matmul_rung m02_cache_tiled{
    .info = {.step = 2, .summary = "64x64 tiles: each block of B reused from cache 64 times"},
    .can_run = one_float_product,
    .run = run,
};

}  // namespace pplab::detail::matmul_cpu
