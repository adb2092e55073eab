// histogram/cuda/h15_weighted_global_fixed_point: weights into more bins than one block's shared
// memory holds (numpy.bincount(x, w) over 65536 values, say): fixed-point sums, the same bits on
// every run, with the slots in global memory (L2's atomics). Two passes over the data. The first
// finds each slot's largest exponent (2^e above its largest finite |weight|) with an integer
// atomicMax, issued only when a value's exponent is above the one the slot already shows (so
// after the first few values of a slot, almost none are), and flags infinities and NaN. The
// second adds each weight to its slot as the integer round(w x 2^k), k = 50 - e, into a 128-bit
// accumulator of two 64-bit words: one atomic on the low word, whose old value tells whether it
// carried, and one on the high word only when the weight's high part plus the carry is not zero.
// That is rare: each term is below 2^50, so a positive weight's high part is 0 and the low word
// carries once in 2^14 adds or more; a negative one's high part is -1 and its add carries unless
// the low word is below the term. Integer sums do not depend on the order of the atomics. The
// inputs number below 2^40, so the sum stays below 2^90: no overflow. Each weight is rounded to
// 2^-50 of its slot's largest |weight| (as h13's tiles; a double sum of the same weights errs by
// about 2^-53 of its running sum); the 128-bit sum is rounded once to double at the end, and the
// flags decide the slots that saw infinities or NaN (fixed_point_sums.cuh, wide_sums.cuh).
// What limits it: the data is read twice, and every value costs an L2 atomic that returns its
// old value (an H200's L2 takes about 100 G/s of 64-bit atomics that return nothing:
// atomic_rates.cu), so 2^28 values cannot go under about 2.6 ms this way.
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt, its fourth
// run): numpy.bincount(x, w) of 2^28 int64 into 65536 bins through Python 7.780 ms, 0.56x
// torch.bincount's 4.378 ms (whose float atomics give other bits on every run). Terms below 2^86,
// whose high words took a second atomic per value, took 9.505 ms (0.45x, the third run); windows
// of 2^24 values with three L2 atomics per value 13.88 ms (the first). h19 sums the same terms
// in shared memory after a partition (the same bits, 1.81x this rung there): the API's pick
// where its scratch fits; this rung where it does not, and for 16-bit data.
#include "histogram/cuda/wide_sums.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 256;
using wide::scale_of;

template <class T, class W, class Bin>
__global__ void exponents(const T* __restrict__ x, const W* __restrict__ w, std::size_t n,
                          Bin given, int* top, unsigned* flags) {
  extern __shared__ double edges[];
  const auto bin = bound(given, edges);
  __syncthreads();
  for_each_pair<8>(x, w, n, [&](T value, W weight, std::size_t) {  // 16 reads in flight
    const double v = double(weight);
    if (v == 0) return;
    const std::size_t b = bin(value);
    if (fabs(v) <= DBL_MAX) {
      // A stale read can only be lower than the slot's exponent: then the atomic is issued.
      const int e = wide::top_of(v);
      if (e > top[b]) atomicMax(&top[b], e);
    } else {
      atomicOr(&flags[b], flag_of(v));
    }
  });
}

// A weight's term: its slot, and round(w 2^k) in two's complement as two 64-bit words.
struct term {
  std::size_t slot;
  unsigned long long lo = 0, hi = 0;
};

template <class T, class W, class Bin>
__device__ inline term term_of(const Bin& bin, T value, W weight, const int* top) {
  const double v = double(weight);
  if (!(fabs(v) <= DBL_MAX) || v == 0) return {0};  // not summed: adds zero to slot 0
  term r{bin(value)};
  // t = round(v 2^k), an integer below 2^50: its magnitude split exactly into 64-bit words
  // (each word keeps some of the double's bits), then negated in two's complement if v < 0.
  const double t = rint(v * scale_of(top[r.slot])), a = fabs(t);
  const double a_hi = floor(a * 0x1p-64);
  r.lo = __double2ull_rz(a - a_hi * 0x1p64), r.hi = __double2ull_rz(a_hi);
  if (t < 0) {
    r.lo = ~r.lo + 1;
    r.hi = ~r.hi + (r.lo == 0 ? 1 : 0);
  }
  return r;
}

// Adds the terms' low words (all `unroll` atomics in flight together: each returns its old value,
// and one at a time would wait a round trip to L2 each), then, from each old value, the carry
// into the high word, added where the high part plus the carry is not zero.
template <int unroll> __device__ inline void terms_added(const term (&t)[unroll], wide::sum* sums) {
  unsigned long long old[unroll];
#pragma unroll
  for (int u = 0; u < unroll; ++u) old[u] = t[u].lo ? atomicAdd(&sums[t[u].slot].lo, t[u].lo) : 0;
#pragma unroll
  for (int u = 0; u < unroll; ++u) {
    const unsigned long long high = t[u].hi + (old[u] + t[u].lo < old[u] ? 1 : 0);
    if (high != 0) atomicAdd(&sums[t[u].slot].hi, high);
  }
}

template <class T, class W, class Bin>
__global__ void added(const T* __restrict__ x, const W* __restrict__ w, std::size_t n, Bin given,
                      const int* __restrict__ top, wide::sum* sums) {
  extern __shared__ double edges[];
  const auto bin = bound(given, edges);
  __syncthreads();
  for_each_pair_group<4>(x, w, n, [&](const auto& xs, const auto& ws, std::size_t, std::size_t) {
    constexpr int count = int(sizeof(xs) / sizeof(xs[0]));
    term t[count];
#pragma unroll
    for (int u = 0; u < count; ++u) t[u] = term_of(bin, xs[u], ws[u], top);
    terms_added(t, sums);
  });
}

struct rung : weights_typed<rung> {
  template <class T, class W, class Bin>
  static void run_with(const T* x, const W* w, std::size_t n, Bin bin, const histogram_call& c,
                       cudaStream_t s) {
    const unsigned nslots = unsigned(slots(c.p));
    const wide::slots_layout l = wide::slots_layout_of(nslots, c.scratch);
    PPLAB_CUDA(cudaMemsetAsync(c.scratch, 0, l.bytes, s));
    const std::size_t shared = edge_bytes(bin);
    allow_shared(exponents<T, W, Bin>, shared);
    allow_shared(added<T, W, Bin>, shared);
    const unsigned grid = resident_blocks(added<T, W, Bin>, int(B), shared);
    exponents<T, W, Bin><<<grid, B, shared, s>>>(x, w, n, bin, l.top, l.flags);
    PPLAB_CUDA_LAUNCHED();
    added<T, W, Bin><<<grid, B, shared, s>>>(x, w, n, bin, l.top, l.sums);
    PPLAB_CUDA_LAUNCHED();
    wide::finished(l.top, l.sums, l.flags, sums_of(c), nslots, s);
  }
};

}  // namespace

extern const histogram_rung h15_weighted_global_fixed_point{
    .info = {.step = 15,
             .summary =
                 "weights summed in 128-bit fixed point in global memory: any count of bins"},
    .can_run =
        [](const histogram_problem& p) {
          return p.weighted && p.n < (std::size_t(1) << wide::count_bits) &&
                 edge_bytes(p) <= max_shared_per_block();
        },
    .scratch_bytes =
        [](const histogram_problem& p) { return wide::slots_layout_of(slots(p), nullptr).bytes; },
    .run = [](const histogram_call& c) { dispatch_any_bins<rung>(c); },
};

}  // namespace pplab::detail::histogram_cuda
