// histogram/cuda/h19_weighted_partitioned: weights into more bins than one block's shared memory
// holds (numpy.bincount(x, w) over 65536 values), summed in shared memory anyway: the values are
// partitioned by bucket of slots first, then each block sums one bucket's values.
//   1. partition: a block takes tiles of 8192 values (8 a thread, the next tile's loads in
//      flight while this one is placed); it bins each, drops the zero weights (and flags the
//      infinite and NaN ones, as h15), ranks the rest within their bucket (a bucket is at most
//      8192 consecutive slots; a rank is one shared atomic on the bucket's count) and writes the
//      tile's records (the slot within its bucket, 16 bits, and the weight) grouped by bucket,
//      staged in shared memory and copied out in 16-byte pieces, with the tile's bucket offsets.
//      It also keeps each slot's largest exponent in a shared table of 16 bits a slot, added
//      into the global one at the end (one read a slot a block, an atomicMax where larger).
//   2. sum: each block owns one bucket and a share of the tiles; it reads the bucket's records
//      of eight tiles at once (their reads in flight together) and adds each weight as the
//      integer round(w 2^k) (k from the slot's largest exponent, as h15) in three parts into
//      32-bit shared counters (term_added). At the end each slot's counters make one 128-bit
//      integer, added into the global sums as h15 adds its terms.
// The same terms as h15's, added exactly: the same bits as h15, on every run (tested).
// What it is for: h15 pays an L2 atomic for every value (about 100 G/s on an H200: 2^28 values
// cannot go under 2.6 ms that way) and reads the data twice. Here the data is read once and its
// records (6 bytes for a float weight) written and read once: for 2^28 int64 keys and float
// weights 3 + 1.5 + 1.5 GiB, 1.4 ms at the H200's 4.5 TB/s.
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt, its sixth
// section): the lab's 2^28 f32 into 65536 bins with f32 weights 2.733 ms, 1.97x h15; through
// Python, numpy.bincount(x, w) of 2^28 int64 with float32 weights 3.89 ms, 1.07x torch.bincount
// (4.15 ms; h15 6.89), with float64 weights 5.71 ms, 0.75x. Nsight Compute (its clocks ~1.3x
// slower) on the lab's row: the partition 2.2 ms for 3.7 GB of DRAM traffic (0.85 ms of it at
// the read ceiling): 126 warp instructions a 32 values at 0.6 a cycle a scheduler, bound by its
// instructions, not by memory; the sums 1.26 ms (1.7 GB). 64-bit shared atomics (two a value)
// took the sums 2.8 ms: they are compare-and-swap loops, the shared pipe 95% busy.
// Scratch: the records (2 + the weight's bytes a value), 24 bytes a slot.
#include <climits>

#include "histogram/cuda/wide_sums.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 1024;
constexpr int per_thread = 8;
constexpr unsigned tile = B * per_thread;  // values a block partitions at once
constexpr unsigned bucket_slots = 8192;    // slots a block sums in shared memory, at most
constexpr int tiles_at_once = 8;           // tiles whose records a summing thread reads together
constexpr int per_tile = 1;                // records of each a thread loads before it adds

static_assert(tile == 8192 && bucket_slots == 8192, "a value's place takes 13 bits each");

// The buckets: as few as hold the slots, of equal width; a slot's bucket found by a multiply:
// (s x ceil(2^40 / width)) >> 40 is s / width for every s < 2^20 (the error, s x (magic x width -
// 2^40) / (width 2^40), stays below 1 / width).
struct buckets {
  unsigned count, width;
  unsigned long long magic;
  __device__ unsigned of(unsigned s) const { return unsigned((s * magic) >> 40); }
};
__host__ __device__ inline buckets buckets_for(unsigned nslots) {
  const unsigned count = (nslots + bucket_slots - 1) / bucket_slots;
  const unsigned width = (nslots + count - 1) / count;
  return {count, width, ((1ull << 40) + width - 1) / width};
}

// The partition's shared memory: the staged records (weights first, for their alignment), the
// exponent table and the bucket counts.
template <class W> std::size_t partition_shared(unsigned nslots) {
  return tile * (sizeof(W) + 2) + (nslots + 1) / 2 * 4 + (3 * buckets_for(nslots).count + 1) * 4;
}
constexpr std::size_t sum_shared = bucket_slots * (8 + 4 + 4 + 4);

