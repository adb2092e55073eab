// reduce/nccl/r04_exact_totals_to_host: the exact sum over a process's GPUs. Each GPU takes the
// exact total of its slice with the cuda backend's exact rung (r13: the long integer before its
// rounding, 320 bytes), copies it to pinned host memory on its own stream, and the host adds
// the totals as integers once every stream has finished: the same bits as one GPU, the host
// backends and any rank count of mpi, whatever the GPU count. r03's path for the plain sum, with
// totals for partials. A job of processes cannot reach the other processes' GPUs: not there yet
// (the totals would travel by an all-gather of their bytes).
#include "core/nccl/world.hpp"
#include "core/run.hpp"
#include "reduce/nccl/reduce_nccl.hpp"

namespace pplab::detail::reduce_nccl {

namespace {

bool can_run(const reduce_problem& p) { return exact_problems(p) && !nccl::job_of_processes(); }

// Pinned host memory, kept between calls: one total per GPU of this process, then the answer's.
exact_total* pinned_totals() {
  static exact_total* slots = [] {
    void* p = nullptr;
    PPLAB_CUDA(cudaMallocHost(&p, (nccl::members().size() + 1) * sizeof(exact_total)));
    return static_cast<exact_total*>(p);
  }();
  return slots;
}

void run(const reduce_call& c) {
  const nccl::gpu_array& in = nccl::array_at(c.in);
  const std::size_t e = size_of(c.p.type);
  exact_total* host = pinned_totals();
  std::vector<nccl::device_buffer> totals(nccl::members().size()), scratches(totals.size());
  nccl::each_agreed([&](std::size_t k, const nccl::member& m) {
    reduce_problem q = c.p;
    q.n = in.slices[k].bytes / e;
    host[k] = exact_total{};  // an empty slice adds nothing
    if (q.n == 0) return;
    const reduce_rung& r = default_rung<reduce_rung>(backend::cuda, q);
    totals[k] = nccl::device_buffer(m, sizeof(exact_total));
    scratches[k] = nccl::device_buffer(m, std::max<std::size_t>(r.scratch(q), 256), 256);
    r.run({q, in.slices[k].data, totals[k].as<scalar>(), scratches[k].get(), m.stream});
    PPLAB_CUDA(cudaMemcpyAsync(&host[k], totals[k].get(), sizeof(exact_total),
                               cudaMemcpyDeviceToHost, m.stream));
  });
  nccl::synchronize();
  exact_total& whole = host[totals.size()];
  whole = exact_total{};
  for (std::size_t k = 0; k < totals.size(); ++k) whole.merge(host[k]);
  write_answer(c, &whole, sizeof whole);
}

}  // namespace

extern const reduce_rung r04_exact_totals_to_host{
    .info = {.step = 4,
             .summary = "exact: each GPU's exact total copied to the host, added as integers "
                        "(one process)"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::reduce_nccl
