// histogram/cuda/h10_block_multisplit: many bins (2^20), partitioned by hand. h09 partitions
// the slots by bucket with CUB's radix sort, whose one onesweep pass costs 1.9 ms of its 2.9 ms
// at 2^28 f32 and 2^20 bins. Here the partition is written by hand for what a histogram needs:
// one split by bucket (slot / 2^14: 65 buckets at 2^20 bins), no order inside a bucket, and only
// the 14 low bits of each slot kept (2 bytes per element instead of 4 + 4).
//   1. count_buckets: each block bins a tile of 4096 elements and counts them per bucket in
//      shared memory (atomics on <= 257 counters); the tile's counts go to a bucket-major table;
//   2. an exclusive scan of the table (CUB): where each tile's part of each bucket starts;
//   3. scatter: each block bins its tile again, ranks each element in its bucket by the same
//      shared atomics, stages the tile in shared memory ordered by bucket, and writes each
//      bucket's run of 16-bit low slots to its place (runs of ~60 elements: coalesced writes);
//   4. count_low: each block takes 2^20 of the partitioned elements, one bucket at a time, and
//      counts the 16384 slots of the bucket in shared memory, then adds the non-zero counters to
//      the 64-bit counts (h09's step 3, on 2-byte values).
// Floor at 2^28 f32 (1 GiB): reads 1 + 1 + 0.5 GiB, writes 0.5 GiB: 3 GiB at ~4 TB/s, 0.75 ms;
// the binning runs twice (h05 bins 1024 float bins at ~3.2 TB/s, ~0.3 ms per pass over 1 GiB, so
// passes 1 and 3 are bound by the read, not the arithmetic). Prediction: 1.0-1.2 ms, 15-18x CUB
// (the issue's target: 14x, 1.32 ms); h09 2.89 ms.
// Measured as first built (H200, ...-histogram-731ed89.json in git's history, ratios in one run):
// 2^20 bins 2.48 ms, 7.8x CUB, 1.16x h09 and 1.07x h03 (global atomics); 90% of the values in
// one of 2^20 bins 2.63 ms (1.07x h09; h03 178 ms). A miss of 2x against the prediction, and not
// where it was feared: the time follows the element count, not the bytes or the buckets (122 G
// elements/s with 1 bucket, f32 1024 bins: 2.2 ms; 131 G/s on bytes, 4x fewer bytes per element;
// 135 G/s with 5 buckets; 108 G/s with 65), so neither the traffic nor same-bucket atomics alone
// (1 bucket: every lane on one counter) explain it. The PTX of steps 1 and 3 does: each of a
// thread's 16 loads sat in its own iteration, behind the bounds check, the binner's branches and
// the atomic of the element before, so a thread waited for 16 memory latencies in a row (a cost
// per element, whatever its bytes). Steps 1 and 3 now issue the 16 loads first (load_tile; a
// full tile has no bounds check); predicted: both passes at h05's rate on floats (~0.34 ms per
// GiB read), the whole 1.0-1.2 ms again. Measured (H200,
// bench/results/h200-2026-11-23-histogram-e980f36.json): 1.95 ms with the loads first, 1.78 ms
// with the float-pair binner besides (binning.hpp; the double binner's 64-bit conversions run at
// a quarter of the float rate): 10.9x CUB, 1.60x h09; 1 bucket 1.95 ms (was 2.2), 90% in one bin
// 2.19 ms (was 2.63). Still short of 14x (1.39 ms). Nsight Compute, on a build where values on
// an edge still took the whole double binner (this build's profile below): both passes over the
// floats issue-bound (IPC 3.4 of 4 in count_buckets, 2.6 in scatter; DRAM 15-20% busy) and half
// of scatter's shared wavefronts in excess (same-bucket lanes ranked on one counter, which the
// binner does not change). Ranking by a warp match, or by a ballot of lane 0's bucket, was
// measured slower on uniform 2^20 bins (2.94 and 2.22 ms; branch wip/h10-warp-rank). Per kernel
// (...-ncu-h10-kernels-56e96f0.txt in git's history, 1.5 GHz): step 1 35% (69
// instructions per element, issue-bound), step 3 55% (102), step 4 9%: the binning, done in both,
// is the cost. Binning once (h11 on branch wip/h11-tile-split-gather: tiles sorted in place,
// runs gathered) measured 0.90x this.
// So step 1 now needs no slot: elements are partitioned by an estimated slot's bucket
// (float_slot_estimate, binning.hpp: one float subtract and multiply, within pad = 16 slots of
// the exact slot where the problem's float error bound allows), computed the same way in steps 1
// and 3; step 3 bins exactly and stores the slot's offset from the estimated bucket's base, plus
// pad (0 to 16384 + 2 pad, in 16 bits), and step 4 counts 16384 + 2 pad counters per bucket, the
// edges' counters going to the neighbouring buckets' slots. Where the estimate is not usable
// (other types, or a float error over 14 bins) the exact slot is its own estimate, as before.
// Prediction (1.5 GHz Nsight figures): step 1 read-bound, 0.80 -> ~0.25 ms; step 3 ~8
// instructions per element more, 1.27 -> ~1.35 ms; at the lab's clock ~1.78 -> ~1.45 ms.
// Measured (H200; bench/results/h200-2026-11-23-histogram-h10-steps.txt has each step's lab rows
// and Nsight figures): step 1 0.42 ms, step 3 1.50 ms (120 instructions per element, not 110:
// the estimate's own subtract, multiply and branches beside the binner's), the whole 1.66 ms at
// the lab's clock, 11.5x CUB. Then, from the SASS: the estimate takes u from the binner
// (position(): the same floats, so nvcc computes them once): step 3 1.41 ms, 1.54 ms in all
// (12.4x); the estimate by selects, not branches: 1.44 ms (13.3x); and no test of the bound per
// element (nvcc had made it a branch around each element's atomic, reading the thread and block
// index again per element): the last tile's places past n hold T() (load_tile), are binned and
// counted like the others, and take_off_padding takes their count off T()'s slot at the end.
// Step 1 0.32 ms (20 instructions per element, DRAM 3.4 TB/s), step 3 1.15 ms (94 per element),
// step 4 0.19 ms: 1.342 ms at the lab's clock, 14.3x CUB
// (bench/results/h200-2026-11-23-histogram-e56bb2d.json).
// Tested (test_histogram: every dtype and awkward size, many bins, skew; test_cuda: 2^31 + 77
// bytes, whose last tile is mostly padding) and compute-sanitizer clean (memcheck, racecheck,
// synccheck) on the H200.
// NumPy's float32 edges (what pplab.histogram bins float32 data against) were partitioned by the
// exact slot: normal float32 data over [-4, 4) at 2^20 bins took 2.1 ms on the H200 against 1.36
// ms with double edges (...-python-profile-e903a71.txt in git's history: count_buckets
// 0.73 against 0.28 ms). They now take the estimate too, from f32_edge_binner's own position
// (float_slot_estimate::usable_for_f32_edges: its place error + 2 <= pad).
// Scratch: O(n), 2 bytes per element (up to 2^28 at a time: 512 MiB) and two tables of 4 bytes per
// tile and bucket; no global atomic per element. A hot bucket is only a longer run in step 4.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr int bucket_bits = 14;
constexpr unsigned bucket_slots = 1u << bucket_bits;
constexpr unsigned max_buckets = 257;  // up to 2^22 slots: bins + 3 <= 2^22 + 16384
constexpr unsigned B = 256, items = 16, tile = B * items;
constexpr std::size_t window = std::size_t(1) << 28;  // elements per round (counts in 32 bits)
constexpr std::size_t range = std::size_t(1) << 20;   // partitioned elements per block in step 4
constexpr unsigned pad = 16;  // the estimate's distance from the slot, at most (see above)

