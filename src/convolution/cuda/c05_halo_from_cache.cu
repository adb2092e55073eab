// convolution/cuda/c05_halo_from_cache: the notes' third tiling. Only the output tile's own
// input (32 x 32) goes to shared memory; a tap that falls in the halo reads global memory, where
// the neighbouring block has just loaded the same elements into L1 and L2. Shared memory no longer
// grows with the mask, and the loading loop is one element per thread, but every tap pays a test
// of whether it lies in the tile, and the halo's loads go to the cache.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 8192x8192 mask 7x7 nearest
// in 4.369 ms, 123 GB/s (2.9% of copy bandwidth), 0.34x NPP's speed; f32 8192x8192 mask 5x5 nearest
// in 2.424 ms, 221 GB/s (5.3% of copy bandwidth), 0.10x NPP's speed.
#include "convolution/cuda/constant_mask.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int tile = 32, block_rows = 8, per_thread = tile / block_rows;

template <class T> __global__ void __launch_bounds__(tile* block_rows) halo_from_cache(image<T> f) {
  __shared__ T in[tile][tile];
  const int rh = f.kh / 2, rw = f.kw / 2;
  const int y0 = int(blockIdx.y) * tile, x0 = int(blockIdx.x) * tile;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
#pragma unroll
  for (int s = 0; s < per_thread; ++s)
    in[ty + s * block_rows][tx] = read(f, y0 + ty + s * block_rows, x0 + tx);
  __syncthreads();
  const int x = x0 + tx;
  if (x >= f.cols) return;
#pragma unroll
  for (int s = 0; s < per_thread; ++s) {
    const int ly = ty + s * block_rows, y = y0 + ly;
    if (y >= f.rows) return;
    T acc = 0;
    for (int i = 0; i < f.kh; ++i) {
      const int sy = ly + i - rh;
      for (int j = 0; j < f.kw; ++j) {
        const int sx = tx + j - rw;
        const T v =
            sy >= 0 && sy < tile && sx >= 0 && sx < tile ? in[sy][sx] : read(f, y0 + sy, x0 + sx);
        acc += tap<T>(i * f.kw + j) * v;
      }
    }
    f.out[std::size_t(y) * f.ld_out + x] = acc;
  }
}

struct rung {
  template <class T> static void run(const image<T>& f, const T* mask, void*, cudaStream_t s) {
    const mask_in_bank<T> bank(mask, f.kh * f.kw, s);
    halo_from_cache<T><<<tiles_over(f.rows, f.cols, tile, tile), dim3(tile, block_rows), 0, s>>>(f);
    PPLAB_CUDA_LAUNCHED();
  }
};

bool can_run(const convolution_problem& p) { return fits(p, tile); }
void run(const convolution_call& c) { dispatch<rung>(c); }

}  // namespace

extern const convolution_rung c05_halo_from_cache{
    .info = {.step = 5,
             .summary =
                 "only the tile's interior in shared memory; the halo read through the caches"},
    .can_run = can_run,
    .run = run,
    .explain = [](const convolution_problem& p) { return tile_intensity(p, 32, 32); },
};

}  // namespace pplab::detail::convolution_cuda
