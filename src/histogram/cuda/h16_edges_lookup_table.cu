// histogram/cuda/h16_edges_lookup_table: h14's count of an array of edges, its binary search
// narrowed first. The range of the edges is cut into 4 x bins even cells, and a table gives the
// bin of each cell's start (built on the GPU by one kernel, a search per cell); a value's cell,
// one multiply away, gives the bins its cell meets, usually one or two, so the search takes a
// step or none where h14 takes log2(bins) dependent steps (edge_lookup_binner, binning.hpp; a
// value a rounding away from a cell's border takes the whole search). The edges and the table
// live in each block's shared memory, the counts in its private shared histogram (h04's), flushed
// once with one atomic per bin. The data comes in 16-byte loads, four in flight per thread (h05's
// reads), so the search's latency hides behind more loads.
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt): f32 2^28 into
// 1024 edges (quadratic spacing) 1.007 ms, 1066 GB/s (the third run), where one 4-byte load per
// thread in flight took 1.132 ms (4.11x h14, the first run). What limits it: its shared-memory
// loads at random addresses (two 8-byte edges, two table entries, a step of search, the count),
// which conflict in the banks: h17 halves them for float32 data.
#include "histogram/cuda/any_bins.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 512;

template <class T>
__global__ void counted(const T* __restrict__ x, std::size_t n, const double* e,
                        const unsigned* table, std::size_t bins, count_t* counts) {
  // Shared: the edges, the table, the counts.
  extern __shared__ unsigned long long room[];
  const unsigned cells = edge_lookup_binner::cells_for(bins), nslots = unsigned(bins + 3);
  auto* edges = reinterpret_cast<double*>(room);
  auto* first = reinterpret_cast<unsigned*>(edges + bins + 1);
  auto* private_counts = first + cells + 1;
  for (std::size_t i = threadIdx.x; i <= bins; i += blockDim.x) edges[i] = e[i];
  for (unsigned k = threadIdx.x; k <= cells; k += blockDim.x) first[k] = table[k];
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x) private_counts[b] = 0;
  __syncthreads();
  const edge_lookup_binner bin(edges, bins, first);
  for_each_vectorized<T, 4, load::readonly>(
      x, n, global_thread(), grid_threads(),
      [&](T v, std::size_t) { atomicAdd(&private_counts[bin(v)], 1u); });
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x)
    if (const unsigned v = private_counts[b]) atomicAdd(&counts[b], count_t(v));
}

std::size_t shared_bytes(const histogram_problem& p) {
  return (p.bins + 1) * 8 + (edge_lookup_binner::cells_for(p.bins) + 1 + slots(p)) * 4;
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin, const histogram_call& c, cudaStream_t s) {
    auto* table = static_cast<unsigned*>(c.scratch);
    edge_lookup_table_built(c.edges, c.p.bins, table, s);
    const std::size_t shared = shared_bytes(c.p);
    allow_shared(counted<T>, shared);
    const unsigned grid = resident_blocks(counted<T>, int(B), shared);
    in_windows(n, std::size_t(grid) * B, [&](std::size_t at, std::size_t len) {
      counted<T><<<grid, B, shared, s>>>(x + at, len, c.edges, table, c.p.bins, counts_of(c));
      PPLAB_CUDA_LAUNCHED();
    });
  }
};

}  // namespace

extern const histogram_rung h16_edges_lookup_table{
    .info = {.step = 16,
             .summary = "an array of edges narrowed by a table of even cells: a step of search"},
    .can_run =
        [](const histogram_problem& p) {
          return p.edge_array && !p.weighted && shared_bytes(p) <= max_shared_per_block();
        },
    .scratch_bytes =
        [](const histogram_problem& p) {
          return (std::size_t(edge_lookup_binner::cells_for(p.bins)) + 1) * 4;
        },
    .run = [](const histogram_call& c) { dispatch_any_bins<rung, false>(c); },
};

}  // namespace pplab::detail::histogram_cuda
