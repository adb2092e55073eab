#pragma once
// The mpi backend's view of the job: MPI started once (by pplab when the program has not), the
// communicator pplab talks on (its own duplicate, so that its messages never meet the
// program's), this rank and the rank count, the check of every MPI call's return code, and the
// two rules that keep a job from hanging: every rank reaches the same collectives in the same
// order, and an error on one rank is agreed on before the next collective (`agree`).
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "pplab/backend.hpp"

namespace pplab::detail::mpi {

// True when this process can take part in a job: MPI is already running, or a launcher
// (mpirun, mpiexec, srun with PMI) started it.
bool launched();
// pplab's communicator; starts MPI on first use (threads: funneled; OpenMP threads never call
// MPI). Finalized at exit when pplab started it.
MPI_Comm comm();
int rank();
int size();
// Talk on a duplicate of `c` from now on (pplab/mpi.hpp), instead of MPI_COMM_WORLD.
void use(MPI_Comm c);

// Throws pplab::error (device) naming the call when an MPI call did not return MPI_SUCCESS.
void check(int rc, const char* call);

// Every rank calls this at the same point with its own outcome: if any rank has an error,
// every rank throws the lowest failing rank's (code and message, "rank R: ..."), as an
// agreed_error. One integer all-reduce when every rank succeeded.
void agree(const std::exception_ptr& local_error);

}  // namespace pplab::detail::mpi
