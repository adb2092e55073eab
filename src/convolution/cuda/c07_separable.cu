// convolution/cuda/c07_separable: a mask that is an outer product (mask[i][j] = col[i] row[j])
// in two 1-D passes fused in one kernel. A block of 32 x 8 threads owns a 32 x 64 output tile (8
// outputs per thread, as c06): it loads the tile's input with its halo into shared memory (all
// of a thread's loads in flight before its first store), filters each of those rows across x with
// `row` into a second shared array (barrier), and each thread filters its 8 outputs down y with
// `col`. kh + kw multiply-adds and as many shared loads per output instead of kh x kw, and the
// image read once from memory: a separable mask costs about what a 3 x 3 one does.
#include "convolution/cuda/constant_mask.cuh"

namespace pplab::detail::gpu_conv {
namespace {

constexpr int tile = 32, block_rows = 8, S = 8, staged = 8;

template <class T> std::size_t shared_bytes(int kh, int kw) {
  const int h = block_rows * S + kh - 1, w = tile + kw - 1;
  return std::size_t(h) * (w + tile) * sizeof(T);
}

// col is taps [0, kh) of the constant mask, row taps [kh, kh + kw).
template <class T> __global__ void __launch_bounds__(tile* block_rows) separable(image<T> f) {
  extern __shared__ unsigned char raw[];
  const int rh = f.kh / 2, rw = f.kw / 2;
  const int h = block_rows * S + f.kh - 1, w = tile + f.kw - 1;
  T* in = reinterpret_cast<T*>(raw);  // h x w: the input tile with its halo
  T* across = in + h * w;             // h x tile: each of its rows filtered across x
  const int y0 = int(blockIdx.y) * block_rows * S, x0 = int(blockIdx.x) * tile;
  const int tx = int(threadIdx.x), ty = int(threadIdx.y), tid = ty * tile + tx;
  constexpr int threads = tile * block_rows;
  const bool inside =
      y0 - rh >= 0 && y0 - rh + h <= f.rows && x0 - rw >= 0 && x0 - rw + w <= f.cols;
  for (int k0 = tid; k0 < h * w; k0 += staged * threads) {  // `staged` loads in flight at once
    T v[staged];
#pragma unroll
    for (int u = 0; u < staged; ++u) {
      const int k = k0 + u * threads, ly = k / w, lx = k % w;
      if (k < h * w)
        v[u] = inside ? f.in[std::size_t(y0 - rh + ly) * f.ld_in + (x0 - rw + lx)]
                      : read(f, y0 - rh + ly, x0 - rw + lx);
    }
#pragma unroll
    for (int u = 0; u < staged; ++u)
      if (k0 + u * threads < h * w) in[k0 + u * threads] = v[u];
  }
  __syncthreads();  // the tile and its halo are whole
  for (int r = ty; r < h; r += block_rows) {
    T acc = 0;
    const T* from = in + r * w + tx;
    for (int j = 0; j < f.kw; ++j) acc += tap<T>(f.kh + j) * from[j];
    across[r * tile + tx] = acc;
  }
  __syncthreads();  // every row filtered across
  const int x = x0 + tx;
  if (x >= f.cols) return;
  const int first = ty * S;
#pragma unroll
  for (int s = 0; s < S; ++s) {
    const int y = y0 + first + s;
    if (y >= f.rows) return;
    T acc = 0;
    for (int i = 0; i < f.kh; ++i) acc += tap<T>(i) * across[(first + s + i) * tile + tx];
    f.out[std::size_t(y) * f.ld_out + x] = acc;
  }
}

struct rung {
  template <class T> static void run(const image<T>& f, const T* mask, void*, cudaStream_t s) {
    upload_mask(mask + f.kh * f.kw, f.kh + f.kw, s);  // the factors alone
    separable<T><<<tiles_over(f.rows, f.cols, block_rows * S, tile), dim3(tile, block_rows),
                   shared_bytes<T>(f.kh, f.kw), s>>>(f);
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace

// Within the default 48 KiB of shared memory: every f32 mask, f64 up to 15 x 15.
bool c07_can_run(const convolution_problem& p) {
  const std::size_t bytes = p.type == dtype::f32 ? shared_bytes<float>(int(p.kh), int(p.kw))
                                                 : shared_bytes<double>(int(p.kh), int(p.kw));
  return fits(p, block_rows * S) && p.separable && bytes <= (std::size_t(48) << 10);
}
void c07_run(const convolution_call& c) { dispatch<rung>(c); }

}  // namespace pplab::detail::gpu_conv
