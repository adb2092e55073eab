// The nccl backend's GPUs and communicators (see world.hpp).
#include "core/nccl/world.hpp"

#include <cstdlib>
#include <mutex>
#include <thread>

#include "pplab/error.hpp"
#ifdef PPLAB_HAVE_MPI
#include "core/mpi/world.hpp"
#endif

namespace pplab::detail::nccl {
namespace {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

// A launcher's rank count before MPI starts (1 when no launcher started this process).
int launcher_size() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"})
    if (const char* s = std::getenv(v)) return std::max(1, std::atoi(s));
  return 1;
}

bool in_job() {
#ifdef PPLAB_HAVE_MPI
  return mpi::launched() && mpi::size() > 1;
#else
  return false;
#endif
}

// The rank of this process among the ranks on its host: which GPU it takes.
int host_rank() {
#ifdef PPLAB_HAVE_MPI
  MPI_Comm host;
  mpi::check(MPI_Comm_split_type(mpi::comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host),
             "MPI_Comm_split_type");
  int r = 0;
  MPI_Comm_rank(host, &r);
  MPI_Comm_free(&host);
  return r;
#else
  return 0;
#endif
}

std::string same_kind_or_why(int count) {
  cudaDeviceProp first{}, other{};
  if (cudaGetDeviceProperties(&first, 0) != cudaSuccess) return "cannot read device 0";
  for (int d = 1; d < count; ++d) {
    if (cudaGetDeviceProperties(&other, d) != cudaSuccess)
      return "cannot read device " + std::to_string(d);
    if (std::string(other.name) != first.name ||
        other.multiProcessorCount != first.multiProcessorCount)
      return "its GPUs differ (device 0 is " + std::string(first.name) + ", device " +
             std::to_string(d) + " " + other.name +
             "); choose GPUs of one kind with CUDA_VISIBLE_DEVICES";
  }
  return {};
}

struct world {
  std::vector<member> members;
  int size = 0;
  bool one_process = true;
  int process_rank = 0, processes = 1;
};

// Keep freed pool memory on each GPU for the next call instead of handing it back at every sync:
// all of it (a rung's scratch can pass a GiB; mapping it again at every call costs a sync).
void keep_pool(int device) {
  cudaMemPool_t pool;
  PPLAB_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t keep = ~std::uint64_t(0);
  PPLAB_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
}

world start() {
  const std::string why = why_absent();
  if (!why.empty()) fail(errc::unsupported, "backend 'nccl' is not usable here: " + why);
  world w;
  if (!in_job()) {
    const int count = device_count();
    std::vector<int> devices(std::size_t(count), 0);
    std::vector<ncclComm_t> comms(std::size_t(count), nullptr);
    for (int d = 0; d < count; ++d) devices[std::size_t(d)] = d;
    PPLAB_NCCL(ncclCommInitAll(comms.data(), count, devices.data()));
    for (int d = 0; d < count; ++d)
      w.members.push_back({d, d, comms[std::size_t(d)], nullptr, nullptr});
    w.size = count;
  } else {
#ifdef PPLAB_HAVE_MPI
    w.one_process = false;
    w.process_rank = mpi::rank(), w.processes = mpi::size();
    const int device = host_rank();
    ncclUniqueId id{};
    if (w.process_rank == 0) PPLAB_NCCL(ncclGetUniqueId(&id));
    mpi::check(MPI_Bcast(&id, int(sizeof id), MPI_BYTE, 0, mpi::comm()), "MPI_Bcast");
    PPLAB_CUDA(cudaSetDevice(device));
    ncclComm_t comm = nullptr;
    PPLAB_NCCL(ncclCommInitRank(&comm, w.processes, id, w.process_rank));
    w.members.push_back({device, w.process_rank, comm, nullptr, nullptr});
    w.size = w.processes;
#endif
  }
  int was = 0;
  PPLAB_CUDA(cudaGetDevice(&was));
  for (member& m : w.members) {
    PPLAB_CUDA(cudaSetDevice(m.device));
    PPLAB_CUDA(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
    PPLAB_CUDA(cudaStreamCreateWithFlags(&m.side, cudaStreamNonBlocking));
    keep_pool(m.device);
    // Peer copies between this process's GPUs (the arrays' slices, all from the stream-ordered
    // pools) go over NVLink directly once each pool is open to the other GPUs.
    for (const member& other : w.members) {
      int can = 0;
      if (other.device == m.device ||
          cudaDeviceCanAccessPeer(&can, m.device, other.device) != cudaSuccess || !can)
        continue;
      cudaMemPool_t theirs;
      PPLAB_CUDA(cudaDeviceGetDefaultMemPool(&theirs, other.device));
      cudaMemAccessDesc access{};
      access.location.type = cudaMemLocationTypeDevice;
      access.location.id = m.device;
      access.flags = cudaMemAccessFlagsProtReadWrite;
      PPLAB_CUDA(cudaMemPoolSetAccess(theirs, &access, 1));
    }
  }
  // Under mpirun the process's GPU stays current: the cuda backend's memory and streams, made
  // on the current device, are then on the GPU this rank drives.
  if (w.one_process) PPLAB_CUDA(cudaSetDevice(was));
  return w;
}

const world& the_world() {
  static const world w = start();
  return w;
}

}  // namespace

namespace {

// In a job, every rank's verdict together (collective: every rank asks why_absent() at once, as
// for host_rank()): the backend is usable only where each rank has a GPU of its own. A rank that
// went on alone would wait in NCCL's set-up for one that refused.
std::string job_verdict(int count) {
#ifdef PPLAB_HAVE_MPI
  const int host = host_rank();
  const int here = count > 0 && host < count ? 1 : 0;
  int everywhere = 0;
  mpi::check(MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_MIN, mpi::comm()), "MPI_Allreduce");
  if (everywhere) return {};
  if (count == 0) return "no CUDA device answers on this rank's host";
  if (host >= count)
    return "this host runs more ranks than it has GPUs (" + std::to_string(count) +
           "): start one rank per GPU";
  return "another rank of this job has no GPU of its own (a host with more ranks than GPUs, or "
         "none): start one rank per GPU";
#else
  (void)count;
  return "this build has no MPI";
#endif
}

}  // namespace

