// histogram/cuda/h07_packed_16bit_counters: twice the bins in one block's shared memory, two
// 16-bit counters to a 32-bit word, so every atomic stays local (packed_counters.cuh). h06
// measured the distributed-shared-memory atomics of a cluster at about the L2 rate (65536 bins:
// 362 GB/s, 90 G atomics/s, against 3.5 T/s for local shared atomics), so 65536 bins are better
// counted by one block alone: 65539 slots in 128 KiB.
// What limits it: one block of 1024 threads per SM (128 KiB of counters), an atomic that
// returns its old value, and random bank conflicts; the bins must fit 2 per word in one block
// (about 113 000 on an H200).
// Measured (H200, bench/results/h200-2026-11-23-histogram-23d8f1c.json): f32 65536 bins
// 0.526 ms, 2043 GB/s = 21.0x CUB and 5.6x h06 (0.684 ms with the earlier branchy float binner);
// 1024 bins 0.443 ms (slower than h05: one copy, an atomic that returns its old value); bytes
// all one value 4.18 ms (1024 threads on one word, each add returning it).
#include "histogram/cuda/packed_counters.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 1024;

// Elements a thread has in flight at most: 16 (one 16-byte load of bytes, or two of wider types).
template <class T> constexpr int unroll_for = sizeof(T) == 1 ? 1 : 2;

template <class T, class Bin>
__global__ void packed_counters(const T* __restrict__ x, std::size_t n, Bin bin, count_t* counts,
                                unsigned nslots) {
  extern __shared__ unsigned words[];
  packed_zeroed(words, nslots);
  __syncthreads();
  for_each_vectorized<T, unroll_for<T>, load::readonly>(
      x, n, global_thread(), grid_threads(),
      [&](T v, std::size_t) { packed_add_one(words, unsigned(bin(v)), counts); });
  __syncthreads();
  packed_flushed(words, nslots, counts);
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const std::size_t nslots = slots(c.p), shared = packed_counter_bytes(nslots);
    allow_shared(packed_counters<T, Bin>, shared);
    const int per_sm = blocks_per_sm(packed_counters<T, Bin>, B, shared);
    const std::size_t per_block = std::size_t(B) * unroll_for<T> * (16 / sizeof(T));
    const unsigned grid = unsigned(std::min<std::size_t>(
        sm_count() * std::max(per_sm, 1), std::max<std::size_t>(1, ceil_div(n, per_block))));
    packed_counters<T, Bin><<<grid, B, shared, s>>>(x, n, bin, counts_of(c), unsigned(nslots));
    PPLAB_CUDA_LAUNCHED();
  }
};

bool can_run(const histogram_problem& p) {
  return counts_even_bins(p) && packed_counter_bytes(slots(p)) <= max_shared_per_block();
}
void run(const histogram_call& c) { dispatch<rung, dtypes::all>(c); }

}  // namespace

extern const histogram_rung h07_packed_16bit_counters{
    .info = {.step = 7,
             .summary =
                 "two 16-bit counters per word: twice the bins in one block, all atomics local"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::histogram_cuda