// The slot estimate from the float binner's own position of x: in step 3, which bins x exactly,
// the subtract and multiply are the binner's (the same floats; nvcc computes them once).
struct estimated_slot {
  float_slot_estimate e;
  template <class Bin> __device__ unsigned operator()(const Bin& bin, float x) const {
    return e.at(x, bin.position(x));
  }
};
// The exact slot as its own estimate: for the binners and types the float estimate does not take.
struct exact_slot {
  template <class Bin, class T> __device__ unsigned operator()(const Bin& bin, T x) const {
    return unsigned(bin(x));
  }
};
// Step 3 then takes the slot it computes anyway.
template <class Estimate> constexpr bool is_exact = std::is_same_v<Estimate, exact_slot>;

unsigned buckets_of(std::size_t nslots) { return unsigned(ceil_div(nslots, bucket_slots)); }

// The tile's elements of this thread, all loads issued before any is used: a load inside the loop
// that bins and counts each element waits for the one before it (branches of the binner and the
// atomics between them), 16 memory latencies in a row per thread.
template <class T>
__device__ void load_tile(const T* __restrict__ x, unsigned n, unsigned first, T (&v)[items]) {
  if (first + tile <= n) {
#pragma unroll
    for (unsigned j = 0; j < items; ++j) v[j] = x[first + j * B + threadIdx.x];
  } else {
#pragma unroll
    for (unsigned j = 0; j < items; ++j) {
      const unsigned i = first + j * B + threadIdx.x;
      v[j] = i < n ? x[i] : T();
    }
  }
}

