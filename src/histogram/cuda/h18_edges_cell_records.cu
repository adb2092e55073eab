// histogram/cuda/h18_edges_cell_records: h17 with one shared load per value. h17 reads, for
// each float32 value, its cell's pair of bins (8 bytes), the two edges that check the cell
// against a rounding of the cell's estimate, and then the edges of its short search: four loads
// or more at random addresses, which conflict in the banks and bound it (0.803 ms for 2^28
// values into 1024 edges on an H200, 3.2x the read's time). Here each cell holds one 8-byte
// record made for a span a little wider than the cell, which needs no check
// (f32_cell_record_binner, f32_edges.cuh): a cell whose span meets one or two bins is one load
// and one comparison. Each block makes its records from its copy of the edges as it starts.
// Measured (H200, bench/results/h200-2026-11-29-histogram-edges-weights-1a06c6b.txt, its fourth
// section): f32 2^28 into 1024 edges (quadratic spacing) 0.441 ms, 55.9% of the read ceiling,
// 1.83x h17 (0.806 ms) in the same run. With 4 cells a bin and the whole binary search for a
// span of three bins or more it took 1.022 ms (0.79x h17: a warp whose one value needs the
// search waits for all 11 steps); with that search kept to the span's bins, 0.546 ms.
// With 16 cells a bin (f32_edges.cuh: record_cells_for) the records of 1024 bins take 128 KiB, one
// block an SM, of 1024 threads: normal data into 1024 edges at sorted normal samples 0.645 ->
// 0.454 ms, the quadratic edges 0.439 -> 0.418 ms (bench/results/h200-2026-11-29-histogram-edges-
// weights-1a06c6b.txt, its 2026-12-01 section; the two changes measured together).
#include "histogram/cuda/f32_edges.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

constexpr unsigned B = 1024;

// The shared bytes: the records and the rounded edges, then the counts.
std::size_t shared_bytes(const histogram_problem& p) {
  return (f32_records_shared_bytes(p.bins) + 7) / 8 * 8 + slots(p) * 4;
}

// One block an SM where the records take 128 KiB (1024 bins), two where they fit.
__global__ void __launch_bounds__(B, 1)
    counted(const float* __restrict__ x, std::size_t n, const double* edges, std::size_t bins,
            count_t* counts) {
  extern __shared__ unsigned long long room[];
  auto* base = reinterpret_cast<unsigned char*>(room);
  const unsigned nslots = unsigned(bins + 3);
  auto* private_counts =
      reinterpret_cast<unsigned*>(base + (f32_records_shared_bytes(bins) + 7) / 8 * 8);
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x) private_counts[b] = 0;
  const f32_cell_record_binner bin = records_from_doubles(edges, bins, base);
  __syncthreads();
  for_each_vectorized<float, 4, load::readonly>(
      x, n, global_thread(), grid_threads(),
      [&](float v, std::size_t) { atomicAdd(&private_counts[bin(v)], 1u); });
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nslots; b += blockDim.x)
    if (const unsigned v = private_counts[b]) atomicAdd(&counts[b], count_t(v));
}

void run(const histogram_call& c) {
  const auto s = static_cast<cudaStream_t>(c.stream);
  PPLAB_CUDA(cudaMemsetAsync(c.counts, 0, slots(c.p) * sizeof(count_t), s));
  if (c.p.n == 0) return;
  const std::size_t shared = shared_bytes(c.p);
  allow_shared(counted, shared);
  const unsigned grid = resident_blocks(counted, int(B), shared);
  in_windows(c.p.n, std::size_t(grid) * B, [&](std::size_t at, std::size_t len) {
    counted<<<grid, B, shared, s>>>(static_cast<const float*>(c.in) + at, len, c.edges, c.p.bins,
                                    counts_of(c));
    PPLAB_CUDA_LAUNCHED();
  });
}

}  // namespace

extern const histogram_rung h18_edges_cell_records{
    .info = {.step = 18,
             .summary = "h17 with one 8-byte record per cell: one shared load finds the bin"},
    .can_run =
        [](const histogram_problem& p) {
          return p.edge_array && !p.weighted && p.type == dtype::f32 &&
                 shared_bytes(p) <= max_shared_per_block();
        },
    .run = run,
};

}  // namespace pplab::detail::histogram_cuda
