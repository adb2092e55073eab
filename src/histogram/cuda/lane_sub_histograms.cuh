#pragma once
// The lane sub-histogram kernel of h05 and h08 (their header comments say what each adds): R
// shared copies per block, copy c of slot b at b x R + c, thread t counting into copy t % R
// (R = 32: every lane its own bank); 16-byte loads, four in flight per thread; the copies summed
// per slot at the end, one global atomic per nonzero slot per block. With merge_runs (h08) a
// thread keeps the slot it counted last and how many times in a row, and adds the run with one
// atomic when the slot changes.
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {

namespace lane_sub {

constexpr unsigned B = 512;
constexpr int unroll = 4;
constexpr std::size_t copies_budget = std::size_t(48) << 10;

// The largest power of two up to 32 whose copies fit 48 KiB; 1 past that.
inline unsigned copies_for(std::size_t nslots) {
  unsigned r = 32;
  while (r > 1 && nslots * 4 * r > copies_budget) r /= 2;
  return r;
}

template <bool merge_runs, class T, class Bin>
__global__ void kernel(const T* __restrict__ x, std::size_t n, Bin bin, count_t* counts,
                       unsigned nslots, unsigned copies) {
  extern __shared__ unsigned sub[];
  for (unsigned b = threadIdx.x; b < nslots * copies; b += blockDim.x) sub[b] = 0;
  __syncthreads();
  const unsigned mine = threadIdx.x & (copies - 1);
  unsigned run_slot = 0, run = 0;
  for_each_vectorized<T, unroll, load::readonly>(
      x, n, global_thread(), grid_threads(), [&](T v, std::size_t) {
        const unsigned s = unsigned(bin(v));
        if constexpr (merge_runs) {
          if (s == run_slot) {
            ++run;
            return;
          }
          if (run) atomicAdd(&sub[run_slot * copies + mine], run);
          run_slot = s, run = 1;
        } else {
          atomicAdd(&sub[s * copies + mine], 1u);
        }
      });
  if (run) atomicAdd(&sub[run_slot * copies + mine], run);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x) {
    unsigned sum = 0;  // at most 2^31: a block counts at most 512 x 2^22 elements per window
    for (unsigned c = 0; c < copies; ++c) sum += sub[b * copies + c];
    if (sum) atomicAdd(&counts[b], count_t(sum));
  }
}

template <bool merge_runs> struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const auto k = kernel<merge_runs, T, Bin>;
    const std::size_t nslots = slots(c.p);
    const unsigned copies = copies_for(nslots);
    const std::size_t shared = nslots * 4 * copies;
    allow_shared(k, shared);
    const int per_sm = blocks_per_sm(k, B, shared);
    const std::size_t per_block = std::size_t(B) * unroll * (16 / sizeof(T));
    const unsigned grid = unsigned(std::min<std::size_t>(
        sm_count() * std::max(per_sm, 1), std::max<std::size_t>(1, ceil_div(n, per_block))));
    in_windows(n, std::size_t(grid) * B, [&](std::size_t at, std::size_t len) {
      k<<<grid, B, shared, s>>>(x + at, len, bin, counts_of(c), unsigned(nslots), copies);
      PPLAB_CUDA_LAUNCHED();
    });
  }
};

inline bool can_run(const histogram_problem& p) {
  return counts_even_bins(p) && slots(p) * 4 <= max_shared_per_block();
}

}  // namespace lane_sub

}  // namespace pplab::detail::histogram_cuda