// Step 1: the tile's count per bucket, into table[b * tiles + tile].
template <class T, class Bin, class Estimate>
__global__ void __launch_bounds__(B)
    count_buckets(const T* __restrict__ x, unsigned n, Bin bin, Estimate estimate, unsigned nb,
                  unsigned tiles, unsigned* __restrict__ table) {
  __shared__ unsigned per_bucket[max_buckets];
  for (unsigned b = threadIdx.x; b < nb; b += B) per_bucket[b] = 0;
  __syncthreads();
  const unsigned first = blockIdx.x * tile;
  T v[items];
  load_tile(x, n, first, v);
  // Every place of the tile counted, those past n as T() (see take_off_padding): no test per
  // element.
#pragma unroll
  for (unsigned j = 0; j < items; ++j)
    atomicAdd(&per_bucket[estimate(bin, v[j]) >> bucket_bits], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nb; b += B) table[b * tiles + blockIdx.x] = per_bucket[b];
}

// Step 3: the tile's elements, ordered by (estimated) bucket in shared memory, written as 16-bit
// offsets (slot - bucket base + pad) from start[b * tiles + tile] on (the scanned table).
template <class T, class Bin, class Estimate>
__global__ void __launch_bounds__(B)
    scatter(const T* __restrict__ x, unsigned n, Bin bin, Estimate estimate, unsigned nb,
            unsigned tiles, const unsigned* __restrict__ start, std::uint16_t* __restrict__ low) {
  using scan = cub::BlockScan<unsigned, B>;
  __shared__ typename scan::TempStorage scan_storage;
  // to_global[b]: bucket b's place in low minus its run's place in the tile.
  __shared__ unsigned per_bucket[max_buckets], tile_start[max_buckets], to_global[max_buckets];
  __shared__ unsigned staged[tile];
  for (unsigned b = threadIdx.x; b < nb; b += B) {
    per_bucket[b] = 0;
    to_global[b] = start[b * tiles + blockIdx.x];
  }
  __syncthreads();
  const unsigned first = blockIdx.x * tile;
  unsigned kept[items], rank[items];  // (bucket << 16) | offset
  {
    T v[items];
    load_tile(x, n, first, v);  // places past n: T(), as step 1 counted them
#pragma unroll
    for (unsigned j = 0; j < items; ++j) {
      const unsigned slot = unsigned(bin(v[j]));
      const unsigned b = (is_exact<Estimate> ? slot : estimate(bin, v[j])) >> bucket_bits;
      kept[j] = b << 16 | (slot + pad - (b << bucket_bits));
      rank[j] = atomicAdd(&per_bucket[b], 1u);
    }
  }
  __syncthreads();
  // Where each bucket's run starts in the tile: an exclusive scan, two buckets per thread.
  unsigned mine[2] = {2 * threadIdx.x < nb ? per_bucket[2 * threadIdx.x] : 0,
                      2 * threadIdx.x + 1 < nb ? per_bucket[2 * threadIdx.x + 1] : 0};
  scan(scan_storage).ExclusiveSum(mine, mine);
#pragma unroll
  for (unsigned k = 0; k < 2; ++k)
    if (const unsigned b = 2 * threadIdx.x + k; b < nb) {
      tile_start[b] = mine[k];
      to_global[b] -= mine[k];  // unsigned: wraps and comes back when added to j below
    }
  __syncthreads();
#pragma unroll
  for (unsigned j = 0; j < items; ++j) staged[tile_start[kept[j] >> 16] + rank[j]] = kept[j];
  __syncthreads();
#pragma unroll
  for (unsigned j = threadIdx.x; j < tile; j += B) {
    const unsigned s = staged[j];
    low[to_global[s >> 16] + j] = std::uint16_t(s);
  }
}

