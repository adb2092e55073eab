// matmul/cuda/m18_vector_times_matrix: x B (a product whose A is one row, m = 1) as the column
// case of a reduction: y[j] sums x[i] B[i][j] down column j (the reduce ladder's columns,
// reduce/cuda/rows.cu, with a multiply on the way in). A block takes 32 neighbouring columns and a
// chunk of rows: its threads are 32 columns by 8 row groups, so a warp reads 32 neighbouring
// elements of one row of B (coalesced) and shares one x[i] (a broadcast), and each thread walks
// down its column 8 rows at a time with eight loads in flight. The row groups meet in shared
// memory in a fixed order. Where the column tiles alone would not fill the GPU, the rows are cut
// into chunks (sized from the shape alone) whose partials a second pass adds in chunk order:
// every run on every GPU gives the same bits. B is read once, so the floor is its bytes over the
// read bandwidth.
// Measured (H200, bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, its later section): f32
// 1x16384x16384 0.281 ms, 86.4% of the read ceiling, 0.96x cuBLAS; 1x8192x8192 0.97x; f64 0.99x.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {
namespace {

constexpr int lanes = 32, row_groups = 8, block = lanes * row_groups, unroll = 8;
constexpr std::size_t blocks_wanted = 2048;  // about two waves of an H200's resident blocks
constexpr std::size_t min_chunk_rows = 256;  // 32 rows per thread at least

std::size_t chunk_count(std::size_t n, std::size_t k) {
  const std::size_t tiles = ceil_div(n, lanes);
  return std::clamp<std::size_t>(ceil_div(blocks_wanted, std::max<std::size_t>(tiles, 1)), 1,
                                 std::max<std::size_t>(1, k / min_chunk_rows));
}

// Block (tile, chunk) sums x[i] B[i][j] over its chunk's rows for its 32 columns; the total goes
// to partial[chunk * n + j], or with alpha and beta to y[j] where partial is null.
template <class T>
__global__ void __launch_bounds__(block)
    column_dots(gemm<T> g, std::size_t chunk_rows, T* __restrict__ partial) {
  __shared__ T groups[row_groups][lanes];
  const unsigned lane = threadIdx.x % lanes, group = threadIdx.x / lanes;
  const std::size_t j = std::size_t(blockIdx.x) * lanes + lane;
  const std::size_t r0 = std::size_t(blockIdx.y) * chunk_rows;
  const std::size_t r1 = g.k < r0 + chunk_rows ? g.k : r0 + chunk_rows;
  T sum = 0;
  if (j < g.n) {
    const T* column = g.b + j;
    std::size_t r = r0 + group;
    constexpr std::size_t step = row_groups * unroll;
    for (; r + (unroll - 1) * row_groups < r1; r += step) {
      T b[unroll], x[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        b[u] = __ldcs(column + (r + u * row_groups) * g.ldb);
        x[u] = __ldg(g.a + r + u * row_groups);
      }
#pragma unroll
      for (int u = 0; u < unroll; ++u) sum += x[u] * b[u];
    }
    for (; r < r1; r += row_groups) sum += __ldg(g.a + r) * __ldcs(column + r * g.ldb);
  }
  groups[group][lane] = sum;
  __syncthreads();
  if (group != 0 || j >= g.n) return;
#pragma unroll
  for (int q = 1; q < row_groups; ++q) sum += groups[q][lane];
  if (partial) partial[std::size_t(blockIdx.y) * g.n + j] = sum;
  else store(g.c + j, sum, g.alpha, g.beta);
}

// Each column's chunk partials added in chunk order, then alpha and beta.
template <class T>
__global__ void __launch_bounds__(block)
    add_chunks(const T* __restrict__ partial, std::size_t n, std::size_t chunks, gemm<T> g) {
  const std::size_t j = std::size_t(blockIdx.x) * block + threadIdx.x;
  if (j >= n) return;
  T sum = partial[j];
  for (std::size_t q = 1; q < chunks; ++q) sum += partial[q * n + j];
  store(g.c + j, sum, g.alpha, g.beta);
}

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s, void* scratch) {
    if (g.n == 0) return;
    const std::size_t chunks = chunk_count(g.n, g.k);
    const std::size_t chunk_rows = ceil_div(std::max<std::size_t>(g.k, 1), chunks);
    T* partial = chunks > 1 ? static_cast<T*>(scratch) : nullptr;
    column_dots<T><<<dim3(unsigned(ceil_div(g.n, lanes)), unsigned(chunks)), block, 0, s>>>(
        g, chunk_rows, partial);
    PPLAB_CUDA_LAUNCHED();
    if (!partial) return;
    add_chunks<T><<<unsigned(ceil_div(g.n, block)), block, 0, s>>>(partial, g.n, chunks, g);
    PPLAB_CUDA_LAUNCHED();
  }
};

std::size_t scratch(const matmul_problem& p) {
  if (!one_float_product(p) || p.m != 1) return 0;
  const std::size_t chunks = chunk_count(p.n, p.k);
  return chunks > 1 ? chunks * p.n * size_of(p.type) : 0;
}

// One row, and a grid that fits (chunks are at most 2048, within the grid's 65535 rows).
bool can_run(const matmul_problem& p) {
  return one_float_product(p) && p.m == 1 && ceil_div(p.n, lanes) < (std::size_t(1) << 31);
}

void run(const matmul_call& c) {
  dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream), c.scratch);
}

}  // namespace

extern const matmul_rung m18_vector_times_matrix{
    .info = {.step = 18,
             .summary = "x B (m = 1): 32 columns x 8 row groups per block, chunks of rows"},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .scratch_written_first = true,  // each chunk's partials, written by column_dots, then added
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
