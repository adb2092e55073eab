// The matmul rung the API runs, per backend and problem. Every choice is made here, by the problem
// and the device, never by a rung (docs/architecture.md): a product with a vector operand (one
// column, A x; one row, x B) is a reduction, read once, and runs the vector rungs (cpu m04 and
// m05, cuda m17 and m18); on the cpu a tall A times a B of at most 4 x 4 (points @ R) runs m07,
// which moves A and C once; a stack of products in GPU memory runs in one launch (m19); otherwise
// on the cpu the packed micro-kernel, on the GPU the shape table below. cuBLAS (cuda m00) is the
// baseline the GPU's are measured against, the default only for the stacks where the stack rung
// measured slower (below). On the cpu, where OpenBLAS is
// built in (cpu m00), the API runs it wherever the lab measured it faster than the ladder's top:
// every shape but x B and small products (2-core EPYC, AVX2, quick lab: OpenBLAS 1.09x m03 at
// 512^3; m05 1.04x OpenBLAS at 1 x 4096 x 4096; through Python
// 1.13-1.27x m03 at 512-2048, f32 and f64: bench/results/cpu-2core-2026-11-29-python-vs-host-
// 3c7017c.txt), but for products of two matrices on a machine where m03
// measures faster at run time (packed_kernel_outruns_openblas, below: by the product's size and the
// units). The own rungs run where no OpenBLAS is built.
//
// On the GPU one tiling does not fit every shape: a 128 x 128 tile per block is the fastest per
// flop, but a C with fewer such tiles than two per SM leaves SMs idle
// (1024^3 has 64 tiles for 132 SMs; 128 x 8192 x 8192 has 64). The table, with the measurements
// that chose it (H200, ratios to cuBLAS in the same run, docs/matmul.md):
//
//   class                                 test                              kernel
//   f64 (sm_90), tiles or depth           128^2 tiles >= 1 per SM, or k >= 512   m13, tensor cores
//   f32, deep K                           k >= 512                          m15 (pads B, slices K)
//   enough big tiles, whole               128^2 tiles >= 2 per SM           m08, 128 x 128
//   enough big tiles, odd sizes           the same, M, N, K not whole       m12, padded copies
//   few tiles, deep K (f64 off sm_90)     fewer, and k >= 2 x 256           m10, slices of K
//   few tiles, shallow K                  fewer, and k < 512                m08, 64 x 64
//
// f32 with a deep K (bench/results/h200-2026-11-24-matmul-d58d0d6.json, ratios to cuBLAS in the
// same run; the steps in ...-m15-wide-async-steps.txt): m15 0.96x at 4096^3 (m08 0.89x), 0.97x at
// 8192^3 (0.90x), 0.98x at 4093^3 (m12 0.93x; 1.00x since m15 reads A in place and stages C:
// ...-m15-odd-shapes.txt), 1.08x at 1024^3 (m10 1.03x), 0.93x at
// 128 x 8192 x 8192 (m10 0.86x). A shallow K keeps the table below: at 8192 x 8192 x 128
// m08 1.07x, m15 1.06x (0.98x with its copies at k steps 0 and 3). The rest, before m15:
// (bench/results/h200-2026-11-23-matmul-2ea7328.json) 4096^3, 8192^3, 8192 x 8192 x 128: m08's
// interior kernel (0.89x, 0.90x, 1.07x; the 64 x 64 tiles 0.76-0.99x). 4093^3: m12 0.93x against
// m08's 0.87x (...-2026-11-24-matmul-4b55444.json). 1024^3: m10 1.02x against 1.01x for 64 x 64
// tiles and 0.54x for m08. 128 x 8192 x 8192: m10 0.87x, 64 x 64 tiles 0.64x. Shallow K has too
// little depth to slice: smaller tiles are the way to more blocks there. Where m12's or m10's
// scratch does not fit, the policy runs m08. f64 (...-2026-11-24-matmul-m13-split-k.json): m13
// 1.02x cuBLAS DGEMM at 4096^3 and 1.03x at 2048^3 (m08 0.46x, 0.47x), 0.90x at 1024^3 in 2 slices
// of K (m10 0.40x); f64 with few tiles and a shallow K keeps the SIMT table.
#include <algorithm>
#include <chrono>
#include <vector>

