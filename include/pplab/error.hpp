#pragma once
// pplab::error: the one exception type the library throws. Its code tells a caller (and the CLI,
// which maps it to an exit status) whether the arguments were wrong or the data was.
#include <stdexcept>
#include <string>

namespace pplab {

enum class errc {
  invalid_argument,  // the call itself is wrong: bins = 0, lo >= hi, mismatched shapes (exit 2)
  bad_data,          // the input is malformed or cannot be used: truncated .npy, NaN range (exit 1)
  io,                // a file cannot be opened, read or written (exit 1)
  unsupported,       // valid, but not supported by this build or rung (exit 1)
  device,            // a CUDA, NCCL or MPI call failed (exit 1)
  interrupted,       // stopped from outside before it finished (pplab/interrupt.hpp; exit 1)
};

class error : public std::runtime_error {
public:
  error(errc code, const std::string& what) : std::runtime_error(what), code_(code) {}
  errc code() const noexcept { return code_; }

private:
  errc code_;
};

[[noreturn]] inline void fail(errc code, const std::string& what) { throw error(code, what); }

}  // namespace pplab
