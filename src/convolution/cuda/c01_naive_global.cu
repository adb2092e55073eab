// convolution/cuda/c01_naive_global: the tiling notes' first kernel. One thread per output pixel
// (16 x 16 blocks); each of its kh x kw taps reads the input and the mask from global memory, the
// boundary handled tap by tap. Every input element is loaded by up to kh x kw threads (the caches
// catch most of it), and each multiply-add waits on two loads: 2 loads per 2 flops.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 8192x8192 mask 7x7 nearest
// in 3.170 ms, 169 GB/s (4.0% of copy bandwidth), 0.47x NPP's speed; f32 8192x8192 mask 5x5 nearest
// in 1.868 ms, 287 GB/s (6.8% of copy bandwidth), 0.14x NPP's speed.
#include "convolution/cuda/conv_cuda.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

template <class T> __global__ void naive(image<T> f, const T* mask) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x),
            y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= f.cols || y >= f.rows) return;
  const int rh = f.kh / 2, rw = f.kw / 2;
  T acc = 0;
  for (int i = 0; i < f.kh; ++i)
    for (int j = 0; j < f.kw; ++j) acc += mask[i * f.kw + j] * read(f, y + i - rh, x + j - rw);
  f.out[std::size_t(y) * f.ld_out + x] = acc;
}

struct rung {
  template <class T>
  static void run(const image<T>& f, const T* mask, void* scratch, cudaStream_t s) {
    T* on_device = static_cast<T*>(scratch);
    PPLAB_CUDA(
        cudaMemcpyAsync(on_device, mask, sizeof(T) * f.kh * f.kw, cudaMemcpyHostToDevice, s));
    naive<T><<<tiles_over(f.rows, f.cols, 16, 16), dim3(16, 16), 0, s>>>(f, on_device);
    PPLAB_CUDA_LAUNCHED();
  }
};

bool can_run(const convolution_problem& p) { return fits(p, 16); }
std::size_t scratch(const convolution_problem& p) { return p.kh * p.kw * size_of(p.type); }
void run(const convolution_call& c) { dispatch<rung>(c); }

}  // namespace

extern const convolution_rung c01_naive_global{
    .info = {.step = 1, .summary = "one thread per output, input and mask read from global memory"},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::convolution_cuda
