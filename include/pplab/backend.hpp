#pragma once
// Backends as tag values, Thrust/Kokkos style: pplab::reduce(pplab::cpu, data, pplab::sum).
#include <string_view>

namespace pplab {

enum class backend { seq, cpu, cuda, nccl, mpi };
enum class pattern { reduce, histogram, matmul };

std::string_view name_of(backend b) noexcept;
std::string_view name_of(pattern p) noexcept;
backend parse_backend(std::string_view name);
pattern parse_pattern(std::string_view name);

// True when this build has the backend and (for cuda) a device answers.
bool available(backend b);

template <backend B> struct backend_tag {
  static constexpr backend value = B;
  constexpr operator backend() const noexcept { return B; }
};
using seq_t = backend_tag<backend::seq>;
using cpu_t = backend_tag<backend::cpu>;
using cuda_t = backend_tag<backend::cuda>;
inline constexpr seq_t seq{};
inline constexpr cpu_t cpu{};
inline constexpr cuda_t cuda{};

}  // namespace pplab
