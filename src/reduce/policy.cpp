// The reduction rung the API runs, per backend: the fastest deterministic rung of each ladder
// (measured in docs/reduce.md). The cpu rung r03 gives the same bits whatever the thread count;
// the cuda rung r12 does the whole reduction in one launch and combines in block order.
#include "core/run.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail {

std::vector<std::string_view> policy(backend b, const reduce_problem& asked) {
  const reduce_problem p = as_asked(asked);  // a nan op of integers: its plain op
  if (p.exact) {                             // the exact rungs: the bins where they are the fastest
    switch (b) {
    case backend::seq:
      return {"reduce/seq/r03_exact_bins"};
    case backend::cpu:
      return {"reduce/cpu/r04_exact_bins_per_thread"};
    case backend::cuda:
      return {"reduce/cuda/r13_exact_windows"};
    case backend::mpi:
      return {"reduce/mpi/r05_exact_totals"};
    case backend::nccl:
      return {"reduce/nccl/r04_exact_totals_to_host"};
    }
  }
  if (is_moments(p.what)) {  // var and std: the rungs that merge (count, mean, M2) triples
    switch (b) {
    case backend::seq:
      return {"reduce/seq/r04_moments_in_blocks"};
    case backend::cpu:
      return {"reduce/cpu/r05_moments_in_blocks"};
    case backend::mpi:
      return {"reduce/mpi/r06_moments_allgather"};
    default:
      break;
    }
  }
  switch (b) {
  case backend::seq:
    return {"reduce/seq/r01_sequential_loop"};
  case backend::cpu:
    return {"reduce/cpu/r03_simd_accumulators"};
  case backend::cuda:
    return {"reduce/cuda/r12_last_block_finishes"};
  case backend::nccl:
    // The combines whose float answer does not depend on NCCL's algorithm: in one process joined
    // on GPU 0 (where the GPUs reach each other's memory) or on the host, in a job of processes
    // all-gathered.
    return {"reduce/nccl/r05_joined_on_first_gpu", "reduce/nccl/r03_partials_to_host",
            "reduce/nccl/r02_device_order"};
  case backend::mpi:
    // The only combine whose float answer does not depend on the library's algorithm.
    return {"reduce/mpi/r04_ordered_allgather"};
  }
  unknown_backend(b);
}

std::string tune_key(const reduce_problem& p) {
  return std::string(name_of(p.type)) + " " + std::string(name_of(p.what)) +
         (p.exact ? " exact" : "") + " n~" + size_class(p.n);
}

}  // namespace pplab::detail
