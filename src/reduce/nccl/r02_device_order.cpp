// reduce/nccl/r02_device_order: each GPU reduces its slice with the cuda backend's best rung,
// then one ncclAllGather of the 32-byte partials gives every GPU all of them, and they are
// joined on the host in the GPUs' order (rank 0, 1, ...), as the mpi backend's r04 does. Still
// one small collective, but the float answer depends only on the GPU count (where the slices
// begin), never on NCCL's algorithm: the same bits on every run, every operator (NaN rule,
// weighted means) kept. The API's choice.
// 2 x H200 (docs/nccl.md): 2^30 f32 per GPU in 0.991 ms, 1.89x one GPU on the whole; a whole
// call on 2^20 per GPU 59 us (r01 57 us; a bare 4-byte all-reduce 23 us).
// Measured (2 x H200 joined by NVLink, bench/results/h200x2-2026-11-23-nccl-7c46775.json, against
// one GPU on the whole problem in the same run, whole calls): f32 sum, 2^30 values per GPU, 0.991
// ms against 1.876, 1.89x; a whole call of 2^20 values per GPU 59 us beside a 23 us 4-byte
// all-reduce.
#include "reduce/nccl/reduce_nccl.hpp"

namespace pplab::detail::reduce_nccl {

namespace {

void run(const reduce_call& c) {
  std::vector<nccl::device_buffer> parts = local_partials(c);
  const std::vector<nccl::member>& ms = nccl::members();
  const std::size_t gpus = std::size_t(nccl::world_size());
  std::vector<nccl::device_buffer> all;
  nccl::each([&](const nccl::member& m) { all.emplace_back(m, gpus * sizeof(partial)); });
  PPLAB_NCCL(ncclGroupStart());
  for (std::size_t i = 0; i < ms.size(); ++i)
    PPLAB_NCCL(ncclAllGather(parts[i].get(), all[i].get(), sizeof(partial), ncclUint8, ms[i].comm,
                             ms[i].stream));
  PPLAB_NCCL(ncclGroupEnd());
  std::vector<partial> host(gpus);
  PPLAB_CUDA(cudaSetDevice(ms[0].device));
  PPLAB_CUDA(cudaMemcpyAsync(host.data(), all[0].get(), gpus * sizeof(partial),
                             cudaMemcpyDeviceToHost, ms[0].stream));
  PPLAB_CUDA(cudaStreamSynchronize(ms[0].stream));
  put_answer(c, reduce_parts::in_order(host.data(), int(gpus)));
}

}  // namespace

extern const reduce_rung r02_device_order{
    .info = {.step = 2,
             .summary = "partials all-gathered, joined in GPU order: the same bits every run"},
    .can_run = value_ops,
    .run = run,
};

}  // namespace pplab::detail::reduce_nccl
