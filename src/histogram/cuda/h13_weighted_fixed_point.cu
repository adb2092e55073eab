// histogram/cuda/h13_weighted_fixed_point: numpy.histogram's weights= (and bincount's): each bin
// the sum of its values' weights, the same bits on every run. Float atomics would add a bin's
// weights in whatever order the warps arrive, and float addition is not associative: the sums
// would change from run to run. Integer addition is associative, so each block sums a tile of
// 2^12 values in fixed point, bin by bin. Each thread holds 8 values of the tile and their
// weights in registers (coalesced loads, all in flight together; the next tile's are issued as
// soon as the registers are free, so they travel while the block sums this one). A first pass
// bins each value and finds each slot's largest |weight|, 2^e above it (an integer atomicMax of
// the exponent); the slot's scale is 2^k with k = 62 - 12 - e, so that 2^12 weights of at most
// 2^e, each times 2^k, stay below 2^62; the second pass adds each weight as the 64-bit integer
// t = round(w x 2^k) to its slot with integer atomics (any order, the same total): three 32-bit
// ones, t's bits 0-15, 16-31 and from 32 on (signed), each into its own counter, because a 64-bit
// shared atomic add is a loop of compare-and-swaps; 2^12 parts of 16 bits, or of the 18 bits t
// has above 2^32, cannot wrap a 32-bit counter, so the tile's total is exact. After the
// tile, each slot's integer goes back to double (x 2^-k) and is added to the block's running
// sum in shared memory, in tile order; at the end the blocks' sums are added per slot in block
// order. Each weight is rounded to a multiple of 2^-k: at most 2^-50 of its slot's largest
// |weight| in the tile (sums in double, as NumPy's bincount, err by about 2^-53 of the running
// sum). Infinite and NaN weights are not summed but flagged per slot (OR is order-free too): a
// slot with NaN, or with both infinities, is NaN, else the infinity it saw, as a double sum is.
// An array of edges: each block copies them into its shared memory first (any_bins.cuh).
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt): f32 2^28
// into 1024 bins with f32 weights 1.189 ms, 1806 GB/s of data and weights (41% of the read
// ceiling; the read alone is 0.48 ms; the seventh section), where one 64-bit atomic a value took
// 1.742 ms (the second run) and one value at a time per thread, the slots kept in shared memory
// and the weights read again from L2 2.390 ms (the first); through Python on CuPy arrays
// 1.291 ms, 25.7x cupy.histogram(weights=).
#include "histogram/cuda/fixed_point_sums.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 512;
constexpr int per_thread = 8;  // values a thread holds in registers per tile
constexpr int tile_bits = 12;
constexpr unsigned tile = B * per_thread;  // values a block sums at one scale per slot
static_assert(tile == 1u << tile_bits);
constexpr int no_weight = -2000;  // a slot's exponent before any nonzero weight

// The slot's scale for a tile of 2^tile_bits weights below 2^e.
__device__ inline double scale_for(int e) { return fixed_point_scale(e, tile_bits); }

// Thread t's share of the tile at `first`: values first + t + j B, j < per_thread (coalesced
// loads, all of them in flight at once), into registers; past n, nothing.
template <class T>
__device__ inline void tile_loaded(const T* __restrict__ a, std::size_t n, std::size_t first,
                                   T (&r)[per_thread]) {
#pragma unroll
  for (int j = 0; j < per_thread; ++j) {
    const std::size_t i = first + threadIdx.x + std::size_t(j) * B;
    if (i < n) r[j] = a[i];
  }
}

