// convolution/cuda/c03_input_tile: the tiling notes' tiled kernel, block = input tile. A block of
// 32 x 32 threads loads a 32 x 32 tile of the input, halo included (each thread one element, the
// boundary applied as it loads), into shared memory, waits, and the threads of its inner
// (32 - 2 rh) x (32 - 2 rw) compute one output each from shared memory; the others only loaded.
// Each input element then comes from global memory about once per block that holds it, not once
// per tap, but the larger the mask, the more threads idle: at 7 x 7, 676 of 1024 compute; at
// 15 x 15, 4.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 8192x8192 mask 7x7 nearest
// in 1.509 ms, 356 GB/s (8.5% of copy bandwidth), 0.98x NPP's speed; f32 8192x8192 mask 5x5 nearest
// in 0.985 ms, 545 GB/s (13.0% of copy bandwidth), 0.26x NPP's speed.
#include "convolution/cuda/constant_mask.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int in_tile = 32;

template <class T> __global__ void __launch_bounds__(in_tile* in_tile) input_tile(image<T> f) {
  __shared__ T tile[in_tile][in_tile];
  const int rh = f.kh / 2, rw = f.kw / 2;
  const int out_h = in_tile - 2 * rh, out_w = in_tile - 2 * rw;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  const int y = int(blockIdx.y) * out_h + ty - rh, x = int(blockIdx.x) * out_w + tx - rw;
  tile[ty][tx] = read(f, y, x);
  __syncthreads();  // the tile is whole
  if (ty < rh || ty >= in_tile - rh || tx < rw || tx >= in_tile - rw) return;
  if (y >= f.rows || x >= f.cols) return;
  T acc = 0;
  for (int i = 0; i < f.kh; ++i)
    for (int j = 0; j < f.kw; ++j) acc += tap<T>(i * f.kw + j) * tile[ty - rh + i][tx - rw + j];
  f.out[std::size_t(y) * f.ld_out + x] = acc;
}

struct rung {
  template <class T> static void run(const image<T>& f, const T* mask, void*, cudaStream_t s) {
    const mask_in_bank<T> bank(mask, f.kh * f.kw, s);
    const int out_h = in_tile - 2 * (f.kh / 2), out_w = in_tile - 2 * (f.kw / 2);
    input_tile<T><<<tiles_over(f.rows, f.cols, out_h, out_w), dim3(in_tile, in_tile), 0, s>>>(f);
    PPLAB_CUDA_LAUNCHED();
  }
};

// Output tiles of 2 rows at the largest masks: the grid has rows / 2 rows of blocks.
bool can_run(const convolution_problem& p) {
  return fits(p, std::size_t(in_tile) - 2 * (p.kh / 2));
}
void run(const convolution_call& c) { dispatch<rung>(c); }

}  // namespace

extern const convolution_rung c03_input_tile{
    .info = {.step = 3,
             .summary = "block = input tile with halo in shared memory; the halo's threads idle"},
    .can_run = can_run,
    .run = run,
    .explain =
        [](const convolution_problem& p) {
          return tile_intensity(p, p.kw < 32 ? 33 - p.kw : 0, p.kh < 32 ? 33 - p.kh : 0);
        },
};

}  // namespace pplab::detail::convolution_cuda
