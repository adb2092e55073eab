// The mpi executor: one process per rank, each holding its part of the data in its own (host)
// memory and running a local backend (seq, cpu or cuda; `pplab::set_mpi_local`) on it; the
// rungs of src/<pattern>/mpi/ combine the parts' results over MPI. Its timer is collective (a
// barrier before each repeat, the slowest rank's time), and its ceilings are the transport's:
// point-to-point latency and bandwidth between ranks 0 and 1, the 8-byte all-reduce, and the
// ranks' read and multiply-add rates added up (each rank probing at once, as they run).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "core/ceilings.hpp"
#include "core/host/host_executor.hpp"
#include "core/mpi/world.hpp"
#include "core/timer.hpp"
#include "pplab/error.hpp"

namespace pplab::detail {
namespace {

// FNV-1a: signatures are compared by hash first (one all-gather of 8 bytes per rank).
std::uint64_t hash_of(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string text_from(int root, const std::string& mine) {
  long long len = (long long)mine.size();
  mpi::check(MPI_Bcast(&len, 1, MPI_LONG_LONG, root, mpi::comm()), "MPI_Bcast");
  std::string s = mine;
  s.resize(std::size_t(len));
  mpi::check(MPI_Bcast(s.data(), int(len), MPI_CHAR, root, mpi::comm()), "MPI_Bcast");
  return s;
}

double max_over_ranks(double v) {
  double out = v;
  mpi::check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, mpi::comm()), "MPI_Allreduce");
  return out;
}

double sum_over_ranks(double v) {
  double out = v;
  mpi::check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, mpi::comm()), "MPI_Allreduce");
  return out;
}

// Seconds per call of `step`, the best average over `batches` batches of `per_batch` calls,
// agreed over the ranks (the slowest rank's best).
double best_batch_s(const std::function<void()>& step, int batches, int per_batch) {
  double best = 1e30;
  for (int b = 0; b < batches; ++b) {
    mpi::check(MPI_Barrier(mpi::comm()), "MPI_Barrier");
    stopwatch clock;
    for (int i = 0; i < per_batch; ++i) step();
    best = std::min(best, clock.seconds() / per_batch);
  }
  return max_over_ranks(best);
}

class job_executor final : public executor {
public:
  backend kind() const noexcept override { return backend::mpi; }

  std::string why_absent() const override {
    if (!mpi::launched())
      return "this process was not started by mpirun or mpiexec (run, for example, "
             "`mpirun -np 2 pplab lab --backend mpi`)";
    const backend local = mpi_local();
    const std::string why = executor_for(local).why_absent();
    if (!why.empty())
      return "its local backend '" + std::string(name_of(local)) + "' is not usable: " + why;
    return {};
  }

