// histogram/cuda/h13_weighted_fixed_point: numpy.histogram's weights= (and bincount's): each bin
// the sum of its values' weights, the same bits on every run. Float atomics would add a bin's
// weights in whatever order the warps arrive, and float addition is not associative: the sums
// would change from run to run. Integer addition is associative, so each block sums in fixed
// point: over a tile of its values it finds the largest finite |weight| (m), takes a scale 2^k
// with tile x m x 2^k below 2^62, and adds each weight as the 64-bit integer round(w x 2^k)
// into its shared-memory slot with an integer atomic (any order, the same total). After the
// tile, each slot's integer goes back to double (x 2^-k) and is added to the block's running
// sums in order; at the end the blocks' sums are added per slot in block order. Each weight is
// rounded to a multiple of 2^-k, at most tile x m x 2^-63: about 2^-49 of the largest weight
// for tiles of 2^14 (sums in double, as NumPy's bincount, err by about 2^-53 of the running
// sum). Infinite and NaN weights are not summed but flagged per slot (OR is order-free too): a
// slot with NaN, or with both infinities, is NaN, else the infinity it saw, as a double sum is.
// The tile's weights are read twice, the second time from L2 (a tile is 64 or 128 KiB).
// An array of edges: each block copies them into its shared memory first (any_bins.cuh).
#include <cfloat>

#include "histogram/cuda/any_bins.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 512;
constexpr unsigned tile = B * 32;  // values a block sums at one scale (2^14)
constexpr int tile_bits = 14;
static_assert(tile == 1u << tile_bits);

enum flag : unsigned { pos_inf = 1, neg_inf = 2, nan_seen = 4 };

// The block's largest finite |w| over [first, first + len), in every thread.
template <class W>
__device__ double largest_finite(const W* w, std::size_t first, unsigned len, double* spot) {
  double m = 0;
  for (unsigned i = threadIdx.x; i < len; i += B) {
    const double a = fabs(double(w[first + i]));
    if (a <= DBL_MAX) m = fmax(m, a);  // false for infinity and NaN
  }
  m = block_reduce<B>(
      m, [](double a, double b) { return fmax(a, b); }, 0.0);
  if (threadIdx.x == 0) *spot = m;
  __syncthreads();
  m = *spot;
  __syncthreads();  // spot is read by all before it is written again
  return m;
}

// k with len x m x 2^k < 2^62, m > 0: m < 2^e (frexp), so len x m x 2^k < 2^(tile_bits + e + k).
// At most 960, so that 2^k stays a double for the tiniest weights.
__device__ inline int scale_exponent(double m) {
  int e = 0;
  frexp(m, &e);
  const int k = 62 - tile_bits - e;
  return k < 960 ? k : 960;
}

template <class T, class W, class Bin>
__global__ void summed(const T* __restrict__ x, const W* __restrict__ w, std::size_t n, Bin given,
                       double* block_sums, unsigned* flags, unsigned nslots) {
  extern __shared__ unsigned long long room[];  // fixed-point slots, flags, then the edges
  auto* fixed = room;
  auto* seen = reinterpret_cast<unsigned*>(room + nslots);
  auto* edges = reinterpret_cast<double*>(room + nslots + (nslots + 1) / 2);
  __shared__ double spot;
  double* mine = block_sums + std::size_t(blockIdx.x) * nslots;
  for (unsigned b = threadIdx.x; b < nslots; b += B) mine[b] = 0, seen[b] = 0;
  const auto bin = bound(given, edges);
  for (std::size_t first = std::size_t(blockIdx.x) * tile; first < n;
       first += std::size_t(gridDim.x) * tile) {
    const unsigned len = unsigned(n - first < tile ? n - first : tile);
    for (unsigned b = threadIdx.x; b < nslots; b += B) fixed[b] = 0;
    const double m = largest_finite(w, first, len, &spot);  // syncs: fixed is zeroed
    const int k = m > 0 ? scale_exponent(m) : 0;
    const double scale = ldexp(1.0, k);
    for (unsigned i = threadIdx.x; i < len; i += B) {
      const std::size_t at = first + i;
      const double v = double(w[at]);
      const std::size_t b = bin(x[at]);
      if (fabs(v) <= DBL_MAX)
        atomicAdd(&fixed[b], static_cast<unsigned long long>(__double2ll_rn(v * scale)));
      else atomicOr(&seen[b], v != v ? nan_seen : v > 0 ? pos_inf : neg_inf);
    }
    __syncthreads();
    for (unsigned b = threadIdx.x; b < nslots; b += B)
      mine[b] += ldexp(double(static_cast<long long>(fixed[b])), -k);
    __syncthreads();  // fixed is read before the next tile zeroes it
  }
  for (unsigned b = threadIdx.x; b < nslots; b += B)
    if (seen[b]) atomicOr(&flags[b], seen[b]);
}

// Each slot: the blocks' sums in block order, then the flags.
__global__ void combined(const double* block_sums, const unsigned* flags, unsigned blocks,
                         unsigned nslots, double* out) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nslots) return;
  double total = 0;
  for (unsigned k = 0; k < blocks; ++k) total += block_sums[std::size_t(k) * nslots + b];
  const unsigned f = flags[b];
  if ((f & nan_seen) || (f & pos_inf && f & neg_inf))
    total = __longlong_as_double(0x7ff8000000000000ll);
  else if (f & pos_inf) total = __longlong_as_double(0x7ff0000000000000ll);
  else if (f & neg_inf) total = __longlong_as_double(0xfff0000000000000ll);
  out[b] = total;
}

std::size_t shared_bytes(const histogram_problem& p) {
  return slots(p) * 8 + (slots(p) + 1) / 2 * 8 + edge_bytes(p);
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
    if (c.p.weight_type == dtype::f32)
      run_with<T, float>(x, static_cast<const float*>(c.weights), n, bin, c, s);
    else run_with<T, double>(x, static_cast<const double*>(c.weights), n, bin, c, s);
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
          return p.weighted && teaching_dtype(p) && shared_bytes(p) <= max_shared_per_block();
        },
    .scratch_bytes = scratch,
    .run = [](const histogram_call& c) { dispatch_any_bins<rung>(c); },
};

}  // namespace pplab::detail::histogram_cuda
