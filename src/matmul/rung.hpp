#pragma once
// The matmul module's types: what a matmul rung is asked (the problem), where its matrices are
// (the call), its ladder's policy, and the run path the API, the CLI, the lab and the tests share.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/run.hpp"
#include "pplab/dtype.hpp"
#include "pplab/matmul.hpp"

namespace pplab::detail {

struct matmul_problem {
  static constexpr std::string_view pattern = "matmul";
  dtype type;  // f32 or f64
  std::size_t m, n, k;
  // A stack of `batch` products of this shape (numpy.matmul's 3-D operands, matmul_batched):
  // only the stack rungs run more than one (one_float_product refuses them for the others).
  std::size_t batch = 1;
};
struct matmul_call {
  matmul_problem p;
  double alpha, beta;
  const void* a;
  std::size_t lda;
  const void* b;
  std::size_t ldb;
  void* c;
  std::size_t ldc;
  void* scratch;
  void* stream;
  // A stack's (p.batch > 1): elements from one product's matrix to the next; 0 gives every
  // product the same matrix (a broadcast operand).
  std::size_t stride_a = 0, stride_b = 0, stride_c = 0;
};
using matmul_rung = basic_rung<matmul_problem, matmul_call>;

// A small product: at most 256^3 multiply-adds. On the cpu a stack of them is shared among the
// threads, one product to each (matmul_batched), and the policy runs the ladder's own rungs for
// them, so that each product of a stack is the same bits as alone.
inline bool small_product(const matmul_problem& p) {
  return double(p.m) * double(p.n) * double(p.k) <= double(1 << 24);
}
// The ladder: defined by the build from the backend folders compiled (cmake/patterns.cmake).
template <> const std::vector<matmul_rung>& rungs_of<matmul_rung>();
template <> const std::vector<matmul_rung>& rungs_on<matmul_rung>(backend b);

// The problem's class for `pplab tune`'s choices (pplab/tuning.hpp), such as "f32 m~2^12 n~2^12
// k~2^12".
std::string tune_key(const matmul_problem& p);

// Whether the cpu's product p of two matrices (neither a vector nor small) runs the ladder's
// packed micro-kernel (m03) rather than OpenBLAS, where OpenBLAS is built: by m03's time over
// OpenBLAS's on one 512 x 512 x 256 product of p's type, measured once a process: at most 0.95x
// for products of fewer than 2^30 multiply-adds, at most 0.8x and 512-bit vectors for larger
// ones (policy.cpp).
bool packed_kernel_outruns_openblas(const matmul_problem& p);

// The API's rungs for backend b, in order of preference (policy.cpp).
std::vector<std::string_view> policy(backend b, const matmul_problem& p);
// The rungs of the split-TF32 precision (opt-in: the variant "split_tf32" names it), in order of
// preference; none off the GPU.
std::vector<std::string_view> split_tf32_policy(backend b, const matmul_problem& p);

// The call's pointers are host memory; its scratch and stream are ignored. Through the executor
// of r's backend (or `ex`): in place on the host, the matrices copied row by row elsewhere.
void run_rung(const matmul_rung& r, const matmul_call& host_call);
void run_rung(const matmul_rung& r, executor& ex, const matmul_call& host_call);

}  // namespace pplab::detail
