// histogram/cuda/h04_shared_privatized: the histogram notes' privatization. Each block counts into
// its own histogram in shared memory (32-bit counters, zeroed, then __syncthreads()), with
// shared-memory atomics, an order of magnitude faster than L2's; after a second __syncthreads() the
// block adds each nonzero private count into the global 64-bit counts with one atomic per bin.
// Launched over windows of at most 2^22 elements per thread (histogram_cuda.cuh), so no 32-bit
// private counter can pass 2^32 before it is flushed. What limits it: one private copy per block,
// so all the block's warps contend for it (skewed data serializes on one address), one element per
// load instruction, and the bins must fit one block's shared memory (up to about 56000 on an H200:
// (bins + 3) x 4 bytes). Measured (H200, bench/results/h200-2026-11-23-histogram-f907169.json):
// bytes 1.52 ms (708 GB/s, 0.33x CUB: one copy, one element per load); f32 1024 bins 0.493 ms (2179
// GB/s, 7.2x CUB): the float binning hides the contention.
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 512;

template <class T, class Bin>
__global__ void privatized(const T* __restrict__ x, std::size_t n, Bin bin, count_t* counts,
                           unsigned nslots) {
  extern __shared__ unsigned private_counts[];
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x) private_counts[b] = 0;
  __syncthreads();
  for (std::size_t i = global_thread(); i < n; i += grid_threads())
    atomicAdd(&private_counts[bin(x[i])], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x)
    if (const unsigned v = private_counts[b]) atomicAdd(&counts[b], count_t(v));
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const std::size_t shared = slots(c.p) * 4;
    allow_shared(privatized<T, Bin>, shared);
    const int per_sm = blocks_per_sm(privatized<T, Bin>, B, shared);
    const unsigned grid = unsigned(sm_count() * std::max(per_sm, 1));
    in_windows(n, std::size_t(grid) * B, [&](std::size_t at, std::size_t len) {
      privatized<T, Bin>
          <<<grid, B, shared, s>>>(x + at, len, bin, counts_of(c), unsigned(slots(c.p)));
      PPLAB_CUDA_LAUNCHED();
    });
  }
};

}  // namespace

extern const histogram_rung h04_shared_privatized{
    .info = {.step = 4, .summary = "a private shared-memory histogram per block, flushed once"},
    .can_run =
        [](const histogram_problem& p) {
          return supports<dtypes::teaching>(p) && slots(p) * 4 <= max_shared_per_block();
        },
    .run = [](const histogram_call& c) { dispatch<rung, dtypes::teaching>(c); },
};

}  // namespace pplab::detail::histogram_cuda
