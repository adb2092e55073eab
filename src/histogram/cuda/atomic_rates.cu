// The atomic hierarchy, measured: kernels that do nothing but atomic adds, at each level of the
// memory, with and without contention. Each rate is atomics over the best repeat's time.
// On the H200 a first probe measured about 1.7 T/s in shared memory, 104 G/s on L2-resident
// counters, 16 G/s on 4 GiB of counters and 1.4 G/s with every thread on one counter.
#include "histogram/atomic_rates.hpp"
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail {
namespace {

constexpr unsigned B = 256;

// Every lane counts into its own copy of 256 bins laid out bin-major (bank = lane), at bins
// drawn by a per-thread generator; `contended`: the whole block on counter 0.
template <bool contended> __global__ void shared_atomics(unsigned per_thread, unsigned* sink) {
  __shared__ unsigned c[256 * 32];
  for (unsigned i = threadIdx.x; i < 256 * 32; i += blockDim.x) c[i] = 0;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  unsigned b = (blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u;
#pragma unroll 8
  for (unsigned k = 0; k < per_thread; ++k) {
    b = b * 1664525u + 1013904223u;
    atomicAdd(&c[contended ? 0 : (b >> 24) * 32 + lane], 1u);
  }
  __syncthreads();
  if (threadIdx.x == 0 && c[lane] == 0xffffffffu) *sink = 1;  // keeps the counts alive
}

// 64-bit adds (what the rungs' global counts take) at pseudo-random counters of `mask + 1`.
__global__ void global_atomics(histogram_cuda::count_t* c, std::size_t mask, unsigned per_thread) {
  std::size_t b = histogram_cuda::global_thread() * 0x9E3779B97F4A7C15ull;
  for (unsigned k = 0; k < per_thread; ++k) {
    b = b * 6364136223846793005ull + 1442695040888963407ull;
    atomicAdd(&c[(b >> 17) & mask], histogram_cuda::count_t(1));
  }
}

}  // namespace

std::vector<ceiling> gpu_atomic_rates_here(executor& ex, double budget_s) {
  const int reps = budget_s < 0.5 ? 5 : 10;
  const auto s = static_cast<cudaStream_t>(ex.stream());
  const auto rate = [&](const std::function<void()>& launch, double atomics) {
    return atomics / ex.time(launch, {1, 0, reps}).min_s * 1e-9;
  };
  std::vector<ceiling> out;
  buffer sink(ex, 256);
  const auto shared = [&](auto kernel, unsigned per_thread) {
    const unsigned grid = resident_blocks(kernel, B);
    return rate(
        [&] {
          kernel<<<grid, B, 0, s>>>(per_thread, sink.as<unsigned>());
          PPLAB_CUDA_LAUNCHED();
        },
        double(grid) * B * per_thread);
  };
  const double shared_rate = shared(shared_atomics<false>, 4096);
  out.push_back(
      {"gpu_atomic_shared_Gps", shared_rate,
       "32-bit shared-memory atomic adds, each lane its own bank, pseudo-random bins of 256"});
  out.push_back({"gpu_atomic_shared_byte_GBps", shared_rate,
                 "the shared atomic rate at one atomic per byte: a byte histogram's floor"});
  out.push_back({"gpu_atomic_shared_one_Gps", shared(shared_atomics<true>, 256),
                 "32-bit shared-memory atomic adds, every thread of a block on one counter"});
  const auto global = [&](std::size_t counters, unsigned per_thread) {
    buffer c(ex, counters * 8);
    ex.fill(c.get(), 0, counters * 8);
    const unsigned grid = resident_blocks(global_atomics, B);
    return rate(
        [&] {
          global_atomics<<<grid, B, 0, s>>>(c.as<histogram_cuda::count_t>(), counters - 1,
                                            per_thread);
          PPLAB_CUDA_LAUNCHED();
        },
        double(grid) * B * per_thread);
  };
  out.push_back(
      {"gpu_atomic_l2_Gps", global(std::size_t(1) << 19, 256),
       "64-bit global atomic adds at pseudo-random places in 4 MiB of counters (L2-resident)"});
  out.push_back(
      {"gpu_atomic_dram_Gps", global(std::size_t(1) << 27, 64),
       "64-bit global atomic adds at pseudo-random places in 1 GiB of counters (past L2)"});
  out.push_back({"gpu_atomic_one_Gps", global(1, 4),
                 "64-bit global atomic adds, every thread of the GPU on one counter"});
  return out;
}

}  // namespace pplab::detail