// Raises the slot's 16-bit entry of the table (two a word) to e if it is below.
__device__ inline void raised(unsigned* table, unsigned slot, unsigned e) {
  unsigned* word = table + slot / 2;
  const unsigned shift = (slot & 1) * 16;
  unsigned old = *static_cast<volatile unsigned*>(word);
  while (((old >> shift) & 0xffff) < e) {
    const unsigned seen = atomicCAS(word, old, (old & ~(0xffffu << shift)) | (e << shift));
    if (seen == old) break;
    old = seen;
  }
}

template <class W> struct records {
  W* weight;             // per tile, grouped by bucket
  unsigned short* slot;  // the slot within its bucket
  unsigned* starts;      // per tile, its buckets' first records and the end (count + 1)
};

// A weight's top (wide::top_of) if it is finite and not zero; 0 if zero; -1 if infinite or NaN.
// A float's from its bits (a normal float's exponent is a double's less 896), a subnormal's
// through double (its double is normal).
__device__ inline int top_or_none(float w) {
  const unsigned bits = __float_as_uint(w) & 0x7fffffffu, biased = bits >> 23;
  if (bits == 0) return 0;
  if (biased == 0xff) return -1;
  return biased ? int(biased) - 126 + wide::unbiased : wide::top_of(double(w));
}
__device__ inline int top_or_none(double w) {
  if (w == 0) return 0;
  return fabs(w) <= DBL_MAX ? wide::top_of(w) : -1;
}

template <class T, class W, class Bin>
__global__ void __launch_bounds__(B)
    partitioned(const T* __restrict__ x, const W* __restrict__ w, std::size_t n, Bin bin,
                unsigned nslots, records<W> out, int* top, unsigned* flags) {
  extern __shared__ __align__(16) unsigned char shared[];
  W* staged_weight = reinterpret_cast<W*>(shared);
  auto* staged_slot = reinterpret_cast<unsigned short*>(staged_weight + tile);
  auto* table = reinterpret_cast<unsigned*>(staged_slot + tile);
  const buckets bk = buckets_for(nslots);
  // Two sets of bucket counts, a tile's and the next's (zeroed while this one is copied out),
  // and the starts.
  unsigned* counts = table + (nslots + 1) / 2;
  unsigned* start = counts + 2 * bk.count;
  for (unsigned i = threadIdx.x; i < (nslots + 1) / 2; i += B) table[i] = 0;
  if (threadIdx.x < 2 * bk.count) counts[threadIdx.x] = 0;
  const std::size_t tiles = (n + tile - 1) / tile;
  T xs[per_thread];
  W ws[per_thread];
  const auto load = [&](std::size_t g) {
    const std::size_t left = n - g * tile;
#pragma unroll
    for (int j = 0; j < per_thread; ++j)
      if (j * B + threadIdx.x < left)
        xs[j] = x[g * tile + j * B + threadIdx.x], ws[j] = w[g * tile + j * B + threadIdx.x];
  };
  std::size_t g = blockIdx.x;
  if (g < tiles) load(g);
  __syncthreads();
  for (unsigned parity = 0; g < tiles; g += gridDim.x, parity ^= 1) {
    unsigned* count = counts + parity * bk.count;
    T xc[per_thread];
    W wc[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) xc[j] = xs[j], wc[j] = ws[j];
    const unsigned left = n - g * tile < tile ? unsigned(n - g * tile) : tile;
    if (g + gridDim.x < tiles) load(g + gridDim.x);  // in flight while this tile is placed
    // Each value's place in one register: its bucket (bits 26-31; none: ~0u), its rank among
    // the tile's values of that bucket (bits 13-25) and its slot within the bucket (bits 0-12).
    unsigned place[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      place[j] = ~0u;
      if (j * B + threadIdx.x < left) {
        const int e = top_or_none(wc[j]);
        if (e != 0) {
          const unsigned s = unsigned(bin(xc[j]));
          if (e > 0) {
            raised(table, s, unsigned(e));
            const unsigned b = bk.of(s);
            place[j] = b << 26 | (s - b * bk.width);
          } else {
            atomicOr(&flags[s], flag_of(double(wc[j])));
          }
        }
      }
      // Its rank: one shared atomic on its bucket's count (ranks within a bucket in any order:
      // the sums do not depend on it). A warp's leader taking its bucket's lanes' ranks at
      // once (match_any) took 1.08x as long at 65536 bins (nine buckets), 0.90x at 1024 (one).
      if (place[j] != ~0u) place[j] |= atomicAdd(&count[place[j] >> 26], 1u) << 13;
    }
    __syncthreads();
    if (threadIdx.x == 0) {  // a handful of buckets: one thread's scan
      unsigned at = 0;
      for (unsigned b = 0; b < bk.count; ++b) start[b] = at, at += count[b];
      start[bk.count] = at;
    }
    __syncthreads();
    if (threadIdx.x <= bk.count) out.starts[g * (bk.count + 1) + threadIdx.x] = start[threadIdx.x];
    if (threadIdx.x < bk.count) count[threadIdx.x] = 0;  // for the tile after next
#pragma unroll
    for (int j = 0; j < per_thread; ++j)
      if (place[j] != ~0u) {
        const unsigned at = start[place[j] >> 26] + (place[j] >> 13 & (tile - 1));
        staged_weight[at] = wc[j], staged_slot[at] = static_cast<unsigned short>(place[j] & 8191);
      }
    __syncthreads();
    // Out in 16-byte pieces (past the tile's records, up to the piece's end, what the staging
    // held: the tile's room in the records is whole pieces, and nothing reads past its count).
    const unsigned total = start[bk.count];
    const auto* from_w = reinterpret_cast<const uint4*>(staged_weight);
    auto* to_w = reinterpret_cast<uint4*>(out.weight + g * tile);
    for (unsigned k = threadIdx.x; k < (total * sizeof(W) + 15) / 16; k += B) to_w[k] = from_w[k];
    const auto* from_s = reinterpret_cast<const uint4*>(staged_slot);
    auto* to_s = reinterpret_cast<uint4*>(out.slot + g * tile);
    for (unsigned k = threadIdx.x; k < (total * 2 + 15) / 16; k += B) to_s[k] = from_s[k];
    // The next tile's staging waits for these reads at its first barrier.
  }
  __syncthreads();
  for (unsigned s = threadIdx.x; s < nslots; s += B) {
    const int e = int((table[s / 2] >> ((s & 1) * 16)) & 0xffff);
    if (e > top[s]) atomicMax(&top[s], e);
  }
}

