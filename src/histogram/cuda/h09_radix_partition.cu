// histogram/cuda/h09_radix_partition: many bins (2^20 and more), where every rung before spends
// one global atomic per element (h03 at 2^20 bins: the L2 atomic rate, ~100 G/s), or one
// distributed-shared-memory atomic (h06: no faster). Here no element costs a global atomic:
//   1. each element's slot is written as a 32-bit key (read n elements, write 4n bytes);
//   2. CUB's radix sort orders the keys by their high bits only (the bucket: slot / 2^14), one
//      pass for up to 2^22 bins (256 buckets), two beyond;
//   3. each block takes a contiguous range of the sorted keys, which holds one or a few buckets,
//      counts each bucket's 16384 slots in shared memory (64 KiB of 32-bit counters, atomics
//      local to the block) and adds the non-zero counters to the 64-bit counts.
// Heavy skew costs nothing extra: a hot bucket is only a longer run in step 3. The price is O(n)
// scratch (two 32-bit keys per element, for up to 2^28 elements at a time) and memory traffic:
// about 6 x 4 bytes per element against h03's one read. The floor at 2^28 f32: 6 GiB at the
// read ceiling, ~1.5 ms (h03: 2.7 ms; CUB 19 ms).
// Measured (H200, docs/histogram.md): steps 1 and 3 alone (1024 bins, one bucket, no sort) take
// 1.0 ms, at their bandwidth floor; CUB's one 7-bit pass at 2^20 bins takes another 1.9 ms
// (onesweep's scatter runs at ~1.1 TB/s), so 2^20 uniform bins come out at 0.92x of h03. What it
// buys is robustness: no hot counter and no global atomics however skewed or many the bins.
// Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 2^28 into 2^20 bins in
// 2.732 ms, 7.06x CUB, 2^20 bins with 90% in one 2.683 ms (no hot counter slows it); h10, the
// hand-written split, 1.173 ms.
#include <cub/device/device_radix_sort.cuh>

#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr int bucket_bits = 14;
constexpr unsigned bucket_slots = 1u << bucket_bits;
constexpr unsigned B = 256;
constexpr std::size_t window = std::size_t(1) << 28;  // elements per round (CUB counts in int)
constexpr std::size_t range = std::size_t(1) << 20;   // sorted keys per block in step 3

// Bits of the largest slot: the sort orders keys by bits [bucket_bits, end_bit).
int end_bit(std::size_t nslots) {
  int bits = 0;
  while ((std::size_t(1) << bits) < nslots) ++bits;
  return bits;
}

template <class T, class Bin>
__global__ void __launch_bounds__(B)
    to_keys(const T* __restrict__ x, std::size_t n, Bin bin, unsigned* __restrict__ keys) {
  for (std::size_t i = global_thread(); i < n; i += grid_threads()) keys[i] = unsigned(bin(x[i]));
}

// The first index in [lo, hi) whose bucket is at least b (keys sorted by bucket).
__device__ std::size_t first_of_bucket(const unsigned* keys, std::size_t lo, std::size_t hi,
                                       unsigned b) {
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (keys[mid] >> bucket_bits < b) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

__global__ void __launch_bounds__(B) count_sorted(const unsigned* __restrict__ keys, std::size_t n,
                                                  std::size_t nslots, count_t* counts) {
  extern __shared__ unsigned here[];  // one bucket's counters
  __shared__ std::size_t span[2];
  const std::size_t lo = std::size_t(blockIdx.x) * range, hi = std::min(n, lo + range);
  const unsigned first = keys[lo] >> bucket_bits, last = keys[hi - 1] >> bucket_bits;
  const unsigned width = unsigned(std::min<std::size_t>(bucket_slots, nslots));
  for (unsigned b = first; b <= last; ++b) {
    if (threadIdx.x == 0) {  // this bucket's part of the range
      span[0] = b == first ? lo : first_of_bucket(keys, lo, hi, b);
      span[1] = b == last ? hi : first_of_bucket(keys, lo, hi, b + 1);
    }
    for (unsigned j = threadIdx.x; j < width; j += B) here[j] = 0;
    __syncthreads();
    const std::size_t s = span[0], e = span[1];
    for_each_vectorized<unsigned, 4, load::streaming>(
        keys + s, e - s, threadIdx.x, B,
        [&](unsigned k, std::size_t) { atomicAdd(&here[k & (bucket_slots - 1)], 1u); });
    __syncthreads();
    const std::size_t base = std::size_t(b) << bucket_bits;
    for (unsigned j = threadIdx.x; j < width && base + j < nslots; j += B)
      if (here[j]) atomicAdd(&counts[base + j], count_t(here[j]));
    __syncthreads();  // the counters are zeroed again for the next bucket
  }
}

// Scratch: [keys, window] [sorted keys, window] [CUB's temporary storage].
std::size_t keys_bytes(std::size_t n) { return ceil_div(std::min(n, window) * 4, 256) * 256; }

std::size_t sort_bytes(std::size_t n, std::size_t nslots) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<unsigned> d(nullptr, nullptr);
  PPLAB_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, bytes, d, int(std::min(n, window)),
                                            bucket_bits,
                                            std::max(end_bit(nslots), bucket_bits + 1)));
  return bytes;
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const std::size_t nslots = slots(c.p), kb = keys_bytes(n);
    auto* keys = static_cast<unsigned*>(c.scratch);
    auto* other = reinterpret_cast<unsigned*>(static_cast<char*>(c.scratch) + kb);
    void* temp = static_cast<char*>(c.scratch) + 2 * kb;
    const int top = end_bit(nslots);
    const std::size_t shared = std::min<std::size_t>(bucket_slots, nslots) * 4;
    allow_shared(count_sorted, shared);
    for (std::size_t at = 0; at < n; at += window) {
      const std::size_t len = std::min(window, n - at);
      launch_resident<to_keys<T, Bin>>(B, s, x + at, len, bin, keys);
      const unsigned* sorted = keys;
      if (top > bucket_bits) {  // more than one bucket: order the keys by bucket
        cub::DoubleBuffer<unsigned> d(keys, other);
        std::size_t bytes = sort_bytes(n, nslots);
        PPLAB_CUDA(cub::DeviceRadixSort::SortKeys(temp, bytes, d, int(len), bucket_bits, top, s));
        sorted = d.Current();
      }
      count_sorted<<<unsigned(ceil_div(len, range)), B, shared, s>>>(sorted, len, nslots,
                                                                     counts_of(c));
      PPLAB_CUDA_LAUNCHED();
    }
  }
};

std::size_t scratch(const histogram_problem& p) {
  if (p.n == 0) return 0;
  return 2 * keys_bytes(p.n) + sort_bytes(p.n, slots(p));
}
bool can_run(const histogram_problem& p) {
  return counts_even_bins(p) && slots(p) <= (std::size_t(1) << 32) &&
         max_shared_per_block() >= bucket_slots * 4;
}
void run(const histogram_call& c) { dispatch<rung, dtypes::all>(c); }

}  // namespace

extern const histogram_rung h09_radix_partition{
    .info =
        {.step = 9,
         .summary =
             "many bins: slots as keys, CUB radix sort by bucket, shared-memory counts per bucket"},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::histogram_cuda
