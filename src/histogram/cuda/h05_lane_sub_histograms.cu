// histogram/cuda/h05_lane_sub_histograms: beyond the notes, toward the bandwidth limit. h04 with
// (1) several private copies per block, interleaved so that copy c of slot b sits at b x R + c
// and thread t counts into copy t % R: with R = 32 every lane of a warp owns its own bank, so a
// warp's 32 shared atomics never conflict and never hit one address, whatever the data (a byte
// histogram where every byte is one value runs as fast as a uniform one); and (2) 16-byte loads,
// four in flight per thread (the toolbox's for_each_vectorized), so a warp reads 2 KiB per step
// and the load instructions are a sixteenth of h04's for bytes. R is the largest power of two up
// to 32 whose copies fit in 48 KiB (256 bins: R = 32, 33 KiB; 1024 bins: R = 8); past 48 KiB one
// copy, up to the block's shared-memory limit. The copies are summed per slot at the end, one
// global atomic per nonzero slot per block; windows of at most 2^22 elements per thread keep the
// 32-bit counters from wrapping (histogram_cuda.cuh).
// Floor (H200): 2^30 bytes at the 4.8 TB/s theoretical read is 0.22 ms; 2^30 shared atomics at
// the probe's 1.7 T/s is 0.63 ms, so bytes are bound by the shared atomics, not the read.
#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::gpu_histogram {
namespace {

constexpr unsigned B = 512;
constexpr int unroll = 4;
constexpr std::size_t copies_budget = std::size_t(48) << 10;

unsigned copies_for(std::size_t nslots) {
  unsigned r = 32;
  while (r > 1 && nslots * 4 * r > copies_budget) r /= 2;
  return r;
}

template <class T, class Bin>
__global__ void lane_sub_histograms(const T* __restrict__ x, std::size_t n, Bin bin,
                                    count_t* counts, unsigned nslots, unsigned copies) {
  extern __shared__ unsigned sub[];
  for (unsigned b = threadIdx.x; b < nslots * copies; b += blockDim.x) sub[b] = 0;
  __syncthreads();
  const unsigned mine = threadIdx.x & (copies - 1);
  for_each_vectorized<T, unroll, load::readonly>(
      x, n, global_thread(), grid_threads(),
      [&](T v, std::size_t) { atomicAdd(&sub[unsigned(bin(v)) * copies + mine], 1u); });
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x) {
    unsigned sum = 0;  // at most 2^31: a block counts at most 512 x 2^22 elements per window
    for (unsigned c = 0; c < copies; ++c) sum += sub[b * copies + c];
    if (sum) atomicAdd(&counts[b], count_t(sum));
  }
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const std::size_t nslots = slots(c.p);
    const unsigned copies = copies_for(nslots);
    const std::size_t shared = nslots * 4 * copies;
    allow_shared(lane_sub_histograms<T, Bin>, shared);
    int per_sm = 0;
    PPLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lane_sub_histograms<T, Bin>,
                                                             B, shared));
    const std::size_t per_block = std::size_t(B) * unroll * (16 / sizeof(T));
    const unsigned grid = unsigned(std::min<std::size_t>(sm_count() * std::max(per_sm, 1),
                                                         std::max<std::size_t>(1, ceil_div(n, per_block))));
    in_windows(n, std::size_t(grid) * B, [&](std::size_t at, std::size_t len) {
      lane_sub_histograms<T, Bin><<<grid, B, shared, s>>>(x + at, len, bin, counts_of(c),
                                                          unsigned(nslots), copies);
      PPLAB_CUDA_LAUNCHED();
    });
  }
};

}  // namespace

bool h05_can_run(const histogram_problem& p) { return slots(p) * 4 <= max_shared_per_block(); }
void h05_run(const histogram_call& c) { dispatch<rung, dtypes::all>(c); }

}  // namespace pplab::detail::gpu_histogram
