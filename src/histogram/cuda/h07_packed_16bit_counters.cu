// histogram/cuda/h07_packed_16bit_counters: twice the bins in one block's shared memory, two
// 16-bit counters to a 32-bit word, so every atomic stays local. h06 measured the
// distributed-shared-memory atomics of a cluster at about the L2 rate (65536 bins: 362 GB/s,
// 90 G atomics/s, against 3.5 T/s for local shared atomics), so 65536 bins are better counted
// by one block alone: 65539 slots in 128 KiB.
// A counter is a half word counted to 2^15: the add that takes it from 0x7fff to 0x8000 (seen
// by exactly one thread, in the old value atomicAdd returns) takes 0x8000 back off and adds it
// to the global 64-bit count. The sixteenth bit is the guard: the adds other threads make
// before that subtraction lands (at most 16 per thread of 1024 in flight, 2^14) keep the half
// under 2^16, so it never carries into its neighbour. The end flush adds both halves of every
// word into the global counts.
// What limits it: one block of 1024 threads per SM (128 KiB of counters), an atomic that
// returns its old value, and random bank conflicts; the bins must fit 2 per word in one block
// (about 113 000 on an H200).
// Measured (H200, bench/results/h200-2026-11-23-histogram-23d8f1c.json): f32 65536 bins
// 0.526 ms, 2043 GB/s = 21.0x CUB and 5.6x h06 (0.684 ms with the earlier branchy float binner);
// 1024 bins 0.443 ms (slower than h05: one copy, an atomic that returns its old value); bytes
// all one value 4.18 ms (1024 threads on one word, each add returning it).
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 1024;

// Elements a thread has in flight at most: 16 (one 16-byte load of bytes, or two of wider types).
template <class T> constexpr int unroll_for = sizeof(T) == 1 ? 1 : 2;

template <class T, class Bin>
__global__ void packed_counters(const T* __restrict__ x, std::size_t n, Bin bin, count_t* counts,
                                unsigned nslots) {
  extern __shared__ unsigned words[];
  const unsigned nwords = (nslots + 1) / 2;
  for (unsigned w = threadIdx.x; w < nwords; w += blockDim.x) words[w] = 0;
  __syncthreads();
  for_each_vectorized<T, unroll_for<T>, load::readonly>(
      x, n, global_thread(), grid_threads(), [&](T v, std::size_t) {
        const unsigned s = unsigned(bin(v)), shift = (s & 1) * 16;
        const unsigned old = atomicAdd(&words[s >> 1], 1u << shift);
        if (((old >> shift) & 0xffffu) == 0x7fffu) {  // this add made it 2^15: move 2^15 out
          atomicSub(&words[s >> 1], 0x8000u << shift);
          atomicAdd(&counts[s], count_t(0x8000));
        }
      });
  __syncthreads();
  for (unsigned w = threadIdx.x; w < nwords; w += blockDim.x) {
    const unsigned v = words[w];
    if (v & 0xffffu) atomicAdd(&counts[2 * w], count_t(v & 0xffffu));
    if (v >> 16) atomicAdd(&counts[2 * w + 1], count_t(v >> 16));
  }
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const std::size_t nslots = slots(c.p), shared = (nslots + 1) / 2 * 4;
    allow_shared(packed_counters<T, Bin>, shared);
    int per_sm = 0;
    PPLAB_CUDA(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, packed_counters<T, Bin>, B, shared));
    const std::size_t per_block = std::size_t(B) * unroll_for<T> * (16 / sizeof(T));
    const unsigned grid = unsigned(std::min<std::size_t>(
        sm_count() * std::max(per_sm, 1), std::max<std::size_t>(1, ceil_div(n, per_block))));
    packed_counters<T, Bin><<<grid, B, shared, s>>>(x, n, bin, counts_of(c), unsigned(nslots));
    PPLAB_CUDA_LAUNCHED();
  }
};

bool can_run(const histogram_problem& p) {
  return counts_even_bins(p) && (slots(p) + 1) / 2 * 4 <= max_shared_per_block();
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
