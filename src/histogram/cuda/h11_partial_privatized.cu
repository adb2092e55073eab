// histogram/cuda/h11_partial_privatized: the histogram notes' partial privatization, for more bins
// than a block's shared memory holds: the hot bins, found from a sample, are counted in shared
// memory, the rest with global atomics as h03 does.
//   1. sample: 2^16 elements spread evenly over the input, binned and counted in 32-bit global
//      counters (one per slot, in the scratch);
//   2. choose: every slot with at least 1/4096 of the samples (16 of 2^16: at most 4096 slots can
//      have that many) gets one of 4096 shared counters; a table of 16 bits per slot says which
//      (or none);
//   3. count: each element binned, its slot's entry read from the table (2 MiB at 2^20 bins, held
//      in L2; the hot entries in L1), one shared atomic if the slot is hot, one global 64-bit
//      atomic otherwise; the shared counters are added into their slots at the end of a window.
// What it is for: skew over many bins. h03 serializes a hot counter in L2 (90% of 2^28 floats in
// one of 2^20 bins: 178 ms, the one-counter rate of the atomic table) and h10 ranks every lane of
// a hot bucket on one shared counter (1.85 ms, 3.1x CUB). Floor for that row on an H200: the read
// (1 GiB at ~4.4 TB/s, 0.24 ms); the 10% cold values, 2.7e7 L2 atomics at ~100 G/s, 0.27 ms; the
// 90% hot, shared atomics on one counter at ~5 T/s, 0.05 ms. Predicted ~0.4 ms, ~14x CUB. Uniform
// 2^20 bins have no hot slot: h03's global atomics plus a table read each, ~1.1x h03's 2.7 ms.
// Measured (H200, bench/results/h200-2026-11-23-histogram-57c1b47.json, ratios in the same run):
// 90% in one of 2^20 bins 0.961 ms, 5.9x CUB and 1.93x h10 (the best there), but 2.4x the
// prediction; uniform 2^20 bins 4.31 ms, 1.62x h03's time, not 1.1x: the table read is a second
// L2 access per cold element, and L2 is what h03 is bound by. 90% in one of 1024 bins (every
// slot hot) 1.81 ms against 0.49 uniform: the hot counter is one shared address for every lane
// (h05 keeps a copy per lane for that). Not yet profiled: what the 0.96 ms is made of beside
// the floor's 0.4 (binning with the float-pair binner, the warp split between the hot and the
// cold path). h12 chooses between this rung and h10 by this rung's sample.
// Tested (test_histogram, test_cuda incl. 2^31 + 77 bytes, test_lab) and compute-sanitizer clean
// (memcheck, racecheck, synccheck) on the H200.
// Scratch: 6 bytes per slot and 16 KiB, whatever n is.
#include "histogram/cuda/h11_parts.hpp"
#include "histogram/cuda/histogram_cuda.cuh"

#include <cmath>

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 256;
constexpr unsigned hot_max = 4096;      // shared counters: 16 KiB per block
constexpr unsigned samples = 1u << 16;  // at most; every element of a smaller input
constexpr std::uint16_t cold = 0xffff;  // a slot without a shared counter
// The scratch's first words: the hot slots claimed, the samples in hot slots, the sample's
// finished blocks, h12's verdict.
constexpr unsigned hot_count_word = 0, hot_sampled_word = 1, ticket_word = 2, verdict_word = 3;

// hot_sampled: how many samples fall in slots with at least `threshold` of them: a slot adds
// `threshold` when it reaches it and 1 for each sample after; one global atomic per block. When
// h12 asks (need > 0), the last block to finish writes the verdict: 1 if at least `need` samples
// fell in hot slots, else 0.
template <class T, class Bin>
__global__ void sample(const T* __restrict__ x, std::size_t stride, unsigned count,
                       unsigned threshold, Bin bin, unsigned* __restrict__ sampled, unsigned* words,
                       unsigned need) {
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned before = k < count ? atomicAdd(&sampled[bin(x[k * stride])], 1u) : 0;
  const unsigned reached = __syncthreads_count(k < count && before + 1 == threshold),
                 after = __syncthreads_count(k < count && before >= threshold);
  if (threadIdx.x != 0) return;
  if (reached | after) atomicAdd(&words[hot_sampled_word], reached * threshold + after);
  if (need == 0) return;
  __threadfence();  // this block's share is in before its ticket
  if (atomicAdd(&words[ticket_word], 1u) + 1 == gridDim.x)
    words[verdict_word] = atomicAdd(&words[hot_sampled_word], 0u) >= need;
}

// Slots with at least `threshold` samples get a shared counter each, in the order they claim one.
__global__ void choose(const unsigned* __restrict__ sampled, std::size_t nslots, unsigned threshold,
                       std::uint16_t* __restrict__ table, unsigned* __restrict__ hot_slot,
                       unsigned* __restrict__ hot_count) {
  for (std::size_t slot = global_thread(); slot < nslots; slot += grid_threads()) {
    std::uint16_t entry = cold;
    if (sampled[slot] >= threshold) {
      const unsigned h = atomicAdd(hot_count, 1u);  // < hot_max: see threshold_for
      hot_slot[h] = unsigned(slot);
      entry = std::uint16_t(h);
    }
    table[slot] = entry;
  }
}