// One weight's term t = round(w 2^k), below 2^51 in magnitude, added as three parts into 32-bit
// shared counters (the only shared atomics that are not a loop of compare-and-swaps): its bits
// 0-15 and 16-31 (unsigned) and its bits from 32 on (signed: t >> 32). A counter that wraps
// (the old value says so: at most once in 2^15 adds for the first two) hands what left it,
// 2^32 times its part's unit, to the slot's 128-bit sum in global memory.
__device__ inline void term_added(unsigned* low, unsigned* mid, int* high, wide::sum* sum, double v,
                                  double scale) {
  const long long t = __double2ll_rn(rint(v * scale));
  const unsigned a = static_cast<unsigned>(t) & 0xffffu, b = static_cast<unsigned>(t) >> 16;
  const int c = static_cast<int>(t >> 32);
  const unsigned old_a = atomicAdd(low, a), old_b = atomicAdd(mid, b);
  const int old_c = atomicAdd(high, c);
  if (old_a + a < old_a) wide::added(sum, 1ull << 32, 0);
  if (old_b + b < old_b) wide::added(sum, 1ull << 48, 0);
  if (c > 0 && old_c > INT_MAX - c) wide::added(sum, 0, 1);           // 2^64 past 2^31 x 2^32
  else if (c < 0 && old_c < INT_MIN - c) wide::added(sum, 0, ~0ull);  // -2^64
}

