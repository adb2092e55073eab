#pragma once
// A call's processes: one, or a job of ranks (the mpi backend; nccl under mpirun). What a
// program around pplab needs to take part in a job: its rank and its part of the data, agreement
// on errors before anything collective, the gathering of a result on rank 0, and the end of the
// job on an error with no rank left waiting.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "pplab/backend.hpp"
#include "pplab/error.hpp"

namespace pplab {

// This process's rank in backend b's job and the job's rank count: 0 and 1 for one process.
int job_rank(backend b);
int job_ranks(backend b);

// The part of n elements that rank r of `ranks` holds: the first n % ranks ranks hold one more.
struct part {
  std::size_t first = 0, count = 0;
};
constexpr part part_of(std::size_t n, int r, int ranks) {
  const std::size_t each = n / std::size_t(ranks), extra = n % std::size_t(ranks);
  const std::size_t ur = std::size_t(r);
  return {ur * each + (ur < extra ? ur : extra), each + (ur < extra ? 1 : 0)};
}

// An error every rank of a job throws together (agreed on): a program prints it once.
class agreed_error : public error {
public:
  using error::error;
};

// Every rank of backend b's job brings its own checks' outcome (`local_error`, empty when they
// passed), what must be the same on every rank as text (`signature`) and the length of its part.
// If any rank failed, every rank throws that error (the lowest failing rank's, naming it); if the
// signatures differ, every rank throws an error naming two ranks; else the answer is the sum of
// the lengths. One process rethrows its own error and returns local_n.
std::uint64_t agree(backend b, const std::string& signature, std::uint64_t local_n,
                    const std::exception_ptr& local_error);

// After an agreement every rank meets the same errors: `f`'s pplab::error is thrown as an
// agreed_error, which a program prints once for the whole job.
template <class F> decltype(auto) together(F&& f) {
  try {
    return f();
  } catch (const agreed_error&) {
    throw;
  } catch (const error& e) {
    throw agreed_error(e.code(), e.what());
  }
}

// Every rank's `bytes` at `mine`, concatenated in rank order on rank 0 (empty elsewhere).
std::vector<std::byte> gather_to_root(backend b, const void* mine, std::size_t bytes);

// The end of a program on an error: prints `pplab: error: MESSAGE` and returns `exit_code`. In
// a job of several ranks started by the mpi backend, an agreed error is printed by rank 0 alone,
// any other by the rank that met it (naming it), and the job ends through MPI_Abort with the
// exit code (no rank is left waiting in a collective).
int end_with_error(const std::string& message, int exit_code, bool agreed);

}  // namespace pplab
