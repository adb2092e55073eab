#pragma once
// Backends as tag values, Thrust/Kokkos style: pplab::reduce(pplab::cpu, data, pplab::sum).
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace pplab {

// The backends. A new one is an enumerator here and an entry in backend_table below; every switch
// over `backend` in pplab names each enumerator and has no default (the build makes a missing
// case an error), so the compiler lists the code that must learn it (docs/architecture.md).
enum class backend { seq, cpu, cuda, nccl, mpi };

// Each backend's name, in the order the ladders and the lab list them (the enumerators' order).
struct backend_entry {
  backend which;
  std::string_view name;
};
inline constexpr backend_entry backend_table[] = {{backend::seq, "seq"},
                                                  {backend::cpu, "cpu"},
                                                  {backend::cuda, "cuda"},
                                                  {backend::nccl, "nccl"},
                                                  {backend::mpi, "mpi"}};
static_assert([] {
  for (std::size_t i = 0; i < std::size(backend_table); ++i)
    if (std::size_t(backend_table[i].which) != i) return false;
  return true;
}(), "backend_table lists every backend once, in the enumerators' order");

// Every backend, in the table's order.
inline constexpr std::array<backend, std::size(backend_table)> all_backends = [] {
  std::array<backend, std::size(backend_table)> all{};
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = backend_table[i].which;
  return all;
}();

std::string_view name_of(backend b) noexcept;
backend parse_backend(std::string_view name);

// True when this build has the backend and (for cuda) a device answers; for mpi, when the
// process was started by mpirun or mpiexec (or MPI is already running) and its local backend is.
bool available(backend b);
// Nothing when backend b is usable here; else throws pplab::error (unsupported) saying why not.
void require(backend b);

// The backend each rank of the mpi backend runs on its own part: seq, cpu (the default) or cuda.
// Every rank must choose the same (a difference is reported as an error by the next call).
void set_mpi_local(backend local);
backend mpi_local() noexcept;

// Which rung a call runs, and what it ran (every run-time entry point takes one). `rung`: a rung's
// id, or the end of one after a '/' ("r09_vector_loads") where only one id ends so (`pplab list`),
// to run instead of the backend's policy pick; it must be a rung of the call's backend. `ran`, if
// given, receives the id of the rung that ran.
struct rung_choice {
  std::string_view rung;
  std::string* ran = nullptr;
};

template <backend B> struct backend_tag {
  static constexpr backend value = B;
  constexpr operator backend() const noexcept { return B; }
};
using seq_t = backend_tag<backend::seq>;
using cpu_t = backend_tag<backend::cpu>;
using cuda_t = backend_tag<backend::cuda>;
inline constexpr seq_t seq{};
inline constexpr cpu_t cpu{};
using nccl_t = backend_tag<backend::nccl>;
using mpi_t = backend_tag<backend::mpi>;
inline constexpr cuda_t cuda{};
inline constexpr nccl_t nccl{};
inline constexpr mpi_t mpi{};

}  // namespace pplab
