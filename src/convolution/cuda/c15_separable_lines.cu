// convolution/cuda/c15_separable_lines: an outer-product mask (mask[i][j] = col[i] row[j]) of any
// odd sides to max_separable_side, in two 1-D passes fused in one kernel, the taps a run-time
// count as in c13's 1-D pass (line_pass.cuh: groups of 8 taps over registers of staged values).
// c07 compiles its side and takes squares to 31 x 31; past them (a Gaussian of sigma 4 is 33 x
// 33) SciPy's named filters ran as two c13/c14 passes, the image written and read again between
// them: gaussian_filter sigma 4 on 8192^2 f32 took 0.832 ms through Python on an H200, 9.3x
// cupyx, where one read and one write of the image take 0.127 ms.
// A block of 256 threads owns a 64 x 64 output tile: it stages the tile's input with its halo
// (64 + kh - 1 rows of 64 + kw - 1 values, by cp.async, on the image's edges from where the mode
// puts each value), filters every staged row across with `row` into a second array (a thread 4
// neighbouring outputs from 16-byte loads, as c13 across), then each thread filters strips of 8
// outputs down a column with `col` (as c13 down) and stores them. kh + kw multiply-adds per output
// (the pass across also over the kh - 1 halo rows), and the image read once from memory: the
// halos' re-reads come from L2.
#include "convolution/cuda/line_pass.cuh"

namespace pplab::detail::convolution_cuda {
namespace {

constexpr int tile_w = 64, tile_h = 64, threads = 256;

// The staged input's row length: the outputs, the halo (kw - 1), room for the last group's
// 16-byte loads; a multiple of 4 elements, so that every row starts 16-byte aligned.
__host__ __device__ inline int input_width(int kw) {
  return tile_w + (kw + group - 1) / group * group + 4;
}
// The staged input's rows; the array of rows filtered across has `group` more (zeros: the last
// group's rows past the halo, never multiplied by a tap).
__host__ __device__ inline int input_rows(int kh) { return tile_h + kh - 1; }
template <class T> std::size_t shared_bytes(int kh, int kw) {
  return (std::size_t(input_rows(kh)) * input_width(kw) +
          std::size_t(input_rows(kh) + group) * tile_w) *
         sizeof(T);
}

// col is taps [0, kh) of the constant bank, row taps [kh, kh + kw).
template <class T> __global__ void __launch_bounds__(threads) separable_lines(image<T> f) {
  extern __shared__ __align__(16) unsigned char raw[];
  const int kh = f.kh, kw = f.kw, rh = kh / 2, rw = kw / 2;
  const int w = input_width(kw), h = input_rows(kh), total = h * w, halo_w = tile_w + kw - 1;
  T* in = reinterpret_cast<T*>(raw);  // h x w: element (i, j) is input (y0 - rh + i, x0 - rw + j)
  T* across = in + total;             // (h + group) x tile_w: each staged row filtered across
  const int y0 = int(blockIdx.y) * tile_h, x0 = int(blockIdx.x) * tile_w;
  const int tid = int(threadIdx.x);
  const bool inside =
      y0 - rh >= 0 && y0 - rh + h <= f.rows && x0 - rw >= 0 && x0 - rw + w <= f.cols;
  tile_walk at(tid, w, threads);
  if (inside) {  // every copy in flight at once, no register on the way
    const T* first = f.in + std::size_t(y0 - rh) * f.ld_in + (x0 - rw);
    for (int e = tid; e < total; e += threads, at.step())
      copy_async_inside<sizeof(T)>(in + e, first + std::size_t(at.row) * f.ld_in + at.col);
    commit_copies();
  } else {  // each value copied from where the mode puts it; the constant and the zeros stored
    for (int e = tid; e < total; e += threads, at.step()) {
      const int y = y0 - rh + at.row, x = x0 - rw + at.col;
      const std::int64_t r = y >= 0 && y < f.rows ? y : boundary_index(y, f.rows, f.mode);
      const std::int64_t c = x >= 0 && x < f.cols ? x : boundary_index(x, f.cols, f.mode);
      if (at.col >= halo_w) in[e] = T(0);
      else if (r < 0 || c < 0) in[e] = f.cval;
      else copy_async<sizeof(T)>(in + e, f.in + std::size_t(r) * f.ld_in + c, true);
    }
    commit_copies();
  }
  for (int e = tid; e < group * tile_w; e += threads) across[h * tile_w + e] = T(0);
  wait_copies<0>();
  __syncthreads();
  {  // across: thread tid filters outputs X c .. X c + 3 of rows tid / per_row + k rows_at_once
    constexpr int per_row = tile_w / X, rows_at_once = threads / per_row;
    constexpr int W = 16 / int(sizeof(T));
    const int c = tid % per_row;
    for (int i = tid / per_row; i < h; i += rows_at_once) {
      const T* line = in + i * w + c * X;
      T acc[X] = {};
      filter_line<T, X, W>(acc, line, kw, 1, kh);
#pragma unroll
      for (int q = 0; q < X / W; ++q)
        *reinterpret_cast<vec16<T>*>(across + i * tile_w + c * X + q * W) =
            *reinterpret_cast<const vec16<T>*>(acc + q * W);
    }
  }
  __syncthreads();
  // Down: thread tid filters strips of Y outputs down column tid % tile_w
  constexpr int strips_at_once = threads / tile_w;
  const int c = tid % tile_w, x = x0 + c;
  for (int s = tid / tile_w; s < tile_h / Y; s += strips_at_once) {
    const T* col = across + s * Y * tile_w + c;
    T acc[Y] = {};
    filter_line<T, Y, 1>(acc, col, kh, tile_w, 0);
    if (x >= f.cols) continue;
#pragma unroll
    for (int q = 0; q < Y; ++q) {
      const int y = y0 + s * Y + q;
      if (y < f.rows) f.out[std::size_t(y) * f.ld_out + x] = acc[q];
    }
  }
}

struct rung {
  template <class T> static void run(const image<T>& f, const T* mask, void*, cudaStream_t s) {
    const mask_in_bank<T> bank(mask + f.kh * f.kw, f.kh + f.kw, s);  // the factors alone
    const std::size_t bytes = shared_bytes<T>(f.kh, f.kw);
    allow_shared(separable_lines<T>, bytes);
    separable_lines<T><<<tiles_over(f.rows, f.cols, tile_h, tile_w), threads, bytes, s>>>(f);
    PPLAB_CUDA_LAUNCHED();
  }
};

// Any outer product of sides to max_separable_side: at f64 63 x 63 the block takes 201 KB of
// shared memory, within an H100's or H200's 227.
bool can_run(const convolution_problem& p) {
  return float_separable(p) && p.cols < (std::size_t(1) << 31) &&
         ceil_div(p.rows, std::size_t(tile_h)) < 65536 &&
         (p.type == dtype::f32
              ? shared_bytes<float>(int(p.kh), int(p.kw))
              : shared_bytes<double>(int(p.kh), int(p.kw))) <= max_shared_per_block();
}
void run(const convolution_call& c) { dispatch<rung>(c); }

}  // namespace

extern const convolution_rung c15_separable_lines{
    .info = {.step = 15,
             .summary = "an outer-product mask of any sides to 63 as two 1-D passes fused in one "
                        "kernel, the taps a run-time count"},
    .can_run = can_run,
    .run = run,
    .explain = [](const convolution_problem& p) { return tile_intensity(p, 64, 64); },
};

}  // namespace pplab::detail::convolution_cuda
