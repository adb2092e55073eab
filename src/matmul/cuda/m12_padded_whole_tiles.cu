// matmul/cuda/m12_padded_whole_tiles: odd sizes at the speed of whole tiles. m08's interior
// kernel (double_buffered.cuh) needs every tile of A and B whole and 16-byte aligned: no bounds
// test and no 64-bit index arithmetic per load, 8 instructions beside a thread's 64 FFMAs per k
// step instead of 13 (SASS of both, docs/matmul.md). 4093^3 is a whole number of tiles in no
// dimension (4093 = 31 x 128 + 125 = 255 x 16 + 13), so m08 runs its checked kernel on all of
// it. Here A and B are first
// copied into zero-padded buffers in the scratch (rows and columns rounded up to whole tiles; the
// zeros add nothing to any sum), only the operands that need it, then the interior kernel
// multiplies them; C keeps its bounds tests. Predicted for 4093^3 f32: m08 at 4096^3 (3.02 ms)
// plus two copies of 67 MB read and written (~0.09 ms at 3 TB/s), 3.11 ms. Measured on the H200
// (bench/results/h200-2026-11-23-matmul-2ea7328.json): 3.187 ms, 0.90x cuBLAS against m08's
// 3.357 ms, 0.86x. The 0.08 ms over the prediction was mostly the copies: Nsight Compute
// (...-ncu-m12-8bc9f43.txt in git's history) timed each at 74 us, 1.8 TB/s, one 4-byte
// element per thread. With one 16-byte vector per thread (its elements read together, stored at
// once) 33 us each, 4.1 TB/s, and 4093^3 3.127 ms, 0.93x cuBLAS, as predicted
// (bench/results/h200-2026-11-24-matmul-4b55444.json). The policy takes this rung for odd sizes
// with enough big tiles.
// Scratch: ceil(m, BM) x ceil(k, BK) + ceil(k, BK) x ceil(n, BN) elements.
#include "matmul/cuda/padded.cuh"

namespace pplab::detail::matmul_cuda {

template <class T> void m08_whole_tiles(const gemm<T>&, cudaStream_t);

namespace {

using P32 = narrow_sub4;  // m08's tilings
using P64 = narrow_threads_bk8;

struct rung {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s, void* scratch) {
    using P = std::conditional_t<sizeof(T) == 4, P32, P64>;
    const gemm<T> whole = pad_operands<P>(g, static_cast<T*>(scratch), s);
    m08_whole_tiles(whole, s);
  }
};

std::size_t scratch(const matmul_problem& p) {
  if (p.m == 0 || p.n == 0 || p.k == 0 || !one_float_product(p)) return 0;
  return p.type == dtype::f32 ? padded<P32>(p.m, p.n, p.k).elements() * 4
                              : padded<P64>(p.m, p.n, p.k).elements() * 8;
}

void run(const matmul_call& c) {
  if (c.p.m == 0 || c.p.n == 0) return;
  if (c.p.k == 0) return m08_double_buffered.run(c);  // C = beta C: nothing to pad
  dispatch_matmul<rung>(c, static_cast<cudaStream_t>(c.stream), c.scratch);
}

}  // namespace

extern const matmul_rung m12_padded_whole_tiles{
    .info = {.step = 12,
             .summary = "A and B copied into zero-padded whole tiles, then m08's interior kernel"},
    .can_run = grid_fits,
    .scratch_bytes = scratch,
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
