#pragma once
// What the whole-mask split-TF32 rungs (c11 on mma.sync, c12 on wgmma) share around their
// products: each image row multiplied by all 16 slots (mask rows) at once, the image streamed down
// a column of blocks in chunks of 16 rows (one turn of the slots), and the outputs the products
// left NaN or infinite taken again tap by tap in fp32.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "convolution/cuda/bands.hpp"
#include "convolution/cuda/conv_cuda.cuh"
#include "convolution/cuda/split_tf32.cuh"
#include "convolution/cuda/tile_staging.cuh"
#include "core/cuda/async_copy.cuh"
#include "core/cuda/launch.cuh"

namespace pplab::detail::convolution_cuda::whole_mask {

// slots and chunk_rows: bands.hpp
constexpr int max_side = 16;   // taps of a mask row in the product's K, and the slots' turn
constexpr int lead_cols = 8;   // the staged columns start 8 left of the block's first output
constexpr int phases = slots;  // the turns of the mask among the slots, one an image row

// Output (y, x) tap by tap in fp32, for the few that the products left NaN or infinite.
__device__ inline float strict_output(const image<float>& f, const float* taps, int y, int x) {
  float sum = 0;
  for (int i = 0; i < f.kh; ++i)
    for (int j = 0; j < f.kw; ++j)
      sum += taps[i * f.kw + j] * read(f, y - f.kh / 2 + i, x - f.kw / 2 + j);
  return sum;
}

// An image value at a shared-memory address, as a volatile load, so that ptxas issues each load
// where it is written: c11 loads the values its products' operands share once for each operand
// (left free, ptxas kept one load's register and copied it into each operand); c12 loads each
// value once.
__device__ __forceinline__ float shared_value(unsigned at) {
  float v;
  asm volatile("ld.volatile.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(at));
  return v;
}

// Where `mine`: to = acc and acc = 0 (a slot's completed sum moved aside and the slot zeroed for
// its next output), asked as predicated moves in place, since a select into a new register costs
// moves to rebuild the accumulators' registers in a row. ptxas still emits selects for c11 (128
// FSEL in a chunk's SASS, 8 a step: bench/results/h100-2026-11-28-convolution-c11-steps.txt);
// with this and A per block c11 went from 0.678 to 0.655 ms on the H100.
__device__ __forceinline__ void take_if(bool mine, float& to, float& acc) {
  asm("{\n .reg .pred p;\n setp.ne.u32 p, %2, 0;\n @p mov.f32 %0, %1;\n"
      " @p mov.f32 %1, 0f00000000;\n}\n"
      : "+f"(to), "+f"(acc)
      : "r"(unsigned(mine)));
}

// Where `mine`: to = part + acc and acc = 0, as take_if (a slot's sum kept in two parts).
__device__ __forceinline__ void add_take_if(bool mine, float& to, float part, float& acc) {
  asm("{\n .reg .pred p;\n setp.ne.u32 p, %3, 0;\n @p add.f32 %0, %2, %1;\n"
      " @p mov.f32 %1, 0f00000000;\n}\n"
      : "+f"(to), "+f"(acc)
      : "f"(part), "r"(unsigned(mine)));
}

// Whether a block's chunks, `width` columns from column xs, can come in 16-byte pieces where they
// lie inside the image: inside it across, and the rows 16-byte aligned.
template <int width> __device__ __forceinline__ bool by_copies(const image<float>& f, int xs) {
  return xs >= 0 && xs + width <= f.cols && f.ld_in % 4 == 0 &&
         reinterpret_cast<std::uintptr_t>(f.in) % 16 == 0;
}

// The chunk of chunk_rows x width image values from (y, xs) into `to` by cp.async, committed and
// waited for at the caller's next barrier, so that no register holds it on the way: in 16-byte
// pieces where it lies inside the image (`copies`: by_copies), else element by element through the
// boundary mode (the constant stored as it is).
template <int width, int threads>
__device__ __forceinline__ void stage_chunk(const image<float>& f, float* to, int y, int xs,
                                            bool copies, int tid) {
  constexpr int floats = chunk_rows * width;
  if (copies && y >= 0 && y + chunk_rows <= f.rows) {
    constexpr int units = width / 4, all = chunk_rows * units;
    const float* from = f.in + std::size_t(y) * f.ld_in + xs;
#pragma unroll
    for (int k = 0; k < (all + threads - 1) / threads; ++k)
      if (unit_in_tile<all, threads>(tid, k)) {
        const int v = tid + k * threads, r = v / units, q = v % units;
        copy_async_inside<16>(to + r * width + 4 * q, from + std::size_t(r) * f.ld_in + 4 * q);
      }
  } else {
#pragma unroll 1
    for (int v = tid; v < floats; v += threads) {
      const int r = y + v / width, q = xs + v % width;
      const std::int64_t row = r >= 0 && r < f.rows ? r : boundary_index(r, f.rows, f.mode);
      const std::int64_t col = q >= 0 && q < f.cols ? q : boundary_index(q, f.cols, f.mode);
      if (row < 0 || col < 0) to[v] = f.cval;
      else copy_async<4>(to + v, f.in + std::size_t(row) * f.ld_in + std::size_t(col), true);
    }
  }
  commit_copies();
}

// A block's share of the image: its band of output rows (blockIdx.y in `layout`) in its column of
// S::cols outputs (blockIdx.x), and the chunks it stages down that column, a chunk ahead, into two
// buffers of S::chunk_floats.
template <class S> struct block_column {
  int y0, x0, rows_here, count;  // the first output, the outputs down, the chunks to stage
  int ys, xs;                    // the first staged element: kh / 2 rows up, lead_cols left
  bool copies;                   // whether the chunks come in 16-byte pieces (by_copies)
  __device__ block_column(const image<float>& f, const bands& layout)
      : y0(layout.first_row(int(blockIdx.y))), x0(int(blockIdx.x) * S::cols) {
    const int height = layout.height(int(blockIdx.y));
    rows_here = height < f.rows - y0 ? height : f.rows - y0;
    count = (rows_here + f.kh - 1 + chunk_rows - 1) / chunk_rows;
    ys = y0 - f.kh / 2, xs = x0 - lead_cols;
    copies = by_copies<S::chunk_cols>(f, xs);
  }
  // Chunk c into buffer c % 2 of `chunks` (stage_chunk).
  __device__ void stage(const image<float>& f, float* chunks, int c, int tid) const {
    stage_chunk<S::chunk_cols, S::threads>(f, chunks + (c % 2) * S::chunk_floats,
                                           ys + chunk_rows * c, xs, copies, tid);
  }
};

// The outputs of the block's rows x cols tile from (y0, x0) that came out NaN or infinite (an
// infinity or a NaN in the image, which the zero taps multiply too), taken again tap by tap, so
// that they reach the outputs they reach in strict arithmetic and no others. Every thread of the
// block calls it (a barrier): `nonfinite` is whether an output the thread stored is one.
template <int threads>
__device__ inline void redo_nonfinite(const image<float>& f, const float* taps, bool nonfinite,
                                      int y0, int x0, int rows, int cols, int tid) {
  if (!__syncthreads_or(nonfinite)) return;  // the block's stores are visible to it after this
  for (int o = tid; o < rows * cols; o += threads) {
    const int y = y0 + o / cols, x = x0 + o % cols;
    float* at = f.out + std::size_t(y) * f.ld_out + x;
    if (x < f.cols && !isfinite(*at)) *at = strict_output(f, taps, y, x);
  }
}

// The mask's tap that slot `slot` takes at phase p (image row p mod 16) from the product's K
// column j (image column x - lead_cols + j for output x): mask row (p - slot + kh - 1) mod 16,
// zero past the mask.
inline float slot_tap(const float* mask, int kh, int kw, int p, int slot, int j) {
  const int i = ((p - slot + kh - 1) % slots + slots) % slots, col = j - lead_cols + kw / 2;
  return i < kh && col >= 0 && col < kw ? mask[i * kw + col] : 0.0f;
}

// A whole-mask rung through dispatch: `kernel` (shape S: S::threads, S::shared, S::cols) with
// B's table built on the host by `table` and the call's taps after it in the scratch, down columns
// of S::cols outputs in the bands of rows plan_bands picks. Only the f32 instance does
// anything (the rungs' can_run).
template <auto kernel, class S, std::vector<uint4> (*table)(const float*, int, int)> struct rung {
  template <class T>
  static void run(const image<T>& f, const T* mask, void* scratch, cudaStream_t s) {
    if constexpr (std::is_same_v<T, float>) {
      const float* taps = fragments_and_taps_to(scratch, table(mask, f.kh, f.kw), mask,
                                                std::size_t(f.kh) * std::size_t(f.kw), s);
      allow_shared(kernel, S::shared);
      static const unsigned resident = resident_blocks(kernel, S::threads, S::shared);
      const bands b = plan_bands(f.rows, f.cols, f.kh, resident, S::cols);
      const dim3 grid(unsigned((f.cols + S::cols - 1) / S::cols), unsigned(b.count(f.rows)));
      kernel<<<grid, S::threads, S::shared, s>>>(f, static_cast<const uint4*>(scratch), taps, b);
      PPLAB_CUDA_LAUNCHED();
    }
  }
};

}  // namespace pplab::detail::convolution_cuda::whole_mask
