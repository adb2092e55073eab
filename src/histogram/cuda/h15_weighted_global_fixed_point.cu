// histogram/cuda/h15_weighted_global_fixed_point: weights into more bins than one block's shared
// memory holds (numpy.bincount(x, w) over 65536 values, say): h13's fixed-point sums, the same
// bits on every run, with the slots in global memory (L2's atomics). The data goes in windows of
// 2^24 values, three kernels each: every value's slot takes the largest exponent of its weights
// (an integer atomicMax; infinities and NaN flagged) and counts its weights (c), then every
// weight is added to its slot as the 64-bit integer round(w x 2^k), k = 62 - log2(c) - e (c such
// weights stay below 2^62; any order, the same total), then each slot's integer goes back to
// double and is added to the slot's running sum in window order. Each weight is rounded to
// 2^-(63 - log2 c) of its slot's largest |weight| in the window (256 weights a slot: 2^-55).
// What limits it: the data is read twice (the window's second pass does not fit L2) and every
// value costs three L2 atomics.
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt): f32 2^28 into 1024
// bins with f32 weights 42.27 ms (h13 in shared memory: 2.390); numpy.bincount(x, w) of 2^28
// int64 into 65536 bins through Python 13.88 ms, 0.30x torch.bincount's 4.19 ms (whose float
// atomics give other bits on every run): a privatized rung for many bins is still to come.
#include "histogram/cuda/fixed_point_sums.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 256;
constexpr int window_bits = 24;
constexpr std::size_t window = std::size_t(1) << window_bits;

// Each slot's largest exponent, stored as e + 2048 (0: no nonzero weight yet, so a memset
// clears it), its count of nonzero finite weights, and the flags of weights not finite.
template <class T, class W, class Bin>
__global__ void exponents(const T* __restrict__ x, const W* __restrict__ w, std::size_t n,
                          Bin given, int* top, unsigned* count, unsigned* flags) {
  extern __shared__ double edges[];
  const auto bin = bound(given, edges);
  __syncthreads();
  for (std::size_t i = global_thread(); i < n; i += grid_threads()) {
    const double v = double(w[i]);
    if (fabs(v) <= DBL_MAX) {
      if (v != 0) {
        const std::size_t b = bin(x[i]);
        atomicMax(&top[b], exponent_above(v) + 2048);
        atomicAdd(&count[b], 1u);
      }
    } else {
      atomicOr(&flags[bin(x[i])], flag_of(v));
    }
  }
}

// The scale of a slot whose weights are below 2^(top - 2048), `count` of them.
__device__ inline double scale_of(int top, unsigned count) {
  return fixed_point_scale(top - 2048, 32 - __clz(count));  // 2^(32 - clz) > count
}

template <class T, class W, class Bin>
__global__ void added(const T* __restrict__ x, const W* __restrict__ w, std::size_t n, Bin given,
                      const int* top, const unsigned* count, unsigned long long* fixed) {
  extern __shared__ double edges[];
  const auto bin = bound(given, edges);
  __syncthreads();
  for (std::size_t i = global_thread(); i < n; i += grid_threads()) {
    const double v = double(w[i]);
    if (fabs(v) <= DBL_MAX && v != 0) {
      const std::size_t b = bin(x[i]);
      const double scale = scale_of(top[b], count[b]);
      atomicAdd(&fixed[b], static_cast<unsigned long long>(__double2ll_rn(v * scale)));
    }
  }
}

// Each slot's window sum into its running sum, and the slot cleared for the next window.
__global__ void flushed(int* top, unsigned* count, unsigned long long* fixed, double* sums,
                        unsigned nslots) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nslots || top[b] == 0) return;
  sums[b] += double(static_cast<long long>(fixed[b])) / scale_of(top[b], count[b]);
  fixed[b] = 0, top[b] = 0, count[b] = 0;
}

__global__ void finished(const unsigned* flags, double* sums, unsigned nslots) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < nslots) sums[b] = with_flags(sums[b], flags[b]);
}

struct layout {
  unsigned long long* fixed;
  int* top;
  unsigned *count, *flags;
  std::size_t bytes;
};
layout layout_of(std::size_t nslots, void* base) {
  auto* p = static_cast<unsigned char*>(base);
  return {reinterpret_cast<unsigned long long*>(p), reinterpret_cast<int*>(p + nslots * 8),
          reinterpret_cast<unsigned*>(p + nslots * 12),
          reinterpret_cast<unsigned*>(p + nslots * 16), nslots * 20};
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    with_weights(c, [&](const auto* w) { run_with(x, w, n, bin, c, s); });
  }
  template <class T, class W, class Bin>
  static void run_with(const T* x, const W* w, std::size_t n, Bin bin, const histogram_call& c,
                       cudaStream_t s) {
    const unsigned nslots = unsigned(slots(c.p));
    const layout l = layout_of(nslots, c.scratch);
    PPLAB_CUDA(cudaMemsetAsync(c.scratch, 0, l.bytes, s));  // the sums are zeroed by dispatch
    const std::size_t shared = edge_bytes(bin);
    allow_shared(exponents<T, W, Bin>, shared);
    allow_shared(added<T, W, Bin>, shared);
    const unsigned grid = resident_blocks(added<T, W, Bin>, int(B), shared);
    const unsigned slot_blocks = (nslots + 255) / 256;
    for (std::size_t at = 0; at < n; at += window) {
      const std::size_t len = std::min(window, n - at);
      exponents<T, W, Bin>
          <<<grid, B, shared, s>>>(x + at, w + at, len, bin, l.top, l.count, l.flags);
      PPLAB_CUDA_LAUNCHED();
      added<T, W, Bin><<<grid, B, shared, s>>>(x + at, w + at, len, bin, l.top, l.count, l.fixed);
      PPLAB_CUDA_LAUNCHED();
      flushed<<<slot_blocks, 256, 0, s>>>(l.top, l.count, l.fixed, sums_of(c), nslots);
      PPLAB_CUDA_LAUNCHED();
    }
    finished<<<slot_blocks, 256, 0, s>>>(l.flags, sums_of(c), nslots);
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace

extern const histogram_rung h15_weighted_global_fixed_point{
    .info = {.step = 15,
             .summary = "weights summed in fixed point in global memory: any count of bins"},
    .can_run =
        [](const histogram_problem& p) {
          return p.weighted && edge_bytes(p) <= max_shared_per_block();
        },
    .scratch_bytes = [](const histogram_problem& p) { return layout_of(slots(p), nullptr).bytes; },
    .run = [](const histogram_call& c) { dispatch_any_bins<rung>(c); },
};

}  // namespace pplab::detail::histogram_cuda