// The last tile's places past n were binned and counted as T(): taken off T()'s slot again.
template <class T, class Bin>
__global__ void take_off_padding(Bin bin, unsigned padding, count_t* counts) {
  counts[bin(T())] -= padding;
}

// Bucket b's partitioned elements start at start[b * tiles] (its first tile's place); the
// bucket after the last starts at n (every tile's places, padding included).
__global__ void bucket_starts(const unsigned* __restrict__ start, unsigned nb, unsigned tiles,
                              unsigned n, unsigned* __restrict__ out) {
  for (unsigned b = threadIdx.x; b <= nb; b += blockDim.x) out[b] = b < nb ? start[b * tiles] : n;
}

// Step 4: elements [lo, hi) of the partition, bucket by bucket, counted in shared memory: offset
// k of bucket b is slot b x 16384 + k - pad.
__global__ void __launch_bounds__(B) count_low(const std::uint16_t* __restrict__ low, unsigned n,
                                               const unsigned* __restrict__ starts, unsigned nb,
                                               std::size_t nslots, count_t* counts) {
  extern __shared__ unsigned here[];  // one bucket's counters, pad on either side
  const unsigned lo = blockIdx.x * unsigned(range), hi = std::min(n, lo + unsigned(range));
  for (unsigned b = 0; b < nb; ++b) {
    const unsigned s = std::max(lo, starts[b]), e = std::min(hi, starts[b + 1]);
    if (s >= e) continue;  // the same for every thread: no barrier is skipped by some only
    const std::size_t base = std::size_t(b) << bucket_bits;
    const unsigned width = unsigned(std::min<std::size_t>(bucket_slots, nslots - base)) + 2 * pad;
    for (unsigned j = threadIdx.x; j < width; j += B) here[j] = 0;
    __syncthreads();
    // 16-byte loads, 4 in flight per thread: 2-byte loads alone keep too few bytes in flight.
    for_each_vectorized<std::uint16_t, 4, load::streaming>(
        low + s, e - s, threadIdx.x, B,
        [&](std::uint16_t k, std::size_t) { atomicAdd(&here[k], 1u); });
    __syncthreads();
    for (unsigned j = threadIdx.x; j < width; j += B)
      if (here[j])
        atomicAdd(&counts[base + j - pad], count_t(here[j]));  // here[j] = 0 below slot 0
    __syncthreads();                                           // zeroed again for the next bucket
  }
}