template <class W>
__global__ void __launch_bounds__(B) summed(records<W> in, std::size_t tiles, unsigned nslots,
                                            const int* __restrict__ top, wide::sum* sums) {
  extern __shared__ __align__(16) unsigned char shared[];
  auto* scale = reinterpret_cast<double*>(shared);
  auto* low = reinterpret_cast<unsigned*>(scale + bucket_slots);
  unsigned* mid = low + bucket_slots;
  auto* high = reinterpret_cast<int*>(mid + bucket_slots);
  const buckets bk = buckets_for(nslots);
  const unsigned bucket = blockIdx.y, first = bucket * bk.width;
  const unsigned width = bk.width < nslots - first ? bk.width : nslots - first;
  wide::sum* bucket_sums = sums + first;
  for (unsigned s = threadIdx.x; s < width; s += B) {
    low[s] = 0, mid[s] = 0, high[s] = 0;
    scale[s] = wide::scale_of(top[first + s]);
  }
  __syncthreads();
  const unsigned stride = gridDim.x;
  for (std::size_t g = blockIdx.x; g < tiles; g += std::size_t(stride) * tiles_at_once) {
    unsigned from[tiles_at_once], to[tiles_at_once];
#pragma unroll
    for (int u = 0; u < tiles_at_once; ++u) {
      const std::size_t t = g + std::size_t(u) * stride;
      const unsigned* at = in.starts + t * (bk.count + 1) + bucket;
      from[u] = t < tiles ? at[0] : 0, to[u] = t < tiles ? at[1] : 0;
    }
    W ws[tiles_at_once][per_tile];
    unsigned short ss[tiles_at_once][per_tile];
#pragma unroll
    for (int u = 0; u < tiles_at_once; ++u) {
      const std::size_t base = (g + std::size_t(u) * stride) * tile;
#pragma unroll
      for (int q = 0; q < per_tile; ++q) {
        const unsigned k = from[u] + q * B + threadIdx.x;
        if (k < to[u]) ws[u][q] = in.weight[base + k], ss[u][q] = in.slot[base + k];
      }
    }
#pragma unroll
    for (int u = 0; u < tiles_at_once; ++u) {
      const std::size_t base = (g + std::size_t(u) * stride) * tile;
#pragma unroll
      for (int q = 0; q < per_tile; ++q)
        if (from[u] + q * B + threadIdx.x < to[u]) {
          const unsigned s = ss[u][q];
          term_added(&low[s], &mid[s], &high[s], &bucket_sums[s], double(ws[u][q]), scale[s]);
        }
      // A bucket holding most of a tile: the records past the first per_tile x B.
      for (unsigned k = from[u] + per_tile * B + threadIdx.x; k < to[u]; k += B) {
        const unsigned s = in.slot[base + k];
        term_added(&low[s], &mid[s], &high[s], &bucket_sums[s], double(in.weight[base + k]),
                   scale[s]);
      }
    }
  }
  __syncthreads();
  for (unsigned s = threadIdx.x; s < width; s += B) {
    if (low[s] == 0 && mid[s] == 0 && high[s] == 0) continue;
    // low + mid 2^16 + high 2^32 as a 128-bit integer.
    const unsigned long long part = low[s] + (static_cast<unsigned long long>(mid[s]) << 16);
    const unsigned long long lo =
        part + (static_cast<unsigned long long>(static_cast<long long>(high[s])) << 32);
    const unsigned long long hi = (high[s] < 0 ? ~0ull : 0) + (lo < part ? 1 : 0);
    wide::added(&bucket_sums[s], lo, hi);
  }
}

// The scratch: the slots' sums, tops and flags (wide_sums.cuh), the tiles' bucket starts, the
// records' weights and slots.
template <class W> struct layout {
  wide::slots_layout slots;
  records<W> rec;
  std::size_t bytes;
};
template <class W> layout<W> layout_of(std::size_t nslots, std::size_t n, void* base) {
  layout<W> l;
  auto* p = static_cast<unsigned char*>(base);
  l.slots = wide::slots_layout_of(nslots, p);
  const std::size_t tiles = (n + tile - 1) / tile;
  const std::size_t starts_at = l.slots.bytes;
  const std::size_t weights_at =
      ceil_div(starts_at + tiles * (buckets_for(unsigned(nslots)).count + 1) * 4, 16) * 16;
  const std::size_t slots_at = weights_at + tiles * tile * sizeof(W);
  l.rec = {reinterpret_cast<W*>(p + weights_at), reinterpret_cast<unsigned short*>(p + slots_at),
           reinterpret_cast<unsigned*>(p + starts_at)};
  l.bytes = slots_at + tiles * tile * 2;
  return l;
}

