// matmul/cuda/m17_matrix_times_vector: A x (a product whose B is one column, n = 1) as the
// reduction it is: a warp per row, each lane folding its share of the row's products with x,
// then a shuffle tree (the reduce ladder's rows, reduce/cuda/rows.cu, with a multiply on the
// way in). Nothing is reused but x, which every warp reads through L1 and L2; A is read once,
// marked streaming, so the floor is A's bytes over the read bandwidth. Where a row and x are
// 16-byte aligned (and x is contiguous) the lanes load 16 bytes of each, four loads of A in
// flight; otherwise single elements, eight in flight, still coalesced across the warp. Few long
// rows (a vector dotted with a vector, a short stack of rows) would leave the GPU idle: each row
// is then cut into segments, a warp per segment, and a second pass adds each row's segments in
// order. Segments are sized from the shape alone, so every run on every GPU gives the same bits.
// Measured (H200, bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, its later section): f32
// 16384x1x16384 0.267 ms, 90.9% of the read ceiling, 0.98x cuBLAS; 8192x1x8192 1.30x; f64
// 16384x1x16384 0.96x.
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {
namespace {

constexpr int block = 256;
// Warps wanted: about two waves of an H200's resident warps. (Cutting rows until eight waves
// made the last, partial wave a smaller share gained nothing at 16384^2: 0.268 ms either way.)
constexpr std::size_t warps_wanted = 16384;
constexpr std::size_t min_segment = 4096;   // elements per warp, at least, in a cut row
constexpr std::size_t max_segments = 4096;  // per row: what one warp of the second pass adds
constexpr std::size_t segment_grain = 128;  // keeps 16-byte alignment within a row

struct cut {
  std::size_t segments, length;  // per row; length a multiple of segment_grain
};
cut cut_rows(std::size_t m, std::size_t k) {
  std::size_t s = 1;
  if (m < warps_wanted && k > min_segment)
    s = std::min({ceil_div(warps_wanted, std::max<std::size_t>(m, 1)), ceil_div(k, min_segment),
                  max_segments});
  const std::size_t length =
      ceil_div(ceil_div(std::max<std::size_t>(k, 1), s), segment_grain) * segment_grain;
  return {ceil_div(std::max<std::size_t>(k, 1), length), length};
}

template <class T> __device__ inline T warp_sum(T v) {
  return cuda_detail::warp_reduce(v, [](T a, T b) { return a + b; });
}

// Warp `task` (row task / segments, segment task % segments) sums a[l] * x[l] over its segment,
// or a[l] alone where x is null (the second pass, over the partials). Its total goes to
// partial[task], or with alpha and beta to the row's element of C where partial is null.
template <class T, bool vectors>
__global__ void __launch_bounds__(block)
    row_dots(const T* __restrict__ a, std::size_t lda, const T* __restrict__ x, std::size_t ldx,
             std::size_t m, std::size_t k, std::size_t segments, std::size_t length,
             T* __restrict__ partial, T* c, std::size_t ldc, T alpha, T beta) {
  const std::size_t task = (std::size_t(blockIdx.x) * block + threadIdx.x) / warp;
  const unsigned lane = threadIdx.x % warp;
  if (task >= m * segments) return;  // a whole warp leaves together
  const std::size_t i = task / segments, l0 = task % segments * length;
  const std::size_t len = l0 < k ? (k - l0 < length ? k - l0 : length) : 0;
  const T* row = a + i * lda + l0;
  const T* xs = x ? x + l0 * ldx : nullptr;
  T sum = 0;
  if constexpr (vectors) {
    constexpr int V = 16 / int(sizeof(T)), U = 4;
    T acc[V] = {};
    const std::size_t count = len / V;
    std::size_t v = lane;
    for (; v + (U - 1) * warp < count; v += U * warp) {
      uint4 ra[U], rx[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        ra[u] = load16<load::streaming>(reinterpret_cast<const uint4*>(row) + v + u * warp);
        rx[u] = load16<load::readonly>(reinterpret_cast<const uint4*>(xs) + v + u * warp);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        T ea[V], ex[V];
        memcpy(ea, &ra[u], 16);
        memcpy(ex, &rx[u], 16);
#pragma unroll
        for (int e = 0; e < V; ++e) acc[e] += ea[e] * ex[e];
      }
    }
    for (; v < count; v += warp) {
      const uint4 ra = load16<load::streaming>(reinterpret_cast<const uint4*>(row) + v);
      const uint4 rx = load16<load::readonly>(reinterpret_cast<const uint4*>(xs) + v);
      T ea[V], ex[V];
      memcpy(ea, &ra, 16);
      memcpy(ex, &rx, 16);
#pragma unroll
      for (int e = 0; e < V; ++e) acc[e] += ea[e] * ex[e];
    }
    for (std::size_t t = count * V + lane; t < len; t += warp) acc[0] += row[t] * __ldg(xs + t);
#pragma unroll
    for (int e = 0; e < V; ++e) sum += acc[e];
  } else {
    constexpr int U = 8;
    std::size_t t = lane;
    for (; t + (U - 1) * warp < len; t += U * warp) {
      T ea[U], ex[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        ea[u] = __ldcs(row + t + u * warp);
        ex[u] = xs ? __ldg(xs + (t + u * warp) * ldx) : T(1);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) sum += ea[u] * ex[u];
    }
    for (; t < len; t += warp) sum += __ldcs(row + t) * (xs ? __ldg(xs + t * ldx) : T(1));
  }
  sum = warp_sum(sum);
  if (lane != 0) return;
  if (partial) partial[task] = sum;
  else store(c + i * ldc, sum, alpha, beta);
}

template <class T, bool vectors>
void launch(const T* a, std::size_t lda, const T* x, std::size_t ldx, std::size_t m, std::size_t k,
            std::size_t segments, std::size_t length, T* partial, const gemm<T>& g,
            cudaStream_t s) {
  const std::size_t blocks = ceil_div(m * segments, block / warp);
  row_dots<T, vectors><<<unsigned(blocks), block, 0, s>>>(a, lda, x, ldx, m, k, segments, length,
                                                          partial, g.c, g.ldc, g.alpha, g.beta);
  PPLAB_CUDA_LAUNCHED();
}

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s, void* scratch) {
    if (g.m == 0) return;
    const cut c = cut_rows(g.m, g.k);
    const auto aligned = [](const void* p) {
      return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
    };
    const bool vectors = aligned(g.a) && aligned(g.b) && g.lda % vec_width<T> == 0 && g.ldb == 1;
    T* partial = c.segments > 1 ? static_cast<T*>(scratch) : nullptr;
    if (vectors) launch<T, true>(g.a, g.lda, g.b, 1, g.m, g.k, c.segments, c.length, partial, g, s);
    else launch<T, false>(g.a, g.lda, g.b, g.ldb, g.m, g.k, c.segments, c.length, partial, g, s);
    // Each row's segments, in order, by the same warp fold (x null: a plain sum).
    if (partial)
      launch<T, false>(partial, c.segments, nullptr, 0, g.m, c.segments, 1, c.segments, nullptr, g,
                       s);
  }
};

std::size_t scratch(const matmul_problem& p) {
  if (!one_float_product(p) || p.n != 1) return 0;
  const cut c = cut_rows(p.m, p.k);
  return c.segments > 1 ? p.m * c.segments * size_of(p.type) : 0;
}

// One column, and a grid of whole warps that fits.
bool can_run(const matmul_problem& p) {
  return one_float_product(p) && p.n == 1 &&
         ceil_div(p.m * cut_rows(p.m, p.k).segments, block / warp) < (std::size_t(1) << 31);
}

void run(const matmul_call& c) {
  dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream), c.scratch);
}

}  // namespace

extern const matmul_rung m17_matrix_times_vector{
    .info = {.step = 17,
             .summary = "A x (n = 1): a warp per row (or segment), 16-byte loads, shuffle sum"},
    .can_run = can_run,
    .scratch_bytes = scratch,
    .scratch_written_first = true,  // each segment's partial, written by row_dots, then added
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
