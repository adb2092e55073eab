// reduce/nccl/r01_allreduce_partials: each GPU reduces its slice with the cuda backend's best
// rung, then one ncclAllReduce of the 8-byte partials (NCCL's own sum, product, min or max) leaves
// the answer on every GPU. The simplest combine, and the one a user of NCCL writes first; but the
// order in which NCCL adds the partials is its algorithm's, so a float sum is not promised the
// same bits on every GPU count and version: never the API's choice. NCCL has no operator that
// keeps pplab's NaN rule for float min and max, nor a weighted mean: those problems are r02's.
// The combine costs one small all-reduce: its latency (the lab's nccl_latency_us), beside a
// slice's read time. 2 x H200: 2^30 f32 per GPU in 0.990 ms, 1.90x one GPU (docs/nccl.md).
// Measured (2 x H200 joined by NVLink, bench/results/h200x2-2026-11-23-nccl-7c46775.json, against
// one GPU on the whole problem in the same run, whole calls): f32 sum, 2^30 values per GPU, 0.990
// ms against 1.876, 1.90x.
#include <cstddef>

#include "reduce/nccl/reduce_nccl.hpp"

namespace pplab::detail::reduce_nccl {

namespace {

bool can_run(const reduce_problem& p) {
  if (p.exact || p.what == op::mean || is_arg(p.what) || is_moments(p.what) || skips_nan(p.what))
    return false;
  return !(is_float(p.type) && (p.what == op::min || p.what == op::max));
}

void run(const reduce_call& c) {
  std::vector<nccl::device_buffer> parts = local_partials(c);
  ncclDataType_t type = ncclFloat64;
  if (c.p.what == op::count_nonzero) type = ncclUint64;  // counts of any dtype
  else if (!is_float(c.p.type))
    type = is_signed_int(c.p.type) && (c.p.what == op::min || c.p.what == op::max) ? ncclInt64
                                                                                   : ncclUint64;
  // Sums and products wrap modulo 2^64 alike for signed and unsigned integers.
  const ncclRedOp_t how = c.p.what == op::sum || c.p.what == op::count_nonzero ? ncclSum
                          : c.p.what == op::product ? ncclProd
                          : c.p.what == op::min     ? ncclMin
                                                    : ncclMax;
  const std::vector<nccl::member>& ms = nccl::members();
  PPLAB_NCCL(ncclGroupStart());
  for (std::size_t i = 0; i < ms.size(); ++i) {
    char* value = parts[i].as<char>() + offsetof(partial, value) + offsetof(scalar, f);
    PPLAB_NCCL(ncclAllReduce(value, value, 1, type, how, ms[i].comm, ms[i].stream));
  }
  PPLAB_NCCL(ncclGroupEnd());
  partial all;
  PPLAB_CUDA(cudaSetDevice(ms[0].device));
  PPLAB_CUDA(
      cudaMemcpyAsync(&all, parts[0].get(), sizeof all, cudaMemcpyDeviceToHost, ms[0].stream));
  PPLAB_CUDA(cudaStreamSynchronize(ms[0].stream));
  all.n = c.p.n;
  put_answer(c, all);
}

}  // namespace

extern const reduce_rung r01_allreduce_partials{
    .info = {.step = 1,
             .summary = "one ncclAllReduce of the GPUs' partials (float order: NCCL's)",
             .reproducible = false},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::reduce_nccl