std::string why_absent() {
  static std::once_flag once;
  static std::string why;
  std::call_once(once, [] {
    const int count = device_count();
    if (in_job()) {
      why = job_verdict(count);
    } else if (count == 0) {
      why = "no CUDA device answers";
    } else if (launcher_size() > 1) {
      why = "this process was started by a launcher of " + std::to_string(launcher_size()) +
            " ranks, but this build has no MPI to join them (one process drives all GPUs: "
            "run it without mpirun)";
    } else if (count < 2) {
      why = "it needs two GPUs or more, and one answers here (use the cuda backend)";
    } else {
      why = same_kind_or_why(count);
    }
  });
  return why;
}

const std::vector<member>& members() { return the_world().members; }
int world_size() { return the_world().size; }
bool one_process() { return the_world().one_process; }
bool job_of_processes() { return in_job(); }

bool peers_reach_each_other() {
  static const bool every_pair = [] {
    if (in_job()) return false;
    const int count = device_count();
    if (count > most_peer_gpus) return false;
    for (int a = 0; a < count; ++a)
      for (int b = 0; b < count; ++b) {
        int can = 0;
        if (a != b && (cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can)) {
          (void)cudaGetLastError();
          return false;
        }
      }
    return count >= 2;
  }();
  return every_pair;
}
int process_rank() { return the_world().process_rank; }
int processes() { return the_world().processes; }

void nccl_fail(ncclResult_t r, const char* call, const char* file, int line) {
  throw error(errc::device, std::string(call) + " failed: " + ncclGetErrorString(r) + " (" + file +
                                ":" + std::to_string(line) + ")");
}

void in_parallel(const std::function<void(std::size_t, const member&)>& f) {
  const std::vector<member>& ms = members();
  if (ms.size() == 1) {
    f(0, ms[0]);
    return;
  }
  std::vector<std::exception_ptr> failed(ms.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < ms.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        PPLAB_CUDA(cudaSetDevice(ms[i].device));
        f(i, ms[i]);
      } catch (...) {
        failed[i] = std::current_exception();
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
}

void agree(const std::exception_ptr& local_error) {
#ifdef PPLAB_HAVE_MPI
  if (!one_process()) return mpi::agree(local_error);
#endif
  if (local_error) std::rethrow_exception(local_error);
}

void synchronize() {
  each([](const member& m) { PPLAB_CUDA(cudaStreamSynchronize(m.stream)); });
}

}  // namespace pplab::detail::nccl
