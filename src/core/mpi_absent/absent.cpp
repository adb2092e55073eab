// The mpi backend of a build without MPI: an executor that says why it is absent, and errors
// printed as a single process prints them. (CMake compiles this file instead of
// src/core/mpi/ when MPI was not found.)
#include <cstdio>
#include <cstdlib>

#include "core/host/host_executor.hpp"

namespace pplab::detail {

executor& mpi_executor() {
  static absent_executor ex(backend::mpi,
                            "this build has no MPI backend (MPI was not found when it was built; "
                            "install libopenmpi-dev and build again)");
  return ex;
}

}  // namespace pplab::detail

namespace pplab {

// Under a launcher every rank meets the same error; rank 0 says it.
int end_with_error(const std::string& message, int exit_code, bool) {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = std::getenv("PMI_RANK");
  if (!rank || std::atoi(rank) == 0) std::fprintf(stderr, "pplab: error: %s\n", message.c_str());
  return exit_code;
}

}  // namespace pplab