  std::string describe() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string lib(version, std::size_t(len));
    lib = lib.substr(0, lib.find_first_of(",\n"));
    return lib + ", " + std::to_string(ranks()) + " rank" + (ranks() > 1 ? "s" : "") + " on " +
           std::to_string(hosts()) + " host" + (hosts() > 1 ? "s" : "") + ", each running " +
           std::string(name_of(mpi_local())) + " (" + executor_for(mpi_local()).describe() + ")";
  }

  bool host_memory() const noexcept override { return true; }
  void* allocate(std::size_t bytes) override { return host_.allocate(bytes); }
  void release(void* p) noexcept override { host_.release(p); }
  void copy_in(void* d, const void* s, std::size_t n) override { host_.copy_in(d, s, n); }
  void copy_out(void* d, const void* s, std::size_t n) override { host_.copy_out(d, s, n); }
  void copy_rows_in(void* d, std::size_t dp, const void* s, std::size_t sp, std::size_t rb,
                    std::size_t rows) override {
    host_.copy_rows_in(d, dp, s, sp, rb, rows);
  }
  void copy_rows_out(void* d, std::size_t dp, const void* s, std::size_t sp, std::size_t rb,
                     std::size_t rows) override {
    host_.copy_rows_out(d, dp, s, sp, rb, rows);
  }
  void fill(void* d, int byte, std::size_t n) override { host_.fill(d, byte, n); }
  void* stream() override { return nullptr; }
  void synchronize() override {}

  int rank() const override { return mpi::rank(); }
  int ranks() const override { return mpi::size(); }

  // Repeats agreed from the slowest rank's first timed call, so every rank runs the same number;
  // each repeat starts at a barrier and counts the slowest rank's time.
  timing time(const std::function<void()>& work, const time_plan& plan) override {
    const auto once = [&] {
      mpi::check(MPI_Barrier(mpi::comm()), "MPI_Barrier");
      stopwatch clock;
      work();
      return max_over_ranks(clock.seconds());
    };
    // The first call untimed: its one-time costs are not a sample (NCCL connecting a new
    // communicator's channels: the nccl job's m03 at 16384^3 took 1069 ms on its first call on
    // two H200s, with each rank bound to one core, and the lab reported that call alone). Then the
    // second call, and as many more as the budget allows (at least min_reps in all, unless one
    // call outlasts the budget).
    once();
    std::vector<double> samples{once()};
    if (samples[0] <= plan.budget_s) {
      const int reps =
          std::clamp(int(plan.budget_s / std::max(samples[0], 1e-9)), plan.min_reps, 1000);
      for (int i = 1; i < reps; ++i) samples.push_back(once());
    }
    std::sort(samples.begin(), samples.end());
    return {samples[samples.size() / 2], samples.front(), int(samples.size())};
  }

  // Rank 0 alone: once untimed (a slow first call, a GPU context starting, is not a sample),
  // then on the wall clock while the others sleep in the barrier and leave it their cores.
  backend part_backend() const override { return mpi_local(); }
  std::string part_word() const override { return "rank"; }
  timing time_alone(const std::function<void()>& work, const time_plan& plan) override {
    timing t;
    if (rank() == 0) {
      work();
      t = time_it(work, plan.min_reps, plan.budget_s);
    }
    barrier();
    broadcast_from_root(&t, sizeof t);
    return t;
  }

  std::vector<ceiling> measure_ceilings(std::size_t bytes, double budget_s) override {
    std::vector<ceiling> out;
    const int me = rank();
    if (ranks() > 1) {
      char word[8] = {};
      const double round_trip = best_batch_s(
          [&] {
            if (me == 0) {
              MPI_Send(word, 8, MPI_BYTE, 1, 0, mpi::comm());
              MPI_Recv(word, 8, MPI_BYTE, 1, 0, mpi::comm(), MPI_STATUS_IGNORE);
            } else if (me == 1) {
              MPI_Recv(word, 8, MPI_BYTE, 0, 0, mpi::comm(), MPI_STATUS_IGNORE);
              MPI_Send(word, 8, MPI_BYTE, 0, 0, mpi::comm());
            }
          },
          20, 200);
      out.push_back({"mpi_latency_us", round_trip / 2 * 1e6,
                     "8-byte ping-pong between ranks 0 and 1, half the round trip, best batch "
                     "of 200"});
      const std::size_t msg = std::min<std::size_t>(bytes, std::size_t(64) << 20);
      std::vector<char> buf(me <= 1 ? msg : 1);
      const double one = best_batch_s(
          [&] {
            if (me == 0) MPI_Send(buf.data(), int(msg), MPI_BYTE, 1, 1, mpi::comm());
            if (me == 1)
              MPI_Recv(buf.data(), int(msg), MPI_BYTE, 0, 1, mpi::comm(), MPI_STATUS_IGNORE);
            if (me <= 1) {
              char ack = 0;  // the send is done when the receiver has it all
              if (me == 1) MPI_Send(&ack, 1, MPI_BYTE, 0, 2, mpi::comm());
              else MPI_Recv(&ack, 1, MPI_BYTE, 1, 2, mpi::comm(), MPI_STATUS_IGNORE);
            }
          },
          8, 2);
      out.push_back({"mpi_p2p_GBps", double(msg) / one * 1e-9,
                     "one " + std::to_string(msg >> 20) +
                         " MiB message from rank 0 to rank 1 (with a 1-byte acknowledgement), "
                         "best batch"});
    }
    double word = 1, sum = 0;
    const double allreduce = best_batch_s(
        [&] { MPI_Allreduce(&word, &sum, 1, MPI_DOUBLE, MPI_SUM, mpi::comm()); }, 20, 200);
    out.push_back({"mpi_allreduce_us", allreduce * 1e6,
                   "MPI_Allreduce of one double over every rank, best batch of 200"});
    out.push_back({"mpi_read_GBps", read_GBps(bytes, budget_s),
                   "every rank's all-thread streaming read of its share at once, added up"});
    mpi::check(MPI_Barrier(mpi::comm()), "MPI_Barrier");
    out.push_back({"mpi_fp32_GFLOPs", sum_over_ranks(measure_fma_GFLOPs(false, budget_s)),
                   "every rank's all-thread register-resident FMA loop at once, added up"});
    return out;
  }

  double read_GBps(std::size_t bytes, double budget_s) override {
    const std::size_t share = std::max<std::size_t>(part_of(bytes, rank(), ranks()).count, 4096);
    mpi::check(MPI_Barrier(mpi::comm()), "MPI_Barrier");
    return sum_over_ranks(measure_read_GBps(share, budget_s));
  }

  std::uint64_t agree_on_call(const std::string& signature, std::uint64_t local_n,
                              const std::exception_ptr& local_error) override {
    mpi::agree(local_error);
    const int n_ranks = ranks();
    std::uint64_t mine[2] = {hash_of(signature), local_n};
    std::vector<std::uint64_t> all(2 * std::size_t(n_ranks));
    mpi::check(MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, mpi::comm()),
               "MPI_Allgather");
    std::uint64_t total = 0;
    int differs = -1;
    for (int r = 0; r < n_ranks; ++r) {
      total += all[2 * std::size_t(r) + 1];
      if (differs < 0 && all[2 * std::size_t(r)] != all[0]) differs = r;
    }
    if (differs >= 0) {
      const std::string first = text_from(0, signature), other = text_from(differs, signature);
      throw agreed_error(errc::invalid_argument,
                         "the ranks disagree on the call: rank 0 asks for '" + first + "', rank " +
                             std::to_string(differs) + " for '" + other +
                             "'; every rank must pass the same arguments");
    }
    return total;
  }

  // Point to point in pieces of at most 1 GiB (MPI counts are ints), so any size gathers; rank
  // 0's allocation is agreed on before any rank sends.
  std::vector<std::byte> gather_to_root(const void* mine, std::size_t bytes) override {
    const int n_ranks = ranks(), me = rank();
    std::uint64_t mine_bytes = bytes;
    std::vector<std::uint64_t> sizes(static_cast<std::size_t>(n_ranks));
    mpi::check(
        MPI_Allgather(&mine_bytes, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, mpi::comm()),
        "MPI_Allgather");
    std::vector<std::byte> all;
    std::exception_ptr failed;
    if (me == 0) try {
        std::uint64_t total = 0;
        for (std::uint64_t s : sizes) total += s;
        all.resize(total);
      } catch (...) {
        failed = std::current_exception();
      }
    mpi::agree(failed);
    constexpr std::size_t piece = std::size_t(1) << 30;
    const char* from = static_cast<const char*>(mine);
    if (me != 0) {
      for (std::size_t at = 0; at < bytes; at += piece)
        mpi::check(
            MPI_Send(from + at, int(std::min(piece, bytes - at)), MPI_BYTE, 0, 7, mpi::comm()),
            "MPI_Send");
      return all;
    }
    if (bytes) std::memcpy(all.data(), mine, bytes);
    std::size_t offset = bytes;
    for (int r = 1; r < n_ranks; ++r) {
      const std::size_t len = sizes[std::size_t(r)];
      for (std::size_t at = 0; at < len; at += piece)
        mpi::check(MPI_Recv(all.data() + offset + at, int(std::min(piece, len - at)), MPI_BYTE, r,
                            7, mpi::comm(), MPI_STATUS_IGNORE),
                   "MPI_Recv");
      offset += len;
    }
    return all;
  }

  void broadcast_from_root(void* data, std::size_t bytes) override {
    constexpr std::size_t piece = std::size_t(1) << 30;  // MPI counts are ints
    for (std::size_t at = 0; at < bytes; at += piece)
      mpi::check(MPI_Bcast(static_cast<char*>(data) + at, int(std::min(piece, bytes - at)),
                           MPI_BYTE, 0, mpi::comm()),
                 "MPI_Bcast");
  }
  // A barrier whose waiting ranks sleep between polls instead of spinning in the library's
  // progress loop: while one rank works alone (the lab's single-process rows), the others leave
  // it their cores.
  void barrier() override {
    MPI_Request done;
    mpi::check(MPI_Ibarrier(mpi::comm(), &done), "MPI_Ibarrier");
    for (int finished = 0;;) {
      mpi::check(MPI_Test(&done, &finished, MPI_STATUS_IGNORE), "MPI_Test");
      if (finished) return;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

private:
  int hosts() const {
    MPI_Comm node;
    mpi::check(MPI_Comm_split_type(mpi::comm(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
               "MPI_Comm_split_type");
    int node_rank = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    const double leaders = sum_over_ranks(node_rank == 0 ? 1 : 0);
    return int(leaders);
  }

  mutable host_executor host_{backend::cpu};
};

}  // namespace

executor& mpi_module_executor() {
  static job_executor ex;
  return ex;
}

}  // namespace pplab::detail