#include "core/device.hpp"
#include "core/executor.hpp"
#include "core/run.hpp"
#include "matmul/rung.hpp"

namespace pplab::detail {
namespace {

std::vector<std::string_view> cuda_policy(const matmul_problem& p) {
  const std::size_t sms = std::size_t(gpu().sm_count);
  const std::size_t tiles = ceil_div(p.m, 128) * ceil_div(p.n, 128);
  // A stack of products: one launch over the whole stack, m19 (m08's kernel along the grid's z)
  // where it was measured faster, cuBLAS's strided batch (torch.bmm's) where m19 was slower:
  // f32 products of 512 a side and more, and f64, which cuBLAS runs on the fp64 tensor cores.
  // H200, device-resident, one process (bench/results/h200-2026-11-29-argmax-axes-abdb009.txt, its
  // sections on stacks): f32 4096 x 128^3 m19 434 us
  // against cuBLAS's 463; 256 x 512^3 1554 against 1377; 64 x 1024^3 3030 against 2719; f64
  // 1024 x 128^3 m19 0.64x cuBLAS.
  if (p.batch > 1) {
    if (p.type == dtype::f64 || std::min({p.m, p.n, p.k}) >= 512)
      return {"matmul/cuda/m00_cublas", "matmul/cuda/m19_stack_one_launch"};
    return {"matmul/cuda/m19_stack_one_launch"};
  }
  // A vector operand: the product is a reduction, read-bound (m17 A x, m18 x B).
  if (p.n == 1) return {"matmul/cuda/m17_matrix_times_vector", "matmul/cuda/m08_double_buffered"};
  if (p.m == 1) return {"matmul/cuda/m18_vector_times_matrix", "matmul/cuda/m08_double_buffered"};
  std::vector<std::string_view> out;
  // m13 runs one block per SM and slices K itself where the tiles are fewer than the SMs; it
  // runs f64 on sm_90 alone (its can_run), elsewhere f64 takes the SIMT table.
  if (p.type == dtype::f64 && (tiles >= sms || p.k >= 512))
    out.push_back("matmul/cuda/m13_f64_tensor_cores");
  if (p.type == dtype::f32 && p.k >= 512) out.push_back("matmul/cuda/m15_wide_async");
  if (tiles >= 2 * sms) {
    // m08's interior kernel wants whole 128 x 128 x 16 tiles; m12 pads odd sizes into them.
    if (p.m % 128 || p.n % 128 || p.k % 16) out.push_back("matmul/cuda/m12_padded_whole_tiles");
  } else if (p.k >= 512) {
    out.push_back("matmul/cuda/m10_split_k");
  } else {
    out.push_back("matmul/cuda/m08_double_buffered_64x64");
  }
  // Where the scratch of those above does not fit: m08, which needs none.
  out.push_back("matmul/cuda/m08_double_buffered");
  return out;
}

// The packed micro-kernel's time over OpenBLAS's for one product of type t, on 512 x 512 x 256:
// three blocks of A's rows (the general path, not the short product's), one block of K. Each
// rung's fastest run of its blocks (m03's before and after OpenBLAS's, the first run of each
// block not counted): run just after the other, a rung shares the cores with the other's
// threads, which spin a while after a call.
double packed_over_openblas(dtype t) {
  const matmul_rung* own = find<matmul_rung>("matmul/cpu/m03_packed_microkernel");
  const matmul_rung* vendor = find<matmul_rung>("matmul/cpu/m00_openblas");
  if (!own || !vendor) return 1.0;
  constexpr std::size_t m = 512, n = 512, k = 256;
  const std::size_t e = size_of(t);
  std::vector<unsigned char> a(m * k * e), b(k * n * e), c(m * n * e);
  const auto fill = [&](std::vector<unsigned char>& v) {
    for (std::size_t i = 0; i < v.size() / e; ++i) {
      const double x = double(i % 7) * 0.25 - 0.75;
      if (t == dtype::f32) reinterpret_cast<float*>(v.data())[i] = float(x);
      else reinterpret_cast<double*>(v.data())[i] = x;
    }
  };
  fill(a), fill(b);
  matmul_call call{};
  call.p = {t, m, n, k}, call.alpha = 1.0, call.beta = 0.0;
  call.a = a.data(), call.lda = k, call.b = b.data(), call.ldb = n, call.c = c.data(), call.ldc = n;
  const auto timed = [&](const matmul_rung& r, double& best) {
    const auto start = std::chrono::steady_clock::now();
    run_rung(r, call);
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  double own_s = 1e30, vendor_s = 1e30;
  const auto block = [&](const matmul_rung& r, double& best) {
    double first = 1e30;
    timed(r, first);
    for (int i = 0; i < 3; ++i) timed(r, best);
  };
  block(*own, own_s), block(*vendor, vendor_s), block(*own, own_s);
  return own_s / vendor_s;
}

}  // namespace

// Measured once a process for each type (f32 24 ms, f64 42 ms at the first such product on the
// 2-core EPYC, OpenBLAS loaded, most of it both rungs' first runs). Which of the two is faster
// depends on the core and on the product's size, not only on the ISA:
// - on an AMD EPYC of family 26 (Zen 5), whose 512-bit units are whole, m03's 512-bit kernel ran
//   1.54-2.06x numpy.matmul at 512-2048 (f32 and f64) where Debian's OpenBLAS took its Haswell
//   (AVX2) kernels; on the Zen 4 EPYC before it, which splits 512-bit operations in two, m03 was
//   0.92-1.01x OpenBLAS (f64 0.87-0.93x) at 2048^3
//   (bench/results/cpu-2core-2026-11-29-python-vs-host-3c7017c.txt, its last sections);
// - on a 2-core EPYC with AVX2 alone, m03 (256-bit, as OpenBLAS's kernel) ran 1.08-1.21x
//   OpenBLAS up to 1024 x 1024 x 256 (f64 512^3 0.95x), 0.98-1.06x at 768^3 and 1024^3, 0.90-0.95x
//   from 2048^3 (f32 and f64): OpenBLAS's blocking holds its rate on large products, m03's stays at
//   140-144 GFLOP/s (the same record, its 2026-12-02 section). There the probe below read m03
//   at 0.70-0.87x OpenBLAS's time, process to process: a single 0.8x margin for every size flipped
//   the pick of large products between processes (pplab.matmul 0.86-0.88x numpy.matmul at f32
//   2048^3 and 4096^3 in the processes where it took m03); at 1024^3 m03 was a tie at best (f64
//   0.89-0.93x numpy.matmul beside numpy's calls, a stack of 8 included).
// So products of fewer than 2^30 multiply-adds (below 1024^3) run m03 where the probe took at
// most 0.95x OpenBLAS's time; larger ones only where the build's vectors are 512 bits and the
// probe took at most 0.8x (a 256-bit m03 does not outrun a 256-bit OpenBLAS kernel there, and a
// near tie keeps OpenBLAS, so that noise does not flip the pick between runs).
bool packed_kernel_outruns_openblas(const matmul_problem& p) {
  const auto ratio = [](dtype t) {
    static const double f32 = packed_over_openblas(dtype::f32);
    if (t == dtype::f32) return f32;
    static const double f64 = packed_over_openblas(dtype::f64);
    return f64;
  };
  if (double(p.m) * double(p.n) * double(p.k) < double(std::size_t(1) << 30))
    return ratio(p.type) <= 0.95;
#ifdef __AVX512F__
  return ratio(p.type) <= 0.8;
#else
  return false;
#endif
}

std::vector<std::string_view> policy(backend b, const matmul_problem& p) {
  switch (b) {
  case backend::seq:
    return {"matmul/seq/m01_triple_loop"};
  case backend::cpu: {
    // OpenBLAS where it is built, but for x B (above) and for small products (to 256^3
    // multiply-adds), which a stack shares among the threads one product to each: OpenBLAS's
    // own threads would contend with them (on 16 threads, 64 products of 128^3 one after another
    // through OpenBLAS: 0.68x numpy.matmul), and a product alone runs the stack's rung; and
    // but for products of two matrices where m03 outruns it on this machine (above).
    std::vector<std::string_view> out;
    // A tall A times a B of at most 4 x 4 (points @ R): m07, which moves A and C once (2-core
    // EPYC with AVX2: see m07's file), whatever the height; OpenBLAS runs it as a GEMM.
    const bool tiny_b = p.k <= 4 && p.n <= 4;
    if (tiny_b) out.push_back("matmul/cpu/m07_tall_times_tiny");
    constexpr std::string_view openblas = "matmul/cpu/m00_openblas";
    if (p.m != 1 && !small_product(p) && !tiny_b && find<matmul_rung>(openblas) &&
        (p.n == 1 || !packed_kernel_outruns_openblas(p)))
      out.push_back(openblas);
    // A product with one column (A x) or one row (x B) is a reduction, not a GEMM: m04 or m05
    // (each runs only its shape).
    // A product of sides to 64 (a stack's, mostly): m06, which packs nothing.
    for (std::string_view id :
         {"matmul/cpu/m04_matrix_times_vector", "matmul/cpu/m05_vector_times_matrix",
          "matmul/cpu/m06_small_products", "matmul/cpu/m03_packed_microkernel"})
      out.push_back(id);
    return out;
  }
  case backend::cuda:
    return cuda_policy(p);
  case backend::nccl:
    return {"matmul/nccl/m02_broadcast_overlapped", "matmul/nccl/m03_summa"};
  case backend::mpi:
    return {"matmul/mpi/m01_summa"};
  }
  unknown_backend(b);
}

// split_tf32 (f32 as three TF32 products, opt-in): a stack in m20 or m14 (below); one product in
// m16's warpgroup products where C has a tile of 128 x 128 for every SM (m16 runs one block an SM
// and never slices K), else m14, which slices K for few tiles; each the other's fallback where it
// cannot run (m16 and m20 need sm_90a).
std::vector<std::string_view> split_tf32_policy(backend b, const matmul_problem& p) {
  if (b != backend::cuda) return {};
  const std::size_t tiles = ceil_div(p.m, 128) * ceil_div(p.n, 128);
  constexpr std::string_view m14 = "matmul/cuda/m14_f32_split_tf32",
                             m16 = "matmul/cuda/m16_f32_split_tf32_wgmma",
                             m20 = "matmul/cuda/m20_f32_split_tf32_wgmma_fused";
  // A stack: m20's split inside the kernel where K is long enough to fill its pipeline (H200:
  // 256 x 512^3 0.870 ms against m14's 1.043); m14 for short K (4096 x 128^3: m20 0.329, m14
  // 0.290: four K steps, one block an SM). m16 multiplies one product; its first pass over a
  // stack would move more than the products take.
  if (p.batch > 1) {
    if (p.k >= 512) return {m20, m14};
    return {m14, m20};
  }
  if (tiles >= std::size_t(gpu().sm_count)) return {m16, m14};
  return {m14, m16};
}

std::string tune_key(const matmul_problem& p) {
  return std::string(name_of(p.type)) + " m~" + size_class(p.m) + " n~" + size_class(p.n) + " k~" +
         size_class(p.k) + (p.batch > 1 ? " stack~" + size_class(p.batch) : "");
}

}  // namespace pplab::detail
