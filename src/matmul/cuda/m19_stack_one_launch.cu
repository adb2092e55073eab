// matmul/cuda/m19_stack_one_launch: a stack of products (numpy.matmul's 3-D operands, what
// torch.bmm computes) in one launch: m08's double-buffered kernel (double_buffered.cuh) with the
// stack along the grid's third dimension, block z multiplying product z, its matrices z strides
// along (a stride of 0: every product reads the same matrix). A launch per product pays a
// launch's microseconds each and leaves most SMs idle wherever one product has fewer tiles than
// the GPU has SMs: a 128^3 product is one 128 x 128 tile for 132 SMs, and a stack of 4096 of them
// ran at 0.5 TFLOP/s that way on an H200 (torch.bmm 28.6). One launch gives the scheduler the
// whole stack's tiles. Tiles: 128 x 128 where the stack has two of them per SM (m08's rule), else
// f32 takes 64 x 64 (f64 always m08's 128 x 128 x 8). The kernels are m08's, compiled in m08's
// files; every product runs the interior kernel where every product's tiles are whole and
// aligned (the strides whole vectors too).
#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {

template <class T> void m08_stack(const gemm<T>& g, cudaStream_t s, unsigned count);
void m08_64x64_stack(const gemm<float>& g, cudaStream_t s, unsigned count);

namespace {

constexpr std::size_t most_z = 65535;  // the grid's third dimension

struct stack {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s, std::size_t batch) {
    if (g.m == 0 || g.n == 0) return;
    const bool big = ceil_div(g.m, 128) * ceil_div(g.n, 128) * batch >= 2 * sm_count();
    for (std::size_t first = 0; first < batch; first += most_z) {
      gemm<T> part = g;
      part.a += first * g.stride_a, part.b += first * g.stride_b, part.c += first * g.stride_c;
      const auto count = unsigned(std::min(most_z, batch - first));
      if constexpr (sizeof(T) == 4) {
        if (!big) {
          m08_64x64_stack(part, s, count);
          continue;
        }
      }
      m08_stack(part, s, count);
    }
  }
};

bool can_run(const matmul_problem& p) {
  return (p.type == dtype::f32 || p.type == dtype::f64) && p.batch > 1 &&
         ceil_div(p.m, 64) < 65536 && ceil_div(p.n, 64) < (std::size_t(1) << 31);
}

void run(const matmul_call& c) {
  dispatch_matmul<stack>(c, static_cast<cudaStream_t>(c.stream), c.p.batch);
}

}  // namespace

extern const matmul_rung m19_stack_one_launch{
    .info = {.step = 19,
             .summary = "a stack of products in one launch: m08's kernel, the stack along the "
                        "grid's third dimension"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
