#pragma once
// Sizes computed from user input (--n times an element size, rows times columns), checked before
// anything is allocated: a product that overflows, or that is more memory than this machine has,
// is refused with a message naming what was asked (pplab::error, invalid_argument: exit 2).
#include <unistd.h>

#include <cstddef>
#include <initializer_list>
#include <limits>
#include <string>

#include "pplab/error.hpp"

namespace pplab {

inline std::size_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page)
                               : std::numeric_limits<std::size_t>::max();
}

// The bytes of `what`: the product of the factors, the last of them the element size.
inline std::size_t checked_bytes(std::initializer_list<std::size_t> factors,
                                 const std::string& what) {
  std::size_t bytes = 1;
  for (std::size_t f : factors) {
    if (f && bytes > std::numeric_limits<std::size_t>::max() / f)
      fail(errc::invalid_argument, what + " would take more than 2^64 bytes; ask for less");
    bytes *= f;
  }
  const std::size_t have = physical_memory_bytes();
  if (bytes > have)
    fail(errc::invalid_argument, what + " would take " + std::to_string(bytes >> 20) +
                                     " MiB, more than this machine's " +
                                     std::to_string(have >> 20) + " MiB of memory; ask for less");
  return bytes;
}

}  // namespace pplab