struct rung : weights_typed<rung> {
  template <class T, class W, class Bin>
  static void run_with(const T* x, const W* w, std::size_t n, Bin bin, const histogram_call& c,
                       cudaStream_t s) {
    const unsigned nslots = unsigned(slots(c.p));
    const layout<W> l = layout_of<W>(nslots, n, c.scratch);
    PPLAB_CUDA(cudaMemsetAsync(c.scratch, 0, l.slots.bytes, s));
    const std::size_t tiles = (n + tile - 1) / tile;
    const std::size_t shared = partition_shared<W>(nslots);
    allow_shared(partitioned<T, W, Bin>, shared);
    const unsigned grid = unsigned(
        std::min<std::size_t>(tiles, resident_blocks(partitioned<T, W, Bin>, int(B), shared)));
    partitioned<T, W, Bin>
        <<<grid, B, shared, s>>>(x, w, n, bin, nslots, l.rec, l.slots.top, l.slots.flags);
    PPLAB_CUDA_LAUNCHED();
    // As many blocks a bucket as fill the GPU once, no more than the tiles.
    allow_shared(summed<W>, sum_shared);
    const unsigned nb = buckets_for(nslots).count;
    const unsigned per_bucket = unsigned(
        std::clamp<std::size_t>(resident_blocks(summed<W>, int(B), sum_shared) / nb, 1, tiles));
    summed<W><<<dim3(per_bucket, nb), B, sum_shared, s>>>(l.rec, tiles, nslots, l.slots.top,
                                                          l.slots.sums);
    PPLAB_CUDA_LAUNCHED();
    wide::finished(l.slots.top, l.slots.sums, l.slots.flags, sums_of(c), nslots, s);
  }
};

// Even bins only (the edges of as many bins would not fit a block's shared memory beside the
// table); numpy.bincount's bins one wide for integers, the even-bin binners otherwise; bytes and
// the 32- and 64-bit types (h15 takes the 16-bit ones).
bool takes(const histogram_problem& p) {
  return !p.edge_array && (p.type == dtype::u8 || size_of(p.type) >= 4);
}

}  // namespace

extern const histogram_rung h19_weighted_partitioned{
    .info = {.step = 19,
             .summary = "weights partitioned by bucket of slots, then summed in shared memory in "
                        "fixed point: h15's bits"},
    .can_run =
        [](const histogram_problem& p) {
          if (!p.weighted || !takes(p) || p.n >= (std::size_t(1) << 32) ||
              buckets_for(unsigned(std::min<std::size_t>(slots(p), 1u << 20))).count >= 63)
            return false;
          const std::size_t shared = p.weight_type == dtype::f32
                                         ? partition_shared<float>(unsigned(slots(p)))
                                         : partition_shared<double>(unsigned(slots(p)));
          return std::max(shared, sum_shared) <= max_shared_per_block();
        },
    .scratch_bytes =
        [](const histogram_problem& p) {
          return p.weight_type == dtype::f32 ? layout_of<float>(slots(p), p.n, nullptr).bytes
                                             : layout_of<double>(slots(p), p.n, nullptr).bytes;
        },
    .run =
        [](const histogram_call& c) {
          if (!unit_width_binner::usable(c.p)) return dispatch<rung, dtypes::teaching>(c);
          PPLAB_CUDA(cudaMemsetAsync(c.counts, 0, slots(c.p) * sizeof(count_t),
                                     static_cast<cudaStream_t>(c.stream)));
          if (c.p.n == 0) return;
          visit_dtype(c.p.type, [&](auto tag) {  // numpy.bincount's bins
            using T = decltype(tag);
            if constexpr (std::is_integral_v<T> && (sizeof(T) == 1 || sizeof(T) >= 4))
              rung::run<T>(static_cast<const T*>(c.in), c.p.n, unit_width_binner(c.p), c,
                           static_cast<cudaStream_t>(c.stream));
          });
        },
};

}  // namespace pplab::detail::histogram_cuda
