// histogram/cuda/h13_weighted_fixed_point: numpy.histogram's weights= (and bincount's): each bin
// the sum of its values' weights, the same bits on every run. Float atomics would add a bin's
// weights in whatever order the warps arrive, and float addition is not associative: the sums
// would change from run to run. Integer addition is associative, so each block sums a tile of
// 2^13 values in fixed point, bin by bin: a first pass bins each value (its slot kept in shared
// memory) and finds each slot's largest |weight|, 2^e above it (an integer atomicMax of the
// exponent); the slot's scale is 2^k with k = 62 - 13 - e, so that 2^13 weights of at most 2^e,
// each times 2^k, stay below 2^62; the second pass adds each weight as the 64-bit integer
// round(w x 2^k) to its slot with an integer atomic (any order, the same total). After the
// tile, each slot's integer goes back to double (x 2^-k) and is added to the block's running
// sums in order; at the end the blocks' sums are added per slot in block order. Each weight is
// rounded to a multiple of 2^-k: at most 2^-49 of its slot's largest |weight| in the tile (sums
// in double, as NumPy's bincount, err by about 2^-53 of the running sum). Infinite and NaN
// weights are not summed but flagged per slot (OR is order-free too): a slot with NaN, or with
// both infinities, is NaN, else the infinity it saw, as a double sum is. The second pass reads
// the tile's weights again, from L2 (32 or 64 KiB a tile).
// An array of edges: each block copies them into its shared memory first (any_bins.cuh).
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt): f32 2^28 into 1024
// bins with f32 weights 2.390 ms, 898 GB/s of data and weights (20% of the read ceiling);
// pplab.histogram(weights=) on a CuPy array 12.3x cupy.histogram(weights=). The two passes, the
// per-tile flush and a 64-bit shared atomic per value keep it far from the read (0.48 ms).
#include "histogram/cuda/fixed_point_sums.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 512;
constexpr int tile_bits = 13;
constexpr unsigned tile = 1u << tile_bits;  // values a block sums at one scale per slot
constexpr int no_weight = -2000;            // a slot's exponent before any nonzero weight

// The slot's scale for a tile of 2^tile_bits weights below 2^e.
__device__ inline double scale_for(int e) { return fixed_point_scale(e, tile_bits); }

template <class T, class W, class Bin>
__global__ void summed(const T* __restrict__ x, const W* __restrict__ w, std::size_t n, Bin given,
                       double* block_sums, unsigned* flags, unsigned nslots) {
  // Shared: the fixed-point sums and the scales (8 bytes a slot), the exponents and flags (4
  // each), the tile's slots, then the edges.
  extern __shared__ unsigned long long room[];
  auto* fixed = room;
  auto* scale = reinterpret_cast<double*>(room + nslots);
  auto* top = reinterpret_cast<int*>(room + 2 * std::size_t(nslots));
  auto* seen = reinterpret_cast<unsigned*>(top + nslots);
  auto* slot_of = seen + nslots;
  auto* edges = reinterpret_cast<double*>(room + 2 * std::size_t(nslots) + nslots + tile / 2);
  double* mine = block_sums + std::size_t(blockIdx.x) * nslots;
  for (unsigned b = threadIdx.x; b < nslots; b += B)
    mine[b] = 0, seen[b] = 0, fixed[b] = 0, top[b] = no_weight;
  const auto bin = bound(given, edges);
  __syncthreads();
  for (std::size_t first = std::size_t(blockIdx.x) * tile; first < n;
       first += std::size_t(gridDim.x) * tile) {
    const unsigned len = unsigned(n - first < tile ? n - first : tile);
    for (unsigned i = threadIdx.x; i < len; i += B) {  // bin, and each slot's largest weight
      const std::size_t b = bin(x[first + i]);
      const double v = double(w[first + i]);
      slot_of[i] = unsigned(b);
      if (fabs(v) <= DBL_MAX) {
        if (v != 0) atomicMax(&top[b], exponent_above(v));
      } else {
        atomicOr(&seen[b], flag_of(v));
      }
    }
    __syncthreads();
    for (unsigned b = threadIdx.x; b < nslots; b += B)
      if (top[b] != no_weight) scale[b] = scale_for(top[b]);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < len; i += B) {  // the weights again (from L2), summed
      const double v = double(w[first + i]);
      const unsigned b = slot_of[i];
      if (fabs(v) <= DBL_MAX && v != 0)
        atomicAdd(&fixed[b], static_cast<unsigned long long>(__double2ll_rn(v * scale[b])));
    }
    __syncthreads();
    for (unsigned b = threadIdx.x; b < nslots; b += B)
      if (top[b] != no_weight) {
        mine[b] += double(static_cast<long long>(fixed[b])) / scale[b];
        fixed[b] = 0, top[b] = no_weight;
      }
    __syncthreads();  // the slots are clear before the next tile
  }
  for (unsigned b = threadIdx.x; b < nslots; b += B)
    if (seen[b]) atomicOr(&flags[b], seen[b]);
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

std::size_t shared_bytes(const histogram_problem& p) {
  return slots(p) * 24 + tile * 4 + edge_bytes(p);
}

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

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    with_weights(c, [&](const auto* w) { run_with(x, w, n, bin, c, s); });
  }
  template <class T, class W, class Bin>
  static void run_with(const T* x, const W* w, std::size_t n, Bin bin, const histogram_call& c,
                       cudaStream_t s) {
    const unsigned nslots = unsigned(slots(c.p));
    const unsigned grid =
        unsigned(std::min<std::size_t>(blocks_for<T, W, Bin>(c.p), most_blocks()));
    auto* block_sums = static_cast<double*>(c.scratch);
    auto* flags = reinterpret_cast<unsigned*>(block_sums + most_blocks() * nslots);
    PPLAB_CUDA(cudaMemsetAsync(flags, 0, nslots * sizeof(unsigned), s));
    summed<T, W, Bin><<<grid, B, shared_bytes(c.p), s>>>(x, w, n, bin, block_sums, flags, nslots);
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
