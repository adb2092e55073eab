// reduce/cuda/rows: each row of a matrix in GPU memory reduced on its own (pplab.sum(x, axis=-1)
// on a CuPy or PyTorch array; pplab::reduce_rows_device); and each column of a stack of matrices
// (any other axis: pplab::reduce_axis_device), below. A group of threads per row at a time,
// the groups striding over the rows: a warp per row for rows up to 4096 elements and wherever
// the rows are enough to fill the GPU's warps; the whole block per row for fewer, longer rows. A
// group folds its row with the rungs' vectorized loads (16-byte loads from the row's first aligned
// element, whatever the row stride) and the same accumulator and combine as every rung
// (reduce_common.hpp), then a warp or block reduction, and its first thread writes the row's answer
// in its type: double for floats and for every mean, int64 or uint64 for integers. Not a rung: the
// whole-array ladder is the reduce case's; this is the same fold with the row as the group's whole
// input. A block per row left three quarters of its threads idle on short rows (2^22 rows of 64
// floats: 5.1 ms against torch.sum(dim=-1)'s 0.95 ms on an H100; a warp per row 1.07 ms), and it
// waits at a barrier after every row: 16384 rows of 16384 floats took 0.43 ms against torch's 0.38
// (bench/results/h100-2026-11-27-python-call-parts-rows-kernels.txt).
#include "core/modules.hpp"
#include "reduce/cuda/reduce_cuda.cuh"

