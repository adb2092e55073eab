// NCCL between the processes of an mpirun job, without pplab: the transport that the nccl
// backend's job mode rides on. On 2 H200s it ran 318-350 GB/s under every binding and option
// below, which showed that the job's m03 at 0.15-0.18x one GPU (and its all-reduce probe at
// 1.2 GB/s) were the lab timing a first call, NCCL's set-up, not the transport (docs/nccl.md;
// bench/results/h200x2-2026-11-30-nccl-961c9ad.txt). Each rank takes the GPU of its
// rank, then times an all-reduce of 1 GiB of floats, a broadcast of 256 MiB and a 4-byte
// all-reduce: the host's clock around the call and the wait (median of 5 after a warm-up, a
// barrier before each) and CUDA events. Prints each rank's CPU affinity, so that runs under
// different `mpirun --bind-to` settings can be told apart.
// Usage: mpirun -n G nccl_job_probe [blocking] [pool] [thread]   ("blocking": the host waits
// asleep, cudaDeviceScheduleBlockingSync, instead of spinning on the CPU it may share with NCCL's
// threads; "pool": the buffer from the device's stream-ordered pool, cudaMallocAsync, with freed
// memory kept, as pplab's nccl executor takes its buffers; "thread": MPI_Init_thread with
// MPI_THREAD_FUNNELED, as pplab starts MPI). Built on demand: cmake --build BUILD --target
// nccl_job_probe.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

void check(bool ok, const char* what, const char* why, int line) {
  if (ok) return;
  std::fprintf(stderr, "%s failed: %s (line %d)\n", what, why, line);
  MPI_Abort(MPI_COMM_WORLD, 1);
}
#define CUDA_OK(x)                                                                                 \
  do {                                                                                             \
    const cudaError_t e_ = (x);                                                                    \
    check(e_ == cudaSuccess, #x, cudaGetErrorString(e_), __LINE__);                                \
  } while (0)
#define NCCL_OK(x)                                                                                 \
  do {                                                                                             \
    const ncclResult_t e_ = (x);                                                                   \
    check(e_ == ncclSuccess, #x, ncclGetErrorString(e_), __LINE__);                                \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  const auto asked = [&](const char* what) {
    for (int i = 1; i < argc; ++i)
      if (!std::strcmp(argv[i], what)) return true;
    return false;
  };
  const bool blocking = asked("blocking"), pool = asked("pool"), funneled = asked("thread");
  int provided = 0;
  if (funneled) MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  else MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cpu_set_t cpus;
  sched_getaffinity(0, sizeof cpus, &cpus);
  if (blocking) CUDA_OK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  check(rank < count, "choosing a GPU", "more ranks than GPUs", __LINE__);
  CUDA_OK(cudaSetDevice(rank));
  std::printf("rank %d: GPU %d, %d CPUs in its affinity%s%s%s\n", rank, rank, CPU_COUNT(&cpus),
              blocking ? ", blocking sync" : "", pool ? ", pool memory" : "",
              funneled ? ", MPI_THREAD_FUNNELED" : "");
  ncclUniqueId id{};
  if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, int(sizeof id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm = nullptr;
  NCCL_OK(ncclCommInitRank(&comm, size, id, rank));
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::size_t bytes = std::size_t(1) << 30;
  void* buf = nullptr;
  if (pool) {
    cudaMemPool_t p;
    CUDA_OK(cudaDeviceGetDefaultMemPool(&p, rank));
    std::uint64_t keep = ~std::uint64_t(0);
    CUDA_OK(cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep));
    CUDA_OK(cudaMallocAsync(&buf, bytes, stream));
    CUDA_OK(cudaMemsetAsync(buf, 0, bytes, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
  } else {
    CUDA_OK(cudaMalloc(&buf, bytes));
    CUDA_OK(cudaMemset(buf, 0, bytes));
  }
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  // bus: the bytes each GPU moves per byte of data (2(G-1)/G for an all-reduce, 1 otherwise).
  const auto probe = [&](const char* what, std::size_t data, double bus, auto&& op) {
    std::vector<double> host, events;
    for (int rep = 0; rep < 6; ++rep) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      CUDA_OK(cudaEventRecord(start, stream));
      op();
      CUDA_OK(cudaEventRecord(stop, stream));
      CUDA_OK(cudaStreamSynchronize(stream));
      const auto t1 = std::chrono::steady_clock::now();
      float ms = 0;
      CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
      if (rep) host.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (rep) events.push_back(ms);
    }
    std::sort(host.begin(), host.end());
    std::sort(events.begin(), events.end());
    const double h = host[host.size() / 2];
    std::printf("rank %d %-22s host %9.3f ms, events %9.3f ms, bus %7.1f GB/s\n", rank, what, h,
                events[events.size() / 2], double(data) * bus / (h * 1e-3) * 1e-9);
  };
  const double all_reduce_bus = 2.0 * (size - 1) / size;
  probe("all-reduce 1 GiB f32", bytes, all_reduce_bus,
        [&] { NCCL_OK(ncclAllReduce(buf, buf, bytes / 4, ncclFloat32, ncclSum, comm, stream)); });
  probe("broadcast 256 MiB", bytes / 4, 1.0,
        [&] { NCCL_OK(ncclBroadcast(buf, buf, bytes / 4, ncclUint8, 0, comm, stream)); });
  probe("all-reduce 4 B", 4, all_reduce_bus,
        [&] { NCCL_OK(ncclAllReduce(buf, buf, 1, ncclFloat32, ncclSum, comm, stream)); });
  NCCL_OK(ncclCommDestroy(comm));
  if (pool) {
    CUDA_OK(cudaFreeAsync(buf, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
  } else {
    CUDA_OK(cudaFree(buf));
  }
  MPI_Finalize();
  return 0;
}
