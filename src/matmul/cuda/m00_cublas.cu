// matmul/cuda/m00_cublas: cuBLAS cublasSgemm / cublasDgemm (a stack: their strided-batched
// forms, as torch.bmm), the vendor baseline, measured beside the ladder; the API's pick only for
// the stacks where the stack rung m19 measured slower (matmul/policy.cpp).
// Strict fp32: the handle's math mode is CUBLAS_PEDANTIC_MATH, so no TF32 tensor cores stand in for
// fp32 FMAs (f64 uses the fp64 tensor cores, which a SIMT kernel cannot reach). Row-major C = A B
// is column-major C^T = B^T A^T: cuBLAS is called with B first. beta == 0 does not read C (cuBLAS's
// rule). Measured (H200, bench/results/h200-2026-11-28-cuda-be494fa.json): f32 4096x4096x4096
// in 2.686 ms, 51168 GFLOP/s (91.7% of the FMA peak).
#include <cublas_v2.h>

#include "matmul/cuda/matmul_cuda.cuh"

namespace pplab::detail::matmul_cuda {
namespace {

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    fail(errc::device, std::string(what) + " failed: cuBLAS status " + std::to_string(int(s)));
}

// One handle per host thread, strict fp32.
cublasHandle_t handle() {
  static thread_local const cublasHandle_t h = [] {
    cublasHandle_t made = nullptr;
    check(cublasCreate(&made), "cublasCreate");
    check(cublasSetMathMode(made, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    return made;
  }();
  return h;
}

struct cublas {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s) {
    if (g.m == 0 || g.n == 0) return;
    const cublasHandle_t h = handle();
    check(cublasSetStream(h, s), "cublasSetStream");
    const auto ld = [](std::size_t l) { return int(std::max<std::size_t>(l, 1)); };
    if constexpr (sizeof(T) == 4)
      check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(g.n), int(g.m), int(g.k), &g.alpha, g.b,
                        ld(g.ldb), g.a, ld(g.lda), &g.beta, g.c, ld(g.ldc)),
            "cublasSgemm");
    else
      check(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(g.n), int(g.m), int(g.k), &g.alpha, g.b,
                        ld(g.ldb), g.a, ld(g.lda), &g.beta, g.c, ld(g.ldc)),
            "cublasDgemm");
  }
};

// A stack (p.batch > 1): cublas{S,D}gemmStridedBatched, what torch.bmm calls, in runs of at
// most 2^31 - 1 products.
struct cublas_stack {
  template <class T> static void run(const gemm<T>& g, cudaStream_t s, std::size_t batch) {
    if (g.m == 0 || g.n == 0) return;
    const cublasHandle_t h = handle();
    check(cublasSetStream(h, s), "cublasSetStream");
    const auto ld = [](std::size_t l) { return int(std::max<std::size_t>(l, 1)); };
    constexpr std::size_t most = (std::size_t(1) << 31) - 1;
    for (std::size_t first = 0; first < batch; first += most) {
      const int count = int(std::min(most, batch - first));
      const T *a = g.a + first * g.stride_a, *b = g.b + first * g.stride_b;
      T* c = g.c + first * g.stride_c;
      const auto sa = (long long)g.stride_a, sb = (long long)g.stride_b, sc = (long long)g.stride_c;
      if constexpr (sizeof(T) == 4)
        check(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, int(g.n), int(g.m), int(g.k),
                                        &g.alpha, b, ld(g.ldb), sb, a, ld(g.lda), sa, &g.beta, c,
                                        ld(g.ldc), sc, count),
              "cublasSgemmStridedBatched");
      else
        check(cublasDgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, int(g.n), int(g.m), int(g.k),
                                        &g.alpha, b, ld(g.ldb), sb, a, ld(g.lda), sa, &g.beta, c,
                                        ld(g.ldc), sc, count),
              "cublasDgemmStridedBatched");
    }
  }
};

bool can_run(const matmul_problem& p) {
  constexpr std::size_t limit = std::size_t(1) << 31;
  return (p.type == dtype::f32 || p.type == dtype::f64) && p.m < limit && p.n < limit &&
         p.k < limit;
}
void run(const matmul_call& c) {
  const auto s = static_cast<cudaStream_t>(c.stream);
  if (c.p.batch > 1) dispatch_matmul<cublas_stack>(c, s, c.p.batch);
  else dispatch_matmul<cublas>(c, s);
}

}  // namespace

extern const matmul_rung m00_cublas{
    .info = {.step = 0, .summary = "cuBLAS sgemm (strict fp32) / dgemm: the vendor baseline"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::matmul_cuda
