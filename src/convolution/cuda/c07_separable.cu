// convolution/cuda/c07_separable: a mask that is an outer product (mask[i][j] = col[i] row[j])
// in two 1-D passes fused in one kernel. A block of 32 x 8 threads owns a 32 x 64 output tile (8
// outputs per thread, as c06): it loads the tile's input with its halo into shared memory (all
// of a thread's loads in flight before its first store), filters each of those rows across x with
// `row` into a second shared array (barrier), and each thread filters its strip of 8 outputs down
// y with `col`, each row of the first pass loaded once into a register and added into every output
// it reaches. kh + kw multiply-adds per output instead of kh x kw, and the image read once from
// memory. K is a template parameter (square masks of 3 to 15), as in c06: with a runtime K the
// first version divided by the tile's runtime width for every element it loaded and indexed the
// constant bank at run time, and ran at 29% of the copy ceiling at 7 x 7, slower than c06.
#include "convolution/cuda/constant_mask.cuh"
#include "convolution/cuda/tile_staging.cuh"

namespace pplab::detail::gpu_conv {
namespace {

constexpr int tile = 32, block_rows = 8, S = 8;

template <class T, int K> constexpr std::size_t shared_bytes() {
  return std::size_t(block_rows * S + K - 1) * (tile + K - 1 + tile) * sizeof(T);
}

// col is taps [0, K) of the constant mask, row taps [K, 2K).
template <class T, int K>
__global__ void __launch_bounds__(tile* block_rows) separable(image<T> f) {
  extern __shared__ unsigned char raw[];
  constexpr int r = K / 2, h = block_rows * S + K - 1, w = tile + K - 1;
  T* in = reinterpret_cast<T*>(raw);  // h x w: the input tile with its halo
  T* across = in + h * w;             // h x tile: each of its rows filtered across x
  const int y0 = int(blockIdx.y) * block_rows * S, x0 = int(blockIdx.x) * tile;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y), tid = ty * tile + tx;
  stage_tile<T, h, w, tile * block_rows>(f, in, y0 - r, x0 - r, tid);
  __syncthreads();  // the tile and its halo are whole
#pragma unroll
  for (int m = 0; m < (h + block_rows - 1) / block_rows; ++m) {
    const int row = ty + m * block_rows;
    if (row < h) {
      T acc = 0;
      const T* from = in + row * w + tx;
#pragma unroll
      for (int j = 0; j < K; ++j) acc += tap<T>(K + j) * from[j];
      across[row * tile + tx] = acc;
    }
  }
  __syncthreads();  // every row filtered across
  const int x = x0 + tx;
  if (x >= f.cols) return;
  const int first = ty * S;
  T acc[S];
#pragma unroll
  for (int s = 0; s < S; ++s) acc[s] = 0;
#pragma unroll
  for (int q = 0; q < S + K - 1; ++q) {
    const T v = across[(first + q) * tile + tx];
#pragma unroll
    for (int s = 0; s < S; ++s)
      if (q - s >= 0 && q - s < K) acc[s] += tap<T>(q - s) * v;
  }
  store_strip(f, acc, y0 + first, x);
}

template <class T, int K> void launch(const image<T>& f, cudaStream_t s) {
  separable<T, K><<<tiles_over(f.rows, f.cols, block_rows * S, tile), dim3(tile, block_rows),
                    shared_bytes<T, K>(), s>>>(f);
  PPLAB_CUDA_LAUNCHED();
}

struct rung {
  template <class T> static void run(const image<T>& f, const T* mask, void*, cudaStream_t s) {
    const mask_in_bank<T> bank(mask + f.kh * f.kw, f.kh + f.kw, s);  // the factors alone
    switch (f.kh) {
    case 3:
      return launch<T, 3>(f, s);
    case 5:
      return launch<T, 5>(f, s);
    case 7:
      return launch<T, 7>(f, s);
    case 9:
      return launch<T, 9>(f, s);
    case 11:
      return launch<T, 11>(f, s);
    case 13:
      return launch<T, 13>(f, s);
    default:
      return launch<T, 15>(f, s);
    }
  }
};

}  // namespace

// Square masks of 3 to 15: f64 at 15 x 15 takes 78 x 78 x 8 bytes, inside the default 48 KiB.
bool c07_can_run(const convolution_problem& p) {
  return fits(p, block_rows * S) && p.separable && p.kh == p.kw && p.kh >= 3 && p.kh <= 15;
}
void c07_run(const convolution_call& c) { dispatch<rung>(c); }

}  // namespace pplab::detail::gpu_conv
