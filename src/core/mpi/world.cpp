// MPI's start and end, pplab's communicator, and agreement on errors (see world.hpp).
#include "core/mpi/world.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/executor.hpp"
#include "pplab/error.hpp"
#include "pplab/mpi.hpp"

namespace pplab::detail::mpi {
namespace {

MPI_Comm our_comm = MPI_COMM_NULL;
bool we_started = false;

void finish() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (our_comm != MPI_COMM_NULL) MPI_Comm_free(&our_comm);
  if (we_started) MPI_Finalize();
}

void take(MPI_Comm from) {
  if (our_comm != MPI_COMM_NULL) MPI_Comm_free(&our_comm);
  check(MPI_Comm_dup(from, &our_comm), "MPI_Comm_dup");
  // Failures come back as return codes, which check() turns into pplab errors.
  MPI_Comm_set_errhandler(our_comm, MPI_ERRORS_RETURN);
}

// The rank a launcher gave this process, before MPI starts (-1 when none did).
int launcher_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return -1;
}

bool running() {
  int started = 0, finalized = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&finalized);
  return started && !finalized;
}

// A job whose ranks are not all pplab (`mpirun -np 2 pplab ... : -np 1 other`) would hang in
// MPI's start or in pplab's first collective, which the other program never reaches. So the start
// is a handshake on MPI_COMM_WORLD, under a watchdog: every rank tells rank 0 it is pplab, rank 0
// answers each once all have, and a rank that is not through by the deadline (PPLAB_MPI_START_S,
// default 60 s) says so, naming the world's size and who answered, and ends its process, which
// ends the job.
class start_watchdog {
public:
  start_watchdog() : thread_([this] { watch(); }) {}
  ~start_watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    woken_.notify_one();
    thread_.join();
  }
  void world(int rank, int size) {
    std::lock_guard<std::mutex> lock(mutex_);
    rank_ = rank, size_ = size;
  }
  void answered(int rank) {
    std::lock_guard<std::mutex> lock(mutex_);
    answered_.push_back(rank);
  }

private:
  static double deadline_s() {
    const char* v = std::getenv("PPLAB_MPI_START_S");
    const double s = v ? std::atof(v) : 0;
    return s > 0 ? s : 60;
  }
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    const double limit = deadline_s();
    if (woken_.wait_for(lock, std::chrono::duration<double>(limit), [this] { return done_; }))
      return;
    std::string what;
    if (size_ == 0) {
      what = "MPI did not start within " + std::to_string(int(limit)) +
             " s (PPLAB_MPI_START_S): some process of this job is not pplab, or not an MPI "
             "program";
    } else if (rank_ == 0) {
      std::string who = "0", missing;
      for (int r = 1; r < size_; ++r) {
        const bool came = std::find(answered_.begin(), answered_.end(), r) != answered_.end();
        std::string& list = came ? who : missing;
        list += (list.empty() ? "" : ", ") + std::to_string(r);
      }
      what = "the job has " + std::to_string(size_) + " ranks, but within " +
             std::to_string(int(limit)) + " s (PPLAB_MPI_START_S) only ranks " + who +
             " answered as pplab; ranks " + missing + " did not";
    } else {
      what = "rank " + std::to_string(rank_) + " of " + std::to_string(size_) + ": rank 0 did " +
             "not answer as pplab within " + std::to_string(int(limit)) + " s (PPLAB_MPI_START_S)";
    }
    std::fprintf(stderr,
                 "pplab: error: %s; every rank of an mpirun job must run pplab (mpirun -np N "
                 "pplab ..., or one program that calls pplab on every rank)\n",
                 what.c_str());
    std::fflush(stderr);
    std::_Exit(1);  // MPI is stuck: no finalize; the launcher ends the job's other processes
  }

  std::mutex mutex_;
  std::condition_variable woken_;
  bool done_ = false;
  int rank_ = 0, size_ = 0;
  std::vector<int> answered_;
  std::thread thread_;
};

constexpr int hello_tag = 0x70706c;  // pplab's start messages on MPI_COMM_WORLD alone

