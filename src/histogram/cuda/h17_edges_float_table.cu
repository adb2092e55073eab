// histogram/cuda/h17_edges_float_table: h16 for float32 data, in float. NumPy compares each
// float32 value with the float64 edges in double; but a float is at or above a double edge
// exactly when it is at or above that edge rounded up to float (no float lies between them), so
// the edges rounded up give every answer of the double search (f32_edges.cuh). Each edge is 4
// bytes in shared memory, not 8, the cell's estimate is a float multiply, and a cell's range of
// bins is one 8-byte load (a pair) instead of two: the shared-memory loads per value, random
// addresses that conflict in the banks, are what held h16 back (24% of the read with four loads
// in flight per thread). The cells' table is h16's (built by one kernel); each block makes the
// pairs and the rounded edges as it copies them.
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt, its third
// run): f32 2^28 into 1024 edges (quadratic spacing) 0.803 ms, 1337 GB/s: 1.25x h16 (1.007 ms);
// through Python on a CuPy array 0.902 ms, 6.2x cupy.histogram(x, edges) (5.600 ms).
#include "histogram/cuda/f32_edges.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 512;

__global__ void counted(const float* __restrict__ x, std::size_t n, const double* edges,
                        const unsigned* table, std::size_t bins, count_t* counts) {
  // Shared: the cells' pairs and the edges, then the counts.
  extern __shared__ unsigned long long room[];
  auto* base = reinterpret_cast<unsigned char*>(room);
  const unsigned nslots = unsigned(bins + 3);
  auto* private_counts = reinterpret_cast<unsigned*>(base + f32_edges_shared_bytes(bins));
  const f32_edge_lookup_binner bin = bound_from_doubles(edges, table, bins, base);
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x) private_counts[b] = 0;
  __syncthreads();
  for_each_vectorized<float, 4, load::readonly>(
      x, n, global_thread(), grid_threads(),
      [&](float v, std::size_t) { atomicAdd(&private_counts[bin(v)], 1u); });
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x)
    if (const unsigned v = private_counts[b]) atomicAdd(&counts[b], count_t(v));
}

std::size_t shared_bytes(const histogram_problem& p) {
  return f32_edges_shared_bytes(p.bins) + slots(p) * 4;
}

void run(const histogram_call& c) {
  const auto s = static_cast<cudaStream_t>(c.stream);
  PPLAB_CUDA(cudaMemsetAsync(c.counts, 0, slots(c.p) * sizeof(count_t), s));
  if (c.p.n == 0) return;
  auto* table = static_cast<unsigned*>(c.scratch);  // h16's table; each block makes the pairs
  edge_lookup_table_built(c.edges, c.p.bins, table, s);
  const std::size_t shared = shared_bytes(c.p);
  allow_shared(counted, shared);
  const unsigned grid = resident_blocks(counted, int(B), shared);
  in_windows(c.p.n, std::size_t(grid) * B, [&](std::size_t at, std::size_t len) {
    counted<<<grid, B, shared, s>>>(static_cast<const float*>(c.in) + at, len, c.edges, table,
                                    c.p.bins, counts_of(c));
    PPLAB_CUDA_LAUNCHED();
  });
}

}  // namespace

extern const histogram_rung h17_edges_float_table{
    .info = {.step = 17,
             .summary = "float32 data against its edges rounded up to float: half the shared "
                        "bytes, the same bins"},
    .can_run =
        [](const histogram_problem& p) {
          return p.edge_array && !p.weighted && p.type == dtype::f32 &&
                 shared_bytes(p) <= max_shared_per_block();
        },
    .scratch_bytes =
        [](const histogram_problem& p) {
          return (std::size_t(edge_lookup_binner::cells_for(p.bins)) + 1) * 4;
        },
    .run = run,
};

}  // namespace pplab::detail::histogram_cuda
