// MPI's start and end, pplab's communicator, and agreement on errors (see world.hpp).
#include "core/mpi/world.hpp"

#include <cstdio>
#include <cstdlib>
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

}  // namespace

bool launched() { return running() || launcher_rank() >= 0; }

MPI_Comm comm() {
  if (our_comm != MPI_COMM_NULL) return our_comm;
  if (!running()) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      fail(errc::device, "MPI_Init_thread failed: MPI cannot start here");
    we_started = true;
    std::atexit(finish);
  }
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
