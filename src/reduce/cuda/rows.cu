// reduce/cuda/rows: each row of a matrix in GPU memory reduced on its own (pplab.sum(x, axis=-1)
// on a CuPy or PyTorch array; pplab::reduce_rows_device). A group of threads per row at a time,
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

// The answer's type of (T, O): what reduce_rows_device writes per row.
template <class T, op O>
using row_answer_t =
    std::conditional_t<O == op::mean || std::is_floating_point_v<T>, double,
                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

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
    if (lane == 0)
      out[y] = mean ? row_answer_t<T, O>(double(v) / double(cols)) : row_answer_t<T, O>(v);
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

}  // namespace

void reduce_rows_here(dtype t, const void* in, std::size_t rows, std::size_t cols, std::size_t ld,
                      op o, void* out, void* stream) {
  if (rows == 0) return;
  const auto s = static_cast<cudaStream_t>(stream);
  visit_reduce(t, o, [&](auto tag, auto otag) {
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
}
}  // namespace pplab::detail