template <class T, class Bin>
__global__ void __launch_bounds__(B)
    count(const T* __restrict__ x, std::size_t n, Bin bin, const std::uint16_t* __restrict__ table,
          const unsigned* __restrict__ hot_slot, const unsigned* __restrict__ hot_count,
          count_t* counts) {
  __shared__ unsigned hot[hot_max];
  const unsigned nh = *hot_count;
  for (unsigned h = threadIdx.x; h < nh; h += B) hot[h] = 0;
  __syncthreads();
  for_each_vectorized<T, 4, load::streaming>(x, n, global_thread(), grid_threads(),
                                             [&](T v, std::size_t) {
                                               const std::size_t slot = bin(v);
                                               const std::uint16_t h = __ldg(&table[slot]);
                                               if (h != cold) atomicAdd(&hot[h], 1u);
                                               else atomicAdd(&counts[slot], count_t(1));
                                             });
  __syncthreads();
  for (unsigned h = threadIdx.x; h < nh; h += B)
    if (hot[h]) atomicAdd(&counts[hot_slot[h]], count_t(hot[h]));
}

// How many elements the sample takes: all of a smaller input.
unsigned taken_of(std::size_t n) { return unsigned(std::min<std::size_t>(n, samples)); }

// At least 1/hot_max of the samples: no more than hot_max slots can have that many.
unsigned threshold_for(unsigned count) { return unsigned(ceil_div(count, hot_max)); }

// Scratch: [the words above, 256 bytes] [sample counters, 4 bytes per slot] [table, 2 bytes per
// slot] [hot slots]. The words and the sample counters are zeroed by one memset.
struct layout {
  unsigned* words = nullptr;
  unsigned* sampled = nullptr;
  std::uint16_t* table = nullptr;
  unsigned* hot_slot = nullptr;
  std::size_t zeroed, total;
  layout(std::size_t nslots, void* scratch) {
    const auto round = [](std::size_t b) { return ceil_div(b, 256) * 256; };
    const std::size_t table_at = 256 + round(nslots * 4), hot_at = table_at + round(nslots * 2);
    zeroed = 256 + nslots * 4;
    total = hot_at + hot_max * 4;
    if (char* at = static_cast<char*>(scratch)) {
      words = reinterpret_cast<unsigned*>(at);
      sampled = reinterpret_cast<unsigned*>(at + 256);
      table = reinterpret_cast<std::uint16_t*>(at + table_at);
      hot_slot = reinterpret_cast<unsigned*>(at + hot_at);
    }
  }
};

// Step 1 (the counts untouched); with hot_enough > 0, h12's verdict too (see sample).
struct find_hot {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s,
                  double hot_enough = 0) {
    const layout l(slots(c.p), c.scratch);
    PPLAB_CUDA(cudaMemsetAsync(l.words, 0, l.zeroed, s));
    const unsigned taken = taken_of(n);
    sample<T, Bin><<<unsigned(ceil_div(taken, B)), B, 0, s>>>(
        x, n / taken, taken, threshold_for(taken), bin, l.sampled, l.words,
        unsigned(std::ceil(hot_enough * taken)));
    PPLAB_CUDA_LAUNCHED();
  }
};

// Steps 2 and 3, with step 1's sample counts in the scratch.
struct count_all {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const std::size_t nslots = slots(c.p);
    const layout l(nslots, c.scratch);
    unsigned* hot_count = l.words + hot_count_word;
    choose<<<unsigned(std::min<std::size_t>(ceil_div(nslots, B), 4096)), B, 0, s>>>(
        l.sampled, nslots, threshold_for(taken_of(n)), l.table, l.hot_slot, hot_count);
    PPLAB_CUDA_LAUNCHED();
    static const unsigned grid = resident_blocks(count<T, Bin>, int(B));
    in_windows(n, std::size_t(grid) * B, [&](std::size_t from, std::size_t len) {
      count<T, Bin>
          <<<grid, B, 0, s>>>(x + from, len, bin, l.table, l.hot_slot, hot_count, counts_of(c));
      PPLAB_CUDA_LAUNCHED();
    });
  }
};

}  // namespace

const unsigned* h11_find_hot(const histogram_call& c, double hot_enough) {
  dispatch<find_hot, dtypes::teaching>(c, counts_first::untouched, hot_enough);
  return layout(slots(c.p), c.scratch).words + verdict_word;
}
void h11_count(const histogram_call& c) { dispatch<count_all, dtypes::teaching>(c); }

extern const histogram_rung h11_partial_privatized{
    .info = {.step = 11,
             .summary = "many bins, skewed: hot bins (from a sample) in shared memory, the rest "
                        "global atomics"},
    .can_run = supports<dtypes::teaching>,
    .scratch_bytes =
        [](const histogram_problem& p) { return p.n == 0 ? 0 : layout(slots(p), nullptr).total; },
    .run =
        [](const histogram_call& c) {
          dispatch<find_hot, dtypes::teaching>(c, counts_first::untouched);
          dispatch<count_all, dtypes::teaching>(c);
        },
};

}  // namespace pplab::detail::histogram_cuda
