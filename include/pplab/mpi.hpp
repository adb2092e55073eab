#pragma once
// The mpi backend for programs that use MPI themselves (include <mpi.h> and link MPI). The rest
// of pplab's headers stay free of mpi.h: `pplab::reduce(pplab::mpi, my_part, pplab::sum)` and
// `pplab::histogram(pplab::mpi, my_part, ...)` work from them too, each rank passing its own
// part and every rank getting the whole job's answer.
//
// - pplab talks on a duplicate of MPI_COMM_WORLD (its messages never meet the program's), or of
//   the communicator given to `use_mpi_communicator`; MPI started by the program is left to the
//   program to finalize.
// - Every rank must make the same calls in the same order with the same arguments (dtype, op,
//   bins, range); a difference, or an error on any one rank, is thrown on every rank (no rank
//   is left waiting), naming the ranks.
#include <mpi.h>

#include <span>
#include <type_traits>
#include <vector>

#include "backend.hpp"
#include "ops.hpp"
#include "reduce.hpp"

namespace pplab {

// From now on pplab's collectives run on a duplicate of `comm` (every rank of it must call this).
void use_mpi_communicator(MPI_Comm comm);
// pplab's communicator (a duplicate of the program's; starts MPI if the program has not).
MPI_Comm mpi_communicator();

namespace detail {
template <class T, class C> void mpi_user_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = C{}(a[i], b[i]);
}
}  // namespace detail

// A user operator over the ranks' parts: each rank reduces its part on the host (cpu, or seq
// when that is the local backend), then one MPI_Allreduce with the operator made an MPI one
// (MPI_Op_create, declared non-commutative, so that MPI combines the ranks' partials in rank
// order). The operator must be associative and its combine default-constructible (a
// captureless lambda or a function object: MPI calls it without state).
template <class T, class C> T reduce(mpi_t, std::span<const T> part, const custom_op<T, C>& o) {
  static_assert(std::is_trivially_copyable_v<T>, "the values cross MPI as bytes");
  static_assert(std::is_default_constructible_v<C>,
                "MPI calls the operator without state: use a captureless lambda or a function "
                "object");
  const T mine = mpi_local() == backend::seq ? reduce(seq, part, o) : reduce(cpu, part, o);
  MPI_Comm comm = mpi_communicator();
  MPI_Datatype type;
  MPI_Op user;
  MPI_Type_contiguous(int(sizeof(T)), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  MPI_Op_create(&detail::mpi_user_fn<T, C>, 0, &user);
  T all = mine;
  const int rc = MPI_Allreduce(&mine, &all, 1, type, user, comm);
  MPI_Op_free(&user);
  MPI_Type_free(&type);
  if (rc != MPI_SUCCESS) fail(errc::device, "MPI_Allreduce of a user operator failed");
  return all;
}

template <std::ranges::contiguous_range R, class T, class C>
T reduce(mpi_t where, const R& part, const custom_op<T, C>& o) {
  return reduce(where, std::span<const T>(std::ranges::data(part), std::ranges::size(part)), o);
}

}  // namespace pplab
