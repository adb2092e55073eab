// histogram/cuda/h14_edges_in_shared: numpy.histogram's bins given as an array of edges
// (non-uniform bins), counted. No formula gives a value's bin: it is found by a binary search
// among the edges (edge_array_binner: log2(bins) steps, each a select, no branch). Every block
// first copies the edges into its shared memory, so each step of the search reads shared
// memory (about 30 cycles) rather than L1 or L2, then counts into its private shared-memory
// histogram (h04's privatization), flushed once into the global counts with one atomic per bin.
// What limits it: the search's dependent shared loads (10 for 1024 bins) per value. Edges and
// counts that do not fit a block's shared memory are searched where they lie and counted with
// global atomics (as h03).
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt): f32 2^28 into 1024
// edges (quadratic spacing) 4.649 ms, 231 GB/s: the ten dependent shared loads of the search.
#include "histogram/cuda/any_bins.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 512;

template <class T, class Bin>
__global__ void counted(const T* __restrict__ x, std::size_t n, Bin given, count_t* counts,
                        unsigned nslots) {
  extern __shared__ unsigned long long room[];  // the counts, then the edges (8-byte aligned)
  auto* private_counts = reinterpret_cast<unsigned*>(room);
  auto* edges = reinterpret_cast<double*>(room + (nslots + 1) / 2);
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x) private_counts[b] = 0;
  const auto bin = bound(given, edges);
  __syncthreads();
  for (std::size_t i = global_thread(); i < n; i += grid_threads())
    atomicAdd(&private_counts[bin(x[i])], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x)
    if (const unsigned v = private_counts[b]) atomicAdd(&counts[b], count_t(v));
}

// More edges than shared memory holds: searched in global memory (through L1), counted in L2.
template <class T>
__global__ void counted_in_global(const T* __restrict__ x, std::size_t n, edge_array_binner bin,
                                  count_t* counts) {
  for (std::size_t i = global_thread(); i < n; i += grid_threads())
    atomicAdd(&counts[bin(x[i])], count_t(1));
}

std::size_t shared_bytes(const histogram_problem& p) {
  return (slots(p) + 1) / 2 * 8 + edge_bytes(p);
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const std::size_t shared = shared_bytes(c.p);
    if (shared > max_shared_per_block()) {
      launch_resident<counted_in_global<T>>(256, s, x, n, edge_array_binner{c.edges, c.p.bins},
                                            counts_of(c));
      return;
    }
    allow_shared(counted<T, Bin>, shared);
    const unsigned grid = resident_blocks(counted<T, Bin>, int(B), shared);
    in_windows(n, std::size_t(grid) * B, [&](std::size_t at, std::size_t len) {
      counted<T, Bin><<<grid, B, shared, s>>>(x + at, len, bin, counts_of(c), unsigned(slots(c.p)));
      PPLAB_CUDA_LAUNCHED();
    });
  }
};

}  // namespace

extern const histogram_rung h14_edges_in_shared{
    .info = {.step = 14,
             .summary = "an array of edges in shared memory, a binary search per value, counted"},
    .can_run =
        [](const histogram_problem& p) { return p.edge_array && !p.weighted; },
    .run = [](const histogram_call& c) { dispatch_any_bins<rung, false>(c); },
};

}  // namespace pplab::detail::histogram_cuda