template <class T, class W, class Bin>
__global__ void __launch_bounds__(B, 2)
    summed(const T* __restrict__ x, const W* __restrict__ w, std::size_t n, Bin given,
           double* block_sums, unsigned* flags, unsigned nslots, unsigned edge_doubles) {
  // Shared, per slot: the block's running sum and the tile's scale (8 bytes each), then the
  // edges, then the tile's three counters, its largest exponent and the flags (4 bytes each).
  extern __shared__ double room[];
  double* running = room;
  double* scale = room + nslots;
  double* edges = room + 2 * std::size_t(nslots);
  auto* low = reinterpret_cast<unsigned*>(room + 2 * std::size_t(nslots) + edge_doubles);
  unsigned* mid = low + nslots;
  auto* high = reinterpret_cast<int*>(mid + nslots);
  int* top = high + nslots;
  auto* seen = reinterpret_cast<unsigned*>(top + nslots);
  for (unsigned b = threadIdx.x; b < nslots; b += B)
    running[b] = 0, seen[b] = 0, low[b] = mid[b] = 0, high[b] = 0, top[b] = no_weight;
  const auto bin = bound(given, edges);
  __syncthreads();
  // The tile's values and weights stay in registers from the first pass to the second (the
  // weights are read once); the next tile's loads are issued as soon as each register is free,
  // so they are in flight while the block sums and flushes this one.
  const std::size_t stride = std::size_t(gridDim.x) * tile;
  T xs[per_thread];
  W ws[per_thread];
  std::size_t first = std::size_t(blockIdx.x) * tile;
  tile_loaded(x, n, first, xs);
  tile_loaded(w, n, first, ws);
  for (; first < n; first += stride) {
    unsigned slot[per_thread];
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {  // bin, and each slot's largest weight
      if (first + threadIdx.x + std::size_t(j) * B >= n) continue;
      const unsigned b = unsigned(bin(xs[j]));
      const double v = double(ws[j]);
      slot[j] = b;
      if (fabs(v) <= DBL_MAX) {
        if (v != 0) atomicMax(&top[b], exponent_above(v));
      } else {
        atomicOr(&seen[b], flag_of(v));
      }
    }
    tile_loaded(x, n, first + stride, xs);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < nslots; b += B)
      if (top[b] != no_weight) scale[b] = scale_for(top[b]);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {  // each weight added to its slot in fixed point
      if (first + threadIdx.x + std::size_t(j) * B >= n) continue;
      const double v = double(ws[j]);
      const unsigned b = slot[j];
      if (fabs(v) <= DBL_MAX && v != 0) {
        const long long t = __double2ll_rn(v * scale[b]);
        atomicAdd(&low[b], static_cast<unsigned>(t) & 0xffffu);
        atomicAdd(&mid[b], static_cast<unsigned>(t) >> 16);
        atomicAdd(&high[b], static_cast<int>(t >> 32));
      }
    }
    tile_loaded(w, n, first + stride, ws);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < nslots; b += B)
      if (top[b] != no_weight) {  // scale is a power of two: the division is exact
        const long long fixed = (static_cast<long long>(high[b]) << 32) +
                                (static_cast<long long>(mid[b]) << 16) + low[b];
        running[b] += double(fixed) / scale[b];
        low[b] = mid[b] = 0, high[b] = 0, top[b] = no_weight;
      }
    __syncthreads();  // the slots are clear before the next tile
  }
  double* mine = block_sums + std::size_t(blockIdx.x) * nslots;
  for (unsigned b = threadIdx.x; b < nslots; b += B) {
    mine[b] = running[b];
    if (seen[b]) atomicOr(&flags[b], seen[b]);
  }
}

// Each slot: the blocks' sums in block order, then the flags (fixed_point_sums.cuh).
__global__ void combined(const double* block_sums, const unsigned* flags, unsigned blocks,
                         unsigned nslots, double* out) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nslots) return;
  double total = 0;
  for (unsigned k = 0; k < blocks; ++k) total += block_sums[std::size_t(k) * nslots + b];
  out[b] = with_flags(total, flags[b]);
}

std::size_t shared_bytes(const histogram_problem& p) { return slots(p) * 36 + edge_bytes(p); }

// The blocks launched: as many as the GPU holds at once (found per kernel), no more than the
// tiles; the scratch is their sums (blocks x slots doubles) and the slots' flags.
template <class T, class W, class Bin> unsigned blocks_for(const histogram_problem& p) {
  const std::size_t shared = shared_bytes(p);
  allow_shared(summed<T, W, Bin>, shared);
  const std::size_t tiles = (p.n + tile - 1) / tile;
  return unsigned(std::max<std::size_t>(
      std::min<std::size_t>(resident_blocks(summed<T, W, Bin>, int(B), shared), tiles), 1));
}
// The scratch's room: as many blocks as the GPU can hold at once (2048 threads per SM).
inline std::size_t most_blocks() { return std::size_t(sm_count()) * (2048 / B); }

struct rung : weights_typed<rung> {
  template <class T, class W, class Bin>
  static void run_with(const T* x, const W* w, std::size_t n, Bin bin, const histogram_call& c,
                       cudaStream_t s) {
    const unsigned nslots = unsigned(slots(c.p));
    const unsigned grid =
        unsigned(std::min<std::size_t>(blocks_for<T, W, Bin>(c.p), most_blocks()));
    auto* block_sums = static_cast<double*>(c.scratch);
    auto* flags = reinterpret_cast<unsigned*>(block_sums + most_blocks() * nslots);
    PPLAB_CUDA(cudaMemsetAsync(flags, 0, nslots * sizeof(unsigned), s));
    summed<T, W, Bin><<<grid, B, shared_bytes(c.p), s>>>(
        x, w, n, bin, block_sums, flags, nslots, unsigned(edge_bytes(c.p) / sizeof(double)));
    PPLAB_CUDA_LAUNCHED();
    combined<<<(nslots + 255) / 256, 256, 0, s>>>(block_sums, flags, grid, nslots, sums_of(c));
    PPLAB_CUDA_LAUNCHED();
  }
};

std::size_t scratch(const histogram_problem& p) {
  return most_blocks() * slots(p) * sizeof(double) + slots(p) * sizeof(unsigned);
}

}  // namespace

extern const histogram_rung h13_weighted_fixed_point{
    .info = {.step = 13,
             .summary = "weights summed in 64-bit fixed point per tile: the same bits every run"},
    .can_run =
        [](const histogram_problem& p) {
          return p.weighted && shared_bytes(p) <= max_shared_per_block();
        },
    .scratch_bytes = scratch,
    .run = [](const histogram_call& c) { dispatch_any_bins<rung>(c); },
};

}  // namespace pplab::detail::histogram_cuda