void start_under_watch() {
  start_watchdog watchdog;
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    fail(errc::device, "MPI_Init_thread failed: MPI cannot start here");
  we_started = true;
  std::atexit(finish);
  int me = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  watchdog.world(me, ranks);
  if (ranks == 1) return;
  int token = hello_tag;
  if (me != 0) {
    check(MPI_Send(&token, 1, MPI_INT, 0, hello_tag, MPI_COMM_WORLD), "MPI_Send");
    check(MPI_Recv(&token, 1, MPI_INT, 0, hello_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
    return;
  }
  // Rank 0 waits for every other rank's hello by polling, so that the watchdog can say who came.
  std::vector<int> hello(std::size_t(ranks), 0);
  std::vector<MPI_Request> waiting(std::size_t(ranks - 1));
  for (int r = 1; r < ranks; ++r)
    check(MPI_Irecv(&hello[std::size_t(r)], 1, MPI_INT, r, hello_tag, MPI_COMM_WORLD,
                    &waiting[std::size_t(r - 1)]),
          "MPI_Irecv");
  std::vector<int> arrived(waiting.size());
  for (int left = ranks - 1; left > 0;) {
    int count = 0;
    check(MPI_Testsome(int(waiting.size()), waiting.data(), &count, arrived.data(),
                       MPI_STATUSES_IGNORE),
          "MPI_Testsome");
    if (count == MPI_UNDEFINED) break;
    for (int i = 0; i < count; ++i) watchdog.answered(arrived[std::size_t(i)] + 1);
    left -= count;
    if (count == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (int r = 1; r < ranks; ++r)
    check(MPI_Send(&token, 1, MPI_INT, r, hello_tag, MPI_COMM_WORLD), "MPI_Send");
}

}  // namespace

bool launched() { return running() || launcher_rank() >= 0; }

MPI_Comm comm() {
  if (our_comm != MPI_COMM_NULL) return our_comm;
  if (!running()) start_under_watch();
  take(MPI_COMM_WORLD);
  return our_comm;
}

int rank() {
  int r = 0;
  MPI_Comm_rank(comm(), &r);
  return r;
}

int size() {
  int s = 1;
  MPI_Comm_size(comm(), &s);
  return s;
}

void use(MPI_Comm c) {
  if (!running()) fail(errc::invalid_argument, "pplab::mpi::use: MPI is not running");
  take(c);
}

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  fail(errc::device, std::string(call) + " failed: " + std::string(text, std::size_t(len)));
}

void agree(const std::exception_ptr& local_error) {
  const int me = rank(), ranks = size();
  int failing = local_error ? me : ranks, first = ranks;
  check(MPI_Allreduce(&failing, &first, 1, MPI_INT, MPI_MIN, comm()), "MPI_Allreduce");
  if (first == ranks) return;
  // The lowest failing rank tells every rank its error: the code, then the message.
  int code = int(errc::device);
  std::string text;
  if (me == first) {
    try {
      std::rethrow_exception(local_error);
    } catch (const error& e) {
      code = int(e.code()), text = e.what();
    } catch (const std::bad_alloc&) {
      text = "out of memory";
    } catch (const std::exception& e) {
      text = e.what();
    }
  }
  long long len = (long long)text.size();
  long long head[2] = {code, len};
  check(MPI_Bcast(head, 2, MPI_LONG_LONG, first, comm()), "MPI_Bcast");
  text.resize(std::size_t(head[1]));
  check(MPI_Bcast(text.data(), int(head[1]), MPI_CHAR, first, comm()), "MPI_Bcast");
  const std::string where = ranks > 1 ? "rank " + std::to_string(first) + ": " : "";
  throw agreed_error(errc(head[0]), where + text);
}

}  // namespace pplab::detail::mpi

namespace pplab::detail {

// pplab::end_with_error once this module is in use (src/core/mpi_forward.cpp).
int mpi_module_end_with_error(const std::string& message, int exit_code, bool agreed) {
  const bool job = detail::mpi::running() && detail::mpi::launched();
  int ranks = 1, me = 0;
  if (job) {
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
  } else {
    me = std::max(detail::mpi::launcher_rank(), 0);
  }
  // Before MPI started (a usage error) every rank met the same error: rank 0 says it.
  if (!job && detail::mpi::launcher_rank() >= 0) agreed = true;
  if (!agreed || me == 0)
    std::fprintf(stderr, "pplab: error: %s%s\n",
                 !agreed && ranks > 1 ? ("rank " + std::to_string(me) + ": ").c_str() : "",
                 message.c_str());
  std::fflush(stderr);
  if (job && ranks > 1) {
    if (agreed && me != 0) {
      // Rank 0 ends the job; wait for it here rather than race it with a second abort.
      MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Abort(MPI_COMM_WORLD, exit_code);
  }
  return exit_code;
}

}  // namespace pplab::detail

namespace pplab {

void use_mpi_communicator(MPI_Comm c) { detail::mpi::use(c); }
MPI_Comm mpi_communicator() { return detail::mpi::comm(); }

}  // namespace pplab
