// Where the nccl histogram's time goes with many bins, without NCCL: the cuda rung that the nccl
// rungs run on each GPU's slice (h12 unless named), 2^20 bins, 2^30 f32 per GPU, timed
// - on each GPU alone, its scratch allocated once;
// - on GPU 0 alone with its counts and scratch taken from the stream-ordered pool per call, as
//   the nccl local phase does (histogram/nccl/local_counts.hpp);
// - with two GPUs or more, on all of them at once, enqueued GPU after GPU from one host thread
//   (as the nccl rungs do), with the memory as the nccl executor has it ("pool": the pools
//   opened to every other GPU), plain ("malloc"), or with peer access enabled ("peer").
// The host's clock around the launches and the wait, the median of 7 after one warm-up; no L2
// flush (the 4 GiB input is 80 times the L2).
// Usage: histogram_on_gpus [pool|malloc|peer] [rung id]
// Built on demand: cmake --build BUILD --target histogram_on_gpus.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/cuda/check.cuh"
#include "core/registry.hpp"
#include "core/timer.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"

using namespace pplab;
using namespace pplab::detail;

namespace {

// Uniform floats in [0, 1) from a hash of the index (no host copy of 4 GiB per GPU).
__global__ void fill_uniform(float* x, std::size_t n, unsigned seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    unsigned h = (unsigned(i) ^ seed * 0x9e3779b9u) * 2654435761u ^ unsigned(i >> 32) * 40503u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    x[i] = float(h >> 8) * (1.0f / 16777216.0f);
  }
}

struct gpu {
  int device = 0;
  cudaStream_t stream = nullptr;
  float* x = nullptr;
  void* scratch = nullptr;
  std::uint64_t* counts = nullptr;
};

template <class F> double median_ms(F&& f) {
  std::vector<double> ms;
  for (int rep = 0; rep < 8; ++rep) {
    const stopwatch clock;
    f();
    if (rep) ms.push_back(clock.seconds() * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string memory = argc > 1 ? argv[1] : "pool";
  const char* id = argc > 2 ? argv[2] : "histogram/cuda/h12_sampled_choice";
  if (memory != "pool" && memory != "malloc" && memory != "peer") {
    std::fprintf(stderr, "usage: histogram_on_gpus [pool|malloc|peer] [rung id]\n");
    return 2;
  }
  const histogram_rung* r = find<histogram_rung>(id);
  if (!r) {
    std::fprintf(stderr, "no rung %s\n", id);
    return 2;
  }
  int count = 0;
  PPLAB_CUDA(cudaGetDeviceCount(&count));
  const std::size_t n = std::size_t(1) << 30;
  const histogram_problem p{dtype::f32, n, std::size_t(1) << 20, 0.0, 1.0, false, false};
  const std::size_t width = slots(p), scratch_bytes = std::max<std::size_t>(r->scratch(p), 256);
  std::vector<gpu> gpus(static_cast<std::size_t>(count));
  for (int d = 0; d < count; ++d) {
    gpu& g = gpus[std::size_t(d)];
    g.device = d;
    PPLAB_CUDA(cudaSetDevice(d));
    PPLAB_CUDA(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    cudaMemPool_t pool;
    PPLAB_CUDA(cudaDeviceGetDefaultMemPool(&pool, d));
    std::uint64_t keep = ~std::uint64_t(0);  // as the nccl executor: freed memory kept
    PPLAB_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    for (int other = 0; other < count; ++other) {
      int can = 0;
      if (other == d || cudaDeviceCanAccessPeer(&can, d, other) != cudaSuccess || !can) continue;
      if (memory == "peer") PPLAB_CUDA(cudaDeviceEnablePeerAccess(other, 0));
      if (memory == "pool") {  // the nccl executor's start(): this pool readable by `other`
        cudaMemAccessDesc access{};
        access.location.type = cudaMemLocationTypeDevice, access.location.id = other;
        access.flags = cudaMemAccessFlagsProtReadWrite;
        PPLAB_CUDA(cudaMemPoolSetAccess(pool, &access, 1));
      }
    }
    if (memory == "pool") {
      PPLAB_CUDA(cudaMallocAsync(&g.x, n * 4, g.stream));
      PPLAB_CUDA(cudaMallocAsync(&g.scratch, scratch_bytes, g.stream));
      PPLAB_CUDA(cudaMallocAsync(&g.counts, width * 8, g.stream));
    } else {
      PPLAB_CUDA(cudaMalloc(&g.x, n * 4));
      PPLAB_CUDA(cudaMalloc(&g.scratch, scratch_bytes));
      PPLAB_CUDA(cudaMalloc(&g.counts, width * 8));
    }
    fill_uniform<<<4096, 256, 0, g.stream>>>(g.x, n, unsigned(d));
    PPLAB_CUDA_LAUNCHED();
    PPLAB_CUDA(cudaStreamSynchronize(g.stream));
  }
  const auto enqueue = [&](gpu& g) {
    PPLAB_CUDA(cudaSetDevice(g.device));
    PPLAB_CUDA(cudaMemsetAsync(g.scratch, 0, 256, g.stream));  // a rung's scratch: 256 B zeroed
    r->run({p, g.x, g.counts, g.scratch, g.stream});
  };
  const auto wait = [](gpu& g) {
    PPLAB_CUDA(cudaSetDevice(g.device));
    PPLAB_CUDA(cudaStreamSynchronize(g.stream));
  };
  std::printf("%s, 2^20 bins, 2^30 f32 per GPU, %d GPU(s), memory: %s\n", id, count,
              memory.c_str());
  for (gpu& g : gpus)
    std::printf("  GPU %d alone:                         %8.3f ms\n", g.device, median_ms([&] {
                  enqueue(g);
                  wait(g);
                }));
  {
    gpu& g = gpus[0];
    std::printf("  GPU 0 alone, pool memory per call:    %8.3f ms\n", median_ms([&] {
                  PPLAB_CUDA(cudaSetDevice(g.device));
                  void *counts, *scratch;
                  PPLAB_CUDA(cudaMallocAsync(&counts, width * 8, g.stream));
                  PPLAB_CUDA(cudaMallocAsync(&scratch, scratch_bytes, g.stream));
                  PPLAB_CUDA(cudaMemsetAsync(scratch, 0, 256, g.stream));
                  r->run({p, g.x, static_cast<std::uint64_t*>(counts), scratch, g.stream});
                  PPLAB_CUDA(cudaFreeAsync(scratch, g.stream));
                  PPLAB_CUDA(cudaFreeAsync(counts, g.stream));
                  wait(g);
                }));
  }
  if (count > 1) {
    double lag = 0;
    const double all = median_ms([&] {
      const stopwatch clock;
      for (std::size_t i = 0; i < gpus.size(); ++i) {
        if (i + 1 == gpus.size()) lag = clock.seconds() * 1e3;
        enqueue(gpus[i]);
      }
      for (gpu& g : gpus) wait(g);
    });
    std::printf("  all GPUs from one thread:             %8.3f ms (the last GPU's launches began "
                "%.3f ms after the first's)\n",
                all, lag);
  }
  return 0;
}
