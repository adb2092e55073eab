#pragma once
// The nccl backend's view of its GPUs. Two ways to run, chosen when the backend starts:
// - one process drives every GPU of the host: one communicator per GPU from ncclCommInitAll,
//   collectives issued for all of them inside one ncclGroupStart/End;
// - one process per GPU, started by mpirun: each process takes the GPU of its place on the host
//   (its rank among the host's ranks), and the NCCL id travels from rank 0 over MPI.
// Either way a process has a list of members, one per GPU it drives, each with its place in the
// job (its rank among all the job's GPUs), its communicator and its stream. The GPUs are assumed
// to be of one kind (the cuda rungs size their grids once): the backend refuses a mixed host.
#include <cuda_runtime.h>
#include <nccl.h>

#include <exception>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda/check.cuh"

namespace pplab::detail::nccl {

struct member {
  int device = 0;  // the CUDA device
  int rank = 0;    // its place among the job's GPUs, 0 .. world_size() - 1
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaStream_t side = nullptr;  // for transfers overlapped with the work on `stream`
};

// Empty when the backend can run here (two GPUs or more in the job); else why it cannot.
std::string why_absent();
// The GPUs this process drives, in rank order; the communicators are made on the first call.
const std::vector<member>& members();
int world_size();    // the GPUs of the whole job
bool one_process();  // false: one process per GPU under mpirun
// The same answer as !one_process(), from the launch alone: no GPU or communicator is touched
// (for a rung's can_run, asked where the backend may not be usable).
bool job_of_processes();
// One process drives every GPU, at most most_peer_gpus of them, and each can read and write the
// others' memory directly (peer access over NVLink or PCIe): a kernel on one GPU may then use the
// stream-ordered pool memory of another (each pool is opened to the others when the backend
// starts), every GPU's pointer among its arguments. Touches no communicator.
inline constexpr int most_peer_gpus = 32;
bool peers_reach_each_other();
// This process's rank and the job's process count (0 and 1 when one process drives all).
int process_rank();
int processes();

[[noreturn]] void nccl_fail(ncclResult_t r, const char* call, const char* file, int line);

// The order in which each() visits the members: theirs, or the first one last (work enqueued on
// its stream right after, a join of every GPU's results, then waits for no GPU that started later:
// from one host thread, the GPU enqueued last starts last).
enum class visit { in_order, first_last };

// Runs f(m), or f(i, m) with m = members()[i], for every member with m.device current; the
// caller's device is restored after.
template <class F> void each(F&& f, visit order = visit::in_order) {
  int was = 0;
  PPLAB_CUDA(cudaGetDevice(&was));
  struct restore {
    int d;
    ~restore() { cudaSetDevice(d); }
  } back{was};
  const std::vector<member>& ms = members();
  for (std::size_t j = 0; j < ms.size(); ++j) {
    const std::size_t i = order == visit::first_last ? (j + 1) % ms.size() : j;
    PPLAB_CUDA(cudaSetDevice(ms[i].device));
    if constexpr (std::is_invocable_v<F&, std::size_t, const member&>) f(i, ms[i]);
    else f(ms[i]);
  }
}

// f(i, members()[i]) on one host thread per member, each with its device current, all joined
// before it returns (the first error rethrown). For the local phase of a rung: a cuda rung of
// many launches on one GPU must not hold back the next GPU's (a full launch queue blocks the
// thread that fills it), and copies from pageable host memory run at once on every GPU.
void in_parallel(const std::function<void(std::size_t, const member&)>& f);

// Before a collective, every process of a job brings the outcome of its own work: if any failed,
// every process throws that error (a process going on alone into a collective would hang). One
// process: its own error is rethrown.
void agree(const std::exception_ptr& local_error);

// each(f) as the local phase before a collective: its outcome agreed on (agree).
template <class F> void each_agreed(F&& f, visit order = visit::in_order) {
  std::exception_ptr failed;
  try {
    each(f, order);
  } catch (...) {
    failed = std::current_exception();
  }
  agree(failed);
}

// Waits for every member's stream; throws if queued work failed.
void synchronize();

}  // namespace pplab::detail::nccl

#define PPLAB_NCCL(call)                                                                           \
  do {                                                                                             \
    const ncclResult_t pplab_r_ = (call);                                                          \
    if (pplab_r_ != ncclSuccess)                                                                   \
      ::pplab::detail::nccl::nccl_fail(pplab_r_, #call, __FILE__, __LINE__);                       \
  } while (0)
