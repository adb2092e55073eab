// convolution/cuda/c02_constant_mask: c01 with the mask in constant memory. Every thread of a warp
// reads the same tap at the same time, which the constant cache broadcasts in one access, so only
// the input's load is left per multiply-add.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 8192x8192 mask 7x7 nearest
// in 3.131 ms, 171 GB/s (4.1% of copy bandwidth), 0.47x NPP's speed; f32 8192x8192 mask 5x5 nearest
// in 1.855 ms, 289 GB/s (6.9% of copy bandwidth), 0.14x NPP's speed.
#include "convolution/cuda/constant_mask.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

template <class T> __global__ void constant_mask(image<T> f) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x),
            y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= f.cols || y >= f.rows) return;
  const int rh = f.kh / 2, rw = f.kw / 2;
  T acc = 0;
  for (int i = 0; i < f.kh; ++i)
    for (int j = 0; j < f.kw; ++j) acc += tap<T>(i * f.kw + j) * read(f, y + i - rh, x + j - rw);
  f.out[std::size_t(y) * f.ld_out + x] = acc;
}

struct rung {
  template <class T> static void run(const image<T>& f, const T* mask, void*, cudaStream_t s) {
    const mask_in_bank<T> bank(mask, f.kh * f.kw, s);
    constant_mask<T><<<tiles_over(f.rows, f.cols, 16, 16), dim3(16, 16), 0, s>>>(f);
    PPLAB_CUDA_LAUNCHED();
  }
};

bool can_run(const convolution_problem& p) { return fits(p, 16); }
void run(const convolution_call& c) { dispatch<rung>(c); }

}  // namespace

extern const convolution_rung c02_constant_mask{
    .info = {.step = 2, .summary = "the mask in constant memory: one broadcast per tap"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::convolution_cuda