namespace pplab::detail::reduce_cuda {

namespace {

constexpr int row_block = 256;
constexpr std::size_t warp_row_cols = 4096;  // the longest row a warp takes alone

// The answer's type of (T, O): what reduce_rows_device writes per row (argmin, argmax: the index
// in the row).
template <class T, op O>
using row_answer_t = std::conditional_t<
    is_arg(O), std::int64_t,
    std::conditional_t<O == op::mean || std::is_floating_point_v<T>, double,
                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>>;

template <class T, op O>
__device__ inline row_answer_t<T, O> row_answer(acc_t<T, O> v, bool mean, std::size_t cols) {
  if constexpr (is_arg(O)) return v.index == no_index ? -1 : v.index;
  else return mean ? row_answer_t<T, O>(double(v) / double(cols)) : row_answer_t<T, O>(v);
}

// lanes: the threads per row, a warp (32) or the block (row_block). A group's threads take the
// same rows, so every lane of a warp (every thread of the block) reaches the reduction together.
template <class T, op O, int lanes>
__global__ void __launch_bounds__(row_block)
    rows_kernel(const T* __restrict__ in, std::size_t rows, std::size_t cols, std::size_t ld,
                row_answer_t<T, O>* __restrict__ out, bool mean) {
  constexpr unsigned groups = row_block / lanes;
  const unsigned lane = threadIdx.x % lanes;
  for (std::size_t y = std::size_t(blockIdx.x) * groups + threadIdx.x / lanes; y < rows;
       y += std::size_t(gridDim.x) * groups) {
    acc_t<T, O> v = thread_reduce_vec<T, O, 4>(in + y * ld, cols, lane, lanes);
    if constexpr (lanes == row_block) {
      v = block_reduce<T, O, row_block>(v);
    } else {
      v = cuda_detail::warp_reduce(v, op_combine<T, O>{});
    }
    if (lane == 0) out[y] = row_answer<T, O>(v, mean, cols);
    if constexpr (lanes == row_block) __syncthreads();  // the reduction's shared memory, again
  }
}

template <class T, op O, int lanes>
void launch_rows(const T* in, std::size_t rows, std::size_t cols, std::size_t ld,
                 row_answer_t<T, O>* out, bool mean, unsigned resident, cudaStream_t s) {
  const std::size_t groups = row_block / lanes;
  const unsigned grid = unsigned(std::min<std::size_t>((rows + groups - 1) / groups, resident));
  rows_kernel<T, O, lanes><<<grid, row_block, 0, s>>>(in, rows, cols, ld, out, mean);
  PPLAB_CUDA_LAUNCHED();
}

// ---- columns: outer x rows x cols, each of the outer x cols columns reduced down its rows
// (numpy.sum(x, axis=k) for any axis but the last). A block takes a tile of neighbouring columns
// and a chunk of rows: its threads are 32 lanes by 8 row groups, each lane V neighbouring columns
// (V = 16 / sizeof(T) where every row starts on a 16-byte boundary: one 16-byte load per row, a
// warp reading 512 contiguous bytes of it, fewer for wide accumulators (wide_lane); else V = 1, a
// warp reading 32 elements), and each
// thread walks down its columns 8 rows at a time with `column_unroll` loads in flight. The 8 row
// groups meet in shared memory in a fixed order. Where the column tiles alone would not fill the
// GPU, the rows are cut into chunks whose partials a second launch combines in chunk order: every
// answer is the same on every run on a GPU.
constexpr int column_lanes = 32, row_groups = row_block / column_lanes, column_unroll = 8;
constexpr std::size_t min_chunk_rows = 256;  // 32 rows per thread at least

// The columns a lane takes where the rows allow: 16 bytes of them, fewer where the block's
// accumulators would pass 16 KiB of shared memory (a byte's 64-bit sum: 8 columns).
template <class T, op O> constexpr int wide_lane() {
  const std::size_t by_load = 16 / sizeof(T);
  const std::size_t by_shared = 16384 / (row_block * sizeof(acc_t<T, O>));
  return int(by_load < by_shared ? by_load : by_shared);
}

// Row r's V elements of this lane's columns, in one load of V * sizeof(T) bytes.
template <class T, int V> __device__ inline void load_columns(const T* p, T (&x)[V]) {
  constexpr std::size_t bytes = V * sizeof(T);
  if constexpr (V == 1) {
    x[0] = __ldg(p);
  } else if constexpr (bytes == 16) {
    const uint4 raw = load16<load::readonly>(reinterpret_cast<const uint4*>(p));
    memcpy(x, &raw, 16);
  } else if constexpr (bytes == 8) {
    const uint2 raw = __ldg(reinterpret_cast<const uint2*>(p));
    memcpy(x, &raw, 8);
  } else {
    static_assert(bytes == 4);
    const unsigned raw = __ldg(reinterpret_cast<const unsigned*>(p));
    memcpy(x, &raw, 4);
  }
}

template <class T, op O, int V>
__global__ void __launch_bounds__(row_block)
    columns_kernel(const T* __restrict__ in, std::size_t outer, std::size_t rows, std::size_t cols,
                   std::size_t col_tiles, std::size_t chunk_rows, acc_t<T, O>* __restrict__ partials,
                   row_answer_t<T, O>* __restrict__ out, bool mean) {
  using A = acc_t<T, O>;
  __shared__ A groups[row_groups][column_lanes * V];
  const unsigned lane = threadIdx.x % column_lanes, group = threadIdx.x / column_lanes;
  const std::size_t o = blockIdx.x / col_tiles;
  const std::size_t c = ((blockIdx.x % col_tiles) * column_lanes + lane) * V;  // the first column
  const std::size_t r0 = std::size_t(blockIdx.y) * chunk_rows;
  const std::size_t r1 = rows < r0 + chunk_rows ? rows : r0 + chunk_rows;
  A v[V];
#pragma unroll
  for (int k = 0; k < V; ++k) v[k] = identity<T, O>();
  if (c < cols) {  // V divides cols where V > 1: the lane's columns are all in or all out
    const T* column = in + o * rows * cols + c;
    std::size_t r = r0 + group;
    constexpr std::size_t step = row_groups * column_unroll;
    for (; r + (column_unroll - 1) * row_groups < r1; r += step) {
      T x[column_unroll][V];
#pragma unroll
      for (int u = 0; u < column_unroll; ++u)
        load_columns<T, V>(column + (r + u * row_groups) * cols, x[u]);
#pragma unroll
      for (int u = 0; u < column_unroll; ++u)
#pragma unroll
        for (int k = 0; k < V; ++k)
          v[k] = combine<T, O>(v[k], lift<T, O>(x[u][k], r + u * row_groups));
    }
    for (; r < r1; r += row_groups) {
      T x[V];
      load_columns<T, V>(column + r * cols, x);
#pragma unroll
      for (int k = 0; k < V; ++k) v[k] = combine<T, O>(v[k], lift<T, O>(x[k], r));
    }
  }
#pragma unroll
  for (int k = 0; k < V; ++k) groups[group][lane * V + k] = v[k];
  __syncthreads();
  if (group != 0 || c >= cols) return;
#pragma unroll
  for (int k = 0; k < V; ++k) {
    for (int g = 1; g < row_groups; ++g) v[k] = combine<T, O>(v[k], groups[g][lane * V + k]);
    if (partials) partials[std::size_t(blockIdx.y) * outer * cols + o * cols + c + k] = v[k];
    else out[o * cols + c + k] = row_answer<T, O>(v[k], mean, rows);
  }
}

// The chunks' partials of each column combined in chunk order, and its answer written.
template <class T, op O>
__global__ void __launch_bounds__(row_block)
    column_chunks(const acc_t<T, O>* __restrict__ partials, std::size_t answers, unsigned chunks,
                  std::size_t rows, row_answer_t<T, O>* __restrict__ out, bool mean) {
  const std::size_t i = std::size_t(blockIdx.x) * row_block + threadIdx.x;
  if (i >= answers) return;
  acc_t<T, O> v = partials[i];
  for (unsigned k = 1; k < chunks; ++k) v = combine<T, O>(v, partials[k * answers + i]);
  out[i] = row_answer<T, O>(v, mean, rows);
}

// Whether each lane takes wide_lane's columns: every row must start on a boundary of their bytes.
template <class T, op O> bool wide_lanes_fit(const void* in, std::size_t cols) {
  constexpr std::size_t v = wide_lane<T, O>();
  return cols % v == 0 && reinterpret_cast<std::uintptr_t>(in) % (v * sizeof(T)) == 0;
}

// How many chunks the rows are cut into: enough blocks for two waves of the GPU's resident
// blocks, each chunk at least min_chunk_rows long.
template <class T, op O, int V>
unsigned column_chunk_count(std::size_t outer, std::size_t rows, std::size_t cols) {
  static const unsigned resident = resident_blocks(columns_kernel<T, O, V>, row_block);
  const std::size_t tile = std::size_t(column_lanes) * V;
  const std::size_t tiles = outer * ((cols + tile - 1) / tile);
  const std::size_t want = (2 * std::size_t(resident) + tiles - 1) / tiles;
  const std::size_t most = std::max<std::size_t>(1, rows / min_chunk_rows);
  return unsigned(std::min<std::size_t>({want, most, 65535}));
}

template <class T, op O, int V>
void launch_columns(const T* in, std::size_t outer, std::size_t rows, std::size_t cols,
                    row_answer_t<T, O>* answers, void* scratch, bool mean, cudaStream_t s) {
  using A = acc_t<T, O>;
  const unsigned chunks = column_chunk_count<T, O, V>(outer, rows, cols);
  const std::size_t chunk_rows = (rows + chunks - 1) / chunks;
  const std::size_t tile = std::size_t(column_lanes) * V, col_tiles = (cols + tile - 1) / tile;
  auto* partials = chunks > 1 ? static_cast<A*>(scratch) : nullptr;
  columns_kernel<T, O, V><<<dim3(unsigned(outer * col_tiles), chunks), row_block, 0, s>>>(
      in, outer, rows, cols, col_tiles, chunk_rows, partials, answers, mean);
  PPLAB_CUDA_LAUNCHED();
  if (!partials) return;
  const std::size_t count = outer * cols;
  column_chunks<T, O><<<unsigned((count + row_block - 1) / row_block), row_block, 0, s>>>(
      partials, count, chunks, rows, answers, mean);
  PPLAB_CUDA_LAUNCHED();
}

}  // namespace

std::size_t reduce_columns_scratch(dtype t, op o, const void* in, std::size_t outer,
                                   std::size_t rows, std::size_t cols) {
  return visit_reduce<true>(t, o, [&](auto tag, auto otag) -> std::size_t {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    const unsigned chunks = wide_lanes_fit<T, O>(in, cols)
                                ? column_chunk_count<T, O, wide_lane<T, O>()>(outer, rows, cols)
                                : column_chunk_count<T, O, 1>(outer, rows, cols);
    return chunks > 1 ? std::size_t(chunks) * outer * cols * sizeof(acc_t<T, O>) : 0;
  });
}

// `scratch` holds reduce_columns_scratch's bytes for the same arguments.
void reduce_columns_here(dtype t, const void* in, std::size_t outer, std::size_t rows,
                         std::size_t cols, op o, void* out, void* scratch, void* stream) {
  if (outer == 0 || cols == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  visit_reduce<true>(t, o, [&](auto tag, auto otag) {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    const auto* x = static_cast<const T*>(in);
    auto* answers = static_cast<row_answer_t<T, O>*>(out);
    if (wide_lanes_fit<T, O>(in, cols))
      launch_columns<T, O, wide_lane<T, O>()>(x, outer, rows, cols, answers, scratch,
                                             o == op::mean, s);
    else launch_columns<T, O, 1>(x, outer, rows, cols, answers, scratch, o == op::mean, s);
  });
}

void reduce_rows_here(dtype t, const void* in, std::size_t rows, std::size_t cols, std::size_t ld,
                      op o, void* out, void* stream) {
  if (rows == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  visit_reduce<true>(t, o, [&](auto tag, auto otag) {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    const auto* x = static_cast<const T*>(in);
    auto* answers = static_cast<row_answer_t<T, O>*>(out);
    static const unsigned warp_blocks = resident_blocks(rows_kernel<T, O, 32>, row_block);
    static const unsigned row_blocks = resident_blocks(rows_kernel<T, O, row_block>, row_block);
    const std::size_t resident_warps = std::size_t(warp_blocks) * (row_block / 32);
    if (cols <= warp_row_cols || rows >= resident_warps)
      launch_rows<T, O, 32>(x, rows, cols, ld, answers, o == op::mean, warp_blocks, s);
    else launch_rows<T, O, row_block>(x, rows, cols, ld, answers, o == op::mean, row_blocks, s);
  });
}

}  // namespace pplab::detail::reduce_cuda

namespace pplab::detail {
// What the core reaches through the module's table (src/reduce/cuda_forward.cpp).
void add_reduce_cuda_exports(module_exports& e) {
  e.add("reduce_rows", &reduce_cuda::reduce_rows_here);
  e.add("reduce_columns", &reduce_cuda::reduce_columns_here);
  e.add("reduce_columns_scratch", &reduce_cuda::reduce_columns_scratch);
}
}  // namespace pplab::detail
