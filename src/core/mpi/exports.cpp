// What the mpi backend's own folder gives the core through the module's table
// (core/modules.hpp; src/core/mpi_forward.cpp forwards to these).
#include <string>

#include "core/executor.hpp"
#include "core/modules.hpp"

namespace pplab::detail {

executor& mpi_module_executor();
int mpi_module_end_with_error(const std::string& message, int exit_code, bool agreed);

void add_core_mpi_exports(module_exports& e) {
  e.add("mpi_executor", &mpi_module_executor);
  e.add("end_with_error", &mpi_module_end_with_error);
}

}  // namespace pplab::detail
