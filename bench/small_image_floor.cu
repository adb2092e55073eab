// The floor of a filter of a small image on the GPU, timed as the lab times a row (CUDA events
// around the work, the L2 flushed before every repeat, the median): beside the convolution rungs at
// 3 x 3, the least any kernel costs (an empty one) and what moving the image's bytes alone costs
// (a copy of the input to the output by cudaMemcpyAsync, and by a kernel of 16-byte loads and
// stores), at 1024 x 1024 f32 and larger. A filter reads and writes what the copy does, so the copy
// is the floor a filter of its size can reach; the issue's target for 1024 x 1024 (within 2x of
// the launch) is held against it here.
// Usage: small_image_floor [reps]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "convolution/rung.hpp"
#include "core/cuda/timer.cuh"
#include "core/device.hpp"
#include "core/generate.hpp"
#include "core/registry.hpp"

using namespace pplab;
using namespace pplab::detail;

namespace {

__global__ void empty_kernel() {}

// One pass of 16-byte loads and stores over n16 pieces, a grid that fills the GPU.
__global__ void copy_kernel(const float4* in, float4* out, std::size_t n16) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n16;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

int reps = 200;

template <class F> double median_us(F&& f) {
  static event_timer timer(nullptr);
  return timer.time(f, reps).median_s * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) reps = std::atoi(argv[1]);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no GPU\n");
    return 0;
  }
  cudaDeviceProp prop{};
  PPLAB_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; median of %d repeats, each after an L2 flush (the lab's timer)\n",
              prop.name, prop.multiProcessorCount, reps);
  const double launch = median_us([] { empty_kernel<<<1, 32>>>(); });
  std::printf("empty kernel: %.2f us\n", launch);
  const std::vector<const char*> ids = {"convolution/cuda/c00_npp",
                                        "convolution/cuda/c04_output_tile",
                                        "convolution/cuda/c06_register_strip"};
  for (std::size_t side : {1024, 2048, 4096}) {
    const std::size_t n = side * side, bytes = n * sizeof(float);
    float *in, *out;
    PPLAB_CUDA(cudaMalloc(&in, bytes));
    PPLAB_CUDA(cudaMalloc(&out, bytes));
    std::vector<float> host(n);
    generate(dtype::f32, host.data(), n, distribution::uniform, 5);
    PPLAB_CUDA(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    std::printf("\n%zu x %zu f32 (%.1f MiB in, as much out)\n", side, side, bytes / 1048576.0);
    const double memcpy_us =
        median_us([&] { cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, nullptr); });
    const int blocks = prop.multiProcessorCount * 8;
    const double kernel_us = median_us([&] {
      copy_kernel<<<blocks, 256>>>(reinterpret_cast<const float4*>(in),
                                   reinterpret_cast<float4*>(out), bytes / 16);
    });
    const double copy_us = memcpy_us < kernel_us ? memcpy_us : kernel_us;
    std::printf("  %-40s %8.2f us  %5.2fx the launch\n", "copy, cudaMemcpyAsync", memcpy_us,
                memcpy_us / launch);
    std::printf("  %-40s %8.2f us  %5.2fx the launch\n", "copy, a kernel of 16-byte pieces",
                kernel_us, kernel_us / launch);
    const std::vector<float> mask(9, 1.0f / 9);
    const convolution_problem p{dtype::f32, side, side, 3, 3, boundary::nearest, 0.0, false};
    for (const char* id : ids) {
      const convolution_rung* r = find<convolution_rung>(id);
      if (!r || !r->can_run(p)) continue;
      void* scratch = nullptr;
      if (r->scratch(p)) PPLAB_CUDA(cudaMalloc(&scratch, r->scratch(p)));
      const convolution_call c{p, in, side, mask.data(), out, side, scratch, nullptr};
      const double us = median_us([&] { r->run(c); });
      std::printf("  %-40s %8.2f us  %5.2fx the launch  %5.2fx the faster copy\n",
                  (std::string(id + 17) + ", 3 x 3").c_str(), us, us / launch, us / copy_us);
      if (scratch) PPLAB_CUDA(cudaFree(scratch));
    }
    PPLAB_CUDA(cudaFree(in));
    PPLAB_CUDA(cudaFree(out));
  }
  return 0;
}
