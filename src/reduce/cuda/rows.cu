// reduce/cuda/rows: each row of a matrix in GPU memory reduced on its own (pplab.sum(x, axis=-1)
// on a CuPy or PyTorch array; pplab::reduce_rows_device); and each column of a stack of matrices
// (any other axis: pplab::reduce_axis_device), below. A group of threads per row at a time,
// the groups striding over the rows: a warp per row for rows up to 4096 elements and wherever
// the rows are enough to fill the GPU's warps; the whole block per row for fewer, longer rows. A
// group folds its row with the rungs' vectorized loads (16-byte loads from the row's first aligned
// element, whatever the row stride) and the same accumulator and combine as every rung
// (reduce_common.hpp), then a warp or block reduction, and its first thread writes the row's answer
// in its type: double for floats and for every mean, var and std, int64 or uint64 for integers;
// or, asked (`own`: NumPy's types, answer_types::numpy), in the data's own type where NumPy
// answers in it (every float answer but an index or a count; min and max of integers), each
// answer the wide one converted once as it is stored: no second pass to cast the answers.
// Not a rung: the whole-array ladder is the reduce case's; this is the same fold with the row as
// the group's whole input. A block per row left three quarters of its threads idle on short rows
// (2^22 rows of 64 floats: 5.1 ms against torch.sum(dim=-1)'s 0.95 ms on an H100; a warp per
// row 1.07 ms), and it waits at a barrier after every row: 16384 rows of 16384 floats took 0.43
// ms against torch's 0.38 (bench/results/h100-2026-11-27-python-call-parts-rows-kernels.txt).
#include "core/modules.hpp"
#include "reduce/cuda/reduce_cuda.cuh"

