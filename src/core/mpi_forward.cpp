// The mpi backend as the core sees it (core/modules.hpp): forwarded to its module, or, where
// this build has none or it cannot be loaded, an executor that says why.
// The forwarders called on every API call look their function up once (a module is tried once).
#include <cstdio>
#include <cstdlib>

#include "core/host/host_executor.hpp"
#include "core/modules.hpp"

namespace pplab::detail {

executor& mpi_executor() {
  static auto* const f = module_function<executor&()>(backend::mpi, "mpi_executor");
  if (f) return f();
  static absent_executor ex(backend::mpi,
                            module_built(backend::mpi)
                                ? module_why_absent(backend::mpi)
                                : "this build has no MPI backend (MPI was not found when it was "
                                  "built; install libopenmpi-dev and build again)");
  return ex;
}

}  // namespace pplab::detail

namespace pplab {

// A job's end is the mpi module's, once the module is in use. Before that no rank has started
// MPI: under a launcher every rank meets the same error, and rank 0 says it.
int end_with_error(const std::string& message, int exit_code, bool agreed) {
  if (detail::backend_module_if_loaded(backend::mpi))
    if (auto* f = detail::module_function<int(const std::string&, int, bool)>(backend::mpi,
                                                                              "end_with_error"))
      return f(message, exit_code, agreed);
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = std::getenv("PMI_RANK");
  if (!rank || std::atoi(rank) == 0) std::fprintf(stderr, "pplab: error: %s\n", message.c_str());
  return exit_code;
}

}  // namespace pplab