// Scratch: [low slots, window x 2 bytes] [table] [scanned table] [bucket starts] [CUB's scan].
struct layout {
  std::size_t tiles, nb, low, table, starts, scan_bytes, total;
  layout(std::size_t n, std::size_t nslots) {
    const std::size_t w = std::min(n, window);
    tiles = ceil_div(w, tile), nb = buckets_of(nslots);
    const auto round = [](std::size_t b) { return ceil_div(b, 256) * 256; };
    low = round(tiles * tile * 2), table = round(tiles * nb * 4), starts = round((nb + 1) * 4);
    scan_bytes = 0;
    PPLAB_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<unsigned*>(nullptr),
                                             static_cast<unsigned*>(nullptr), int(tiles * nb)));
    total = low + 2 * table + starts + round(scan_bytes);
  }
};

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    if constexpr (std::is_same_v<T, float>) {
      if constexpr (std::is_same_v<Bin, f32_edge_binner>) {  // NumPy's float32 edges
        if (float_slot_estimate::usable_for_f32_edges(c.p, pad))
          return partition(x, n, bin, estimated_slot{float_slot_estimate(bin)}, c, s);
        return partition(x, n, bin, exact_slot{}, c, s);
      } else if constexpr (std::is_same_v<Bin, power_of_two_width_binner>) {
        return partition(x, n, bin, exact_slot{}, c, s);  // the exact slot costs no more
      } else {
        if constexpr (!std::is_same_v<Bin, range_binner>)  // a float binner, with position()
          if (float_slot_estimate::usable(c.p, pad))
            return partition(x, n, bin, estimated_slot{float_slot_estimate(c.p)}, c, s);
      }
      const range_binner exact(c.p);  // rare: one more instantiation is enough
      return partition(x, n, exact, exact_slot{}, c, s);
    } else {
      return partition(x, n, bin, exact_slot{}, c, s);
    }
  }
  template <class T, class Bin, class Estimate>
  static void partition(const T* x, std::size_t n, Bin bin, Estimate estimate,
                        const histogram_call& c, cudaStream_t s) {
    const std::size_t nslots = slots(c.p);
    const layout l(n, nslots);
    char* at = static_cast<char*>(c.scratch);
    auto* low = reinterpret_cast<std::uint16_t*>(at);
    auto* table = reinterpret_cast<unsigned*>(at + l.low);
    auto* start = reinterpret_cast<unsigned*>(at + l.low + l.table);
    auto* starts = reinterpret_cast<unsigned*>(at + l.low + 2 * l.table);
    void* temp = at + l.low + 2 * l.table + l.starts;
    const unsigned nb = unsigned(l.nb);
    const std::size_t shared = (std::min<std::size_t>(bucket_slots, nslots) + 2 * pad) * 4;
    allow_shared(count_low, shared);
    for (std::size_t done = 0; done < n; done += window) {
      const unsigned len = unsigned(std::min(window, n - done)),
                     tiles = unsigned(ceil_div(len, tile)), padded = tiles * tile;
      count_buckets<T, Bin, Estimate>
          <<<tiles, B, 0, s>>>(x + done, len, bin, estimate, nb, tiles, table);
      PPLAB_CUDA_LAUNCHED();
      std::size_t bytes = l.scan_bytes;
      PPLAB_CUDA(cub::DeviceScan::ExclusiveSum(temp, bytes, table, start, int(tiles * nb), s));
      scatter<T, Bin, Estimate>
          <<<tiles, B, 0, s>>>(x + done, len, bin, estimate, nb, tiles, start, low);
      PPLAB_CUDA_LAUNCHED();
      bucket_starts<<<1, B, 0, s>>>(start, nb, tiles, padded, starts);
      PPLAB_CUDA_LAUNCHED();
      count_low<<<unsigned(ceil_div(padded, range)), B, shared, s>>>(low, padded, starts, nb,
                                                                     nslots, counts_of(c));
      PPLAB_CUDA_LAUNCHED();
      if (padded > len) {
        take_off_padding<T><<<1, 1, 0, s>>>(bin, padded - len, counts_of(c));
        PPLAB_CUDA_LAUNCHED();
      }
    }
  }
};

std::size_t scratch(const histogram_problem& p) {
  if (p.n == 0) return 0;
  return layout(p.n, slots(p)).total;
}
bool can_run(const histogram_problem& p) {
  return counts_even_bins(p) && buckets_of(slots(p)) <= max_buckets &&
         max_shared_per_block() >= (bucket_slots + 2 * pad) * 4;
}
void run(const histogram_call& c) { dispatch<rung, dtypes::all>(c); }

}  // namespace

extern const histogram_rung h10_block_multisplit{
    .info =
        {.step = 10,
         .summary =
             "many bins: a hand-written split by bucket (16-bit low slots), shared-memory counts"},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::histogram_cuda
