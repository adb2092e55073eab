// Times the single-pass reduction kernel (r12) over its tunables on this GPU, beside CUB, on
// device-resident data with the L2 flushed between repeats: the numbers behind r12's settings.
// Usage: tune_reduce [reps]
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "core/generate.hpp"
#include "core/cuda/timer.cuh"
#include "reduce/cuda/last_block.cuh"

using namespace pplab;
using namespace pplab::detail;
using namespace pplab::detail::gpu_reduce;

namespace {

int reps = 50;

// The library's GPU timer (events, L2 flushed before every repeat), on the default stream.
template <class F> double median_ms(F&& f) {
  static event_timer timer(nullptr);
  return timer.time(f, reps).median_s * 1e3;
}

template <class T, op O> void tune(const char* name, std::size_t n) {
  T* in;
  PPLAB_CUDA(cudaMalloc(&in, n * sizeof(T)));
  {
    std::vector<T> host(n);
    generate(dtype_of<T>(), host.data(), n, distribution::uniform, 42);
    PPLAB_CUDA(cudaMemcpy(in, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  void* scratch;
  PPLAB_CUDA(cudaMalloc(&scratch, last_block_scratch));
  PPLAB_CUDA(cudaMemset(scratch, 0, last_block_scratch));
  scalar* out;
  PPLAB_CUDA(cudaMalloc(&out, sizeof(scalar)));
  const double gb = double(n * sizeof(T)) * 1e-9;
  std::printf("\n%s n=%zu\n", name, n);
  const auto show = [&](const std::string& what, double ms) {
    std::printf("  %-40s %8.4f ms %8.1f GB/s\n", what.c_str(), ms, gb / ms * 1e3);
  };
  if constexpr (O == op::sum || O == op::max) {
    std::size_t temp = 0;
    T* res;
    PPLAB_CUDA(cudaMalloc(&res, sizeof(T)));
    if constexpr (O == op::sum) PPLAB_CUDA(cub::DeviceReduce::Sum(nullptr, temp, in, res, n));
    else PPLAB_CUDA(cub::DeviceReduce::Max(nullptr, temp, in, res, n));
    void* tmp;
    PPLAB_CUDA(cudaMalloc(&tmp, temp));
    show("cub native (element-type accumulator)", median_ms([&] {
           if constexpr (O == op::sum) PPLAB_CUDA(cub::DeviceReduce::Sum(tmp, temp, in, res, n));
           else PPLAB_CUDA(cub::DeviceReduce::Max(tmp, temp, in, res, n));
         }));
    cudaFree(tmp);
    cudaFree(res);
  }
#define TRY(B, U, L, K, G)                                                                         \
  show("block " #B " unroll " #U " " #L " lanes " #K " grid x" #G, median_ms([&] {                 \
         launch_last_block<T, O, B, U, load::L, K, G>(in, n, scratch, out, 0, nullptr);            \
       }));
  TRY(256, 4, readonly, 1, 1)
  TRY(256, 4, streaming, 2, 1)
  TRY(256, 4, readonly, 2, 2)
  TRY(512, 4, readonly, 1, 1)
  TRY(512, 8, readonly, 1, 1)
  TRY(256, 4, readonly, 1, 1)
#undef TRY
  cudaFree(in);
  cudaFree(scratch);
  cudaFree(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) reps = std::atoi(argv[1]);
  if (!gpu().present) {
    std::printf("no GPU: %s\n", gpu().why_absent.c_str());
    return 0;
  }
  std::printf("%s, theoretical %.0f GB/s\n", gpu().name.c_str(), gpu().mem_GBps_theoretical);
  for (std::size_t n :
       {std::size_t(1) << 28, std::size_t(1) << 26, std::size_t(1) << 24, std::size_t(1) << 20}) {
    tune<float, op::sum>("f32 sum", n);
    if (n == (std::size_t(1) << 28) || n == (std::size_t(1) << 24)) {
      tune<float, op::max>("f32 max", n);
      tune<std::int32_t, op::sum>("i32 sum", n);
    }
  }
}