namespace pplab::detail::reduce_cuda {

namespace {

constexpr int row_block = 256;
constexpr std::size_t warp_row_cols = 4096;  // the longest row a warp takes alone

// The answer's type of (T, O): what reduce_rows_device writes per row (argmin, argmax: the index
// in the row; count_nonzero: the count).
template <class T, op O>
using row_answer_t = std::conditional_t<
    is_arg(O) || O == op::count_nonzero, std::int64_t,
    std::conditional_t<O == op::mean || is_moments(O) || std::is_floating_point_v<T>, double,
                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>>;

template <class T, op O>
__device__ inline row_answer_t<T, O> row_answer(acc_t<T, O> v, op what, std::size_t cols) {
  if constexpr (is_arg(O)) return v.index == no_index ? -1 : v.index;
  else if constexpr (is_moments(O)) return moments_value(what, v);
  else if (what == op::mean) return row_answer_t<T, O>(double(v) / double(cols));
  else return row_answer_t<T, O>(v);
}

// Whether NumPy answers (T, O) in T (pplab/ops.hpp's rule, which the Python module asks too).
template <class T, op O>
constexpr bool keeps_own_type = numpy_keeps_type(std::is_floating_point_v<T>, O);

// Answer i stored in `out`: of row_answer_t, or of T where `own` asks it and NumPy keeps T.
template <class T, op O>
__device__ inline void store_answer(void* out, std::size_t i, row_answer_t<T, O> a, bool own) {
  if constexpr (keeps_own_type<T, O>) {
    if (own) {
      static_cast<T*>(out)[i] = T(a);
      return;
    }
  }
  static_cast<row_answer_t<T, O>*>(out)[i] = a;
}

// lanes: the threads per row, a warp (32) or the block (row_block). A group's threads take the
// same rows, so every lane of a warp (every thread of the block) reaches the reduction together.
template <class T, op O, int lanes>
__global__ void __launch_bounds__(row_block)
    rows_kernel(const T* __restrict__ in, std::size_t rows, std::size_t cols, std::size_t ld,
                void* __restrict__ out, bool own, op what) {
  constexpr unsigned groups = row_block / lanes;
  const unsigned lane = threadIdx.x % lanes;
  for (std::size_t y = std::size_t(blockIdx.x) * groups + threadIdx.x / lanes; y < rows;
       y += std::size_t(gridDim.x) * groups) {
    const double shift = shift_for<T, O>(in + y * ld, cols);  // var's, std's: reduce_common.hpp
    acc_t<T, O> v = thread_reduce_vec<T, O, 4>(in + y * ld, cols, lane, lanes, shift);
    if constexpr (lanes == row_block) {
      v = block_reduce<T, O, row_block>(v);
    } else {
      v = cuda_detail::warp_reduce(v, op_combine<T, O>{});
    }
    if (lane == 0)
      store_answer<T, O>(out, y, row_answer<T, O>(shifted_back<T, O>(v, shift), what, cols), own);
    if constexpr (lanes == row_block) __syncthreads();  // the reduction's shared memory, again
  }
}

template <class T, op O, int lanes>
void launch_rows(const T* in, std::size_t rows, std::size_t cols, std::size_t ld, void* out,
                 bool own, op what, unsigned resident, cudaStream_t s) {
  const std::size_t groups = row_block / lanes;
  const unsigned grid = unsigned(std::min<std::size_t>((rows + groups - 1) / groups, resident));
  rows_kernel<T, O, lanes><<<grid, row_block, 0, s>>>(in, rows, cols, ld, out, own, what);
  PPLAB_CUDA_LAUNCHED();
}

// ---- columns: outer x rows x cols, each of the outer x cols columns reduced down its rows
// (numpy.sum(x, axis=k) for any axis but the last). A block takes 32 neighbouring columns and a
// chunk of rows: its threads are 32 columns by 16 row groups, so a warp reads 32 neighbouring
// elements of one row (coalesced), and each thread walks down its column 16 rows at a time with
// `column_unroll` loads in flight. The 16 row groups meet in shared memory in a fixed order. Where
// the column tiles alone would not fill the GPU, the rows are cut into chunks whose partials a
// second launch combines in chunk order: every answer is the same on every run on a GPU.
// Measured (H200, bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, through Python, against
// torch.sum(dim=) in the same process): f32 16384^2 axis 0 0.89x, 64x1024x4096 axis 1 0.95x,
// 4096x65536 axis 0 0.92x; the whole-array sum through the same Python layer is 0.93x with a
// kernel at 98% of the read ceiling, so most of the gap is the call, not the walk. Tried and
// dropped: 16-byte loads per lane (4 columns) measured 0.80-0.88x, no faster; 4 to 16 waves of
// chunks instead of 2, within noise or slower. 16 row groups rather than 8 (the record's section
// of 2026-12-03): a 16384^2 f32 axis 0 in one launch of 512 tiles read at 4.25 TB/s where 8 groups
// read at 3.48 (too few loads in flight), so a GPU that the tiles fill takes no chunks, no
// scratch and no second launch. var and std merge each thread's 8 loads as one group (merged,
// reduce_cuda.cuh).
constexpr int column_block = 512, column_lanes = 32, row_groups = column_block / column_lanes,
              column_unroll = 8;
constexpr std::size_t min_chunk_rows = 256;  // 32 rows per thread at least

template <class T, op O>
__global__ void __launch_bounds__(column_block)
    columns_kernel(const T* __restrict__ in, std::size_t outer, std::size_t rows, std::size_t cols,
                   std::size_t col_tiles, std::size_t chunk_rows,
                   acc_t<T, O>* __restrict__ partials, void* __restrict__ out, bool own, op what) {
  using A = acc_t<T, O>;
  __shared__ A groups[row_groups][column_lanes];
  const unsigned lane = threadIdx.x % column_lanes, group = threadIdx.x / column_lanes;
  const std::size_t o = blockIdx.x / col_tiles;
  const std::size_t c = (blockIdx.x % col_tiles) * column_lanes + lane;
  const std::size_t r0 = std::size_t(blockIdx.y) * chunk_rows;
  const std::size_t r1 = rows < r0 + chunk_rows ? rows : r0 + chunk_rows;
  A v = identity<T, O>();
  double shift = 0;  // var's, std's: of the column's first values, the same in every chunk
  if (c < cols) {
    const T* column = in + o * rows * cols + c;
    shift = shift_for<T, O>(column, rows, std::ptrdiff_t(cols));
    std::size_t r = r0 + group;
    constexpr std::size_t step = row_groups * column_unroll;
    for (; r + (column_unroll - 1) * row_groups < r1; r += step) {
      T x[column_unroll];
#pragma unroll
      for (int u = 0; u < column_unroll; ++u) x[u] = __ldg(column + (r + u * row_groups) * cols);
      v = merged<T, O>(
          v, x, [r](int u) { return r + std::size_t(u) * row_groups; }, shift);
    }
    for (; r < r1; r += row_groups)
      v = combine<T, O>(v, lift_less<T, O>(__ldg(column + r * cols), r, shift));
  }
  groups[group][lane] = v;
  __syncthreads();
  if (group != 0 || c >= cols) return;
#pragma unroll
  for (int g = 1; g < row_groups; ++g) v = combine<T, O>(v, groups[g][lane]);
  if (partials) partials[std::size_t(blockIdx.y) * outer * cols + o * cols + c] = v;
  else
    store_answer<T, O>(out, o * cols + c,
                       row_answer<T, O>(shifted_back<T, O>(v, shift), what, rows), own);
}

// The chunks' partials of each column combined in chunk order, and its answer written (var's and
// std's mean with the column's shift back on, read as columns_kernel read it).
template <class T, op O>
__global__ void __launch_bounds__(row_block)
    column_chunks(const acc_t<T, O>* __restrict__ partials, std::size_t answers, unsigned chunks,
                  const T* __restrict__ in, std::size_t rows, std::size_t cols,
                  void* __restrict__ out, bool own, op what) {
  const std::size_t i = std::size_t(blockIdx.x) * row_block + threadIdx.x;
  if (i >= answers) return;
  acc_t<T, O> v = partials[i];
  for (unsigned k = 1; k < chunks; ++k) v = combine<T, O>(v, partials[k * answers + i]);
  const double shift =
      shift_for<T, O>(in + i / cols * rows * cols + i % cols, rows, std::ptrdiff_t(cols));
  store_answer<T, O>(out, i, row_answer<T, O>(shifted_back<T, O>(v, shift), what, rows), own);
}

// How many chunks the rows are cut into: none where the column tiles fill seven eighths of the
// GPU's resident blocks; else enough blocks for two waves of them, each chunk at least
// min_chunk_rows long.
template <class T, op O>
unsigned column_chunk_count(std::size_t outer, std::size_t rows, std::size_t cols) {
  static const unsigned resident = resident_blocks(columns_kernel<T, O>, column_block);
  const std::size_t tiles = outer * ((cols + column_lanes - 1) / column_lanes);
  if (8 * tiles >= 7 * std::size_t(resident)) return 1;
  const std::size_t want = (2 * std::size_t(resident) + tiles - 1) / tiles;
  const std::size_t most = std::max<std::size_t>(1, rows / min_chunk_rows);
  return unsigned(std::min<std::size_t>({want, most, 65535}));
}

}  // namespace

std::size_t reduce_columns_scratch(dtype t, op o, std::size_t outer, std::size_t rows,
                                   std::size_t cols) {
  o = as_for(t, o);  // a nan op of integers: its plain op
  return visit_reduce<true, true, true>(t, o, [&](auto tag, auto otag) -> std::size_t {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    const unsigned chunks = column_chunk_count<T, O>(outer, rows, cols);
    return chunks > 1 ? std::size_t(chunks) * outer * cols * sizeof(acc_t<T, O>) : 0;
  });
}

// `scratch` holds reduce_columns_scratch's bytes for the same arguments.
void reduce_columns_here(dtype t, const void* in, std::size_t outer, std::size_t rows,
                         std::size_t cols, op o, void* out, bool own, void* scratch, void* stream) {
  if (outer == 0 || cols == 0) return;
  o = as_for(t, o);
  const auto s = static_cast<cudaStream_t>(stream);
  visit_reduce<true, true, true>(t, o, [&](auto tag, auto otag) {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    using A = acc_t<T, O>;
    const unsigned chunks = column_chunk_count<T, O>(outer, rows, cols);
    const std::size_t chunk_rows = (rows + chunks - 1) / chunks;
    const std::size_t col_tiles = (cols + column_lanes - 1) / column_lanes;
    auto* partials = chunks > 1 ? static_cast<A*>(scratch) : nullptr;
    columns_kernel<T, O><<<dim3(unsigned(outer * col_tiles), chunks), column_block, 0, s>>>(
        static_cast<const T*>(in), outer, rows, cols, col_tiles, chunk_rows, partials, out, own, o);
    PPLAB_CUDA_LAUNCHED();
    if (!partials) return;
    const std::size_t count = outer * cols;
    column_chunks<T, O><<<unsigned((count + row_block - 1) / row_block), row_block, 0, s>>>(
        partials, count, chunks, static_cast<const T*>(in), rows, cols, out, own, o);
    PPLAB_CUDA_LAUNCHED();
  });
}

void reduce_rows_here(dtype t, const void* in, std::size_t rows, std::size_t cols, std::size_t ld,
                      op o, void* out, bool own, void* stream) {
  if (rows == 0) return;
  o = as_for(t, o);
  const auto s = static_cast<cudaStream_t>(stream);
  visit_reduce<true, true, true>(t, o, [&](auto tag, auto otag) {
    using T = decltype(tag);
    constexpr op O = decltype(otag)::value;
    const auto* x = static_cast<const T*>(in);
    static const unsigned warp_blocks = resident_blocks(rows_kernel<T, O, 32>, row_block);
    static const unsigned row_blocks = resident_blocks(rows_kernel<T, O, row_block>, row_block);
    const std::size_t resident_warps = std::size_t(warp_blocks) * (row_block / 32);
    if (cols <= warp_row_cols || rows >= resident_warps)
      launch_rows<T, O, 32>(x, rows, cols, ld, out, own, o, warp_blocks, s);
    else launch_rows<T, O, row_block>(x, rows, cols, ld, out, own, o, row_blocks, s);
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
