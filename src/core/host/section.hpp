#pragma once
// The calling OpenMP thread's contiguous share of `total` items: the split every host probe uses,
// so that a buffer first touched by a thread is read back by the same thread.
#include <omp.h>

#include <cstddef>

namespace pplab::detail {

struct section {
  std::size_t begin, end;
};

inline section this_thread_section(std::size_t total) {
  const std::size_t id = std::size_t(omp_get_thread_num());
  const std::size_t used = std::size_t(omp_get_num_threads());
  return {total * id / used, total * (id + 1) / used};
}

}  // namespace pplab::detail
