#pragma once
// Where a position outside the image is read from, as scipy.ndimage's filters extend a line
// (pplab/convolution.hpp draws each mode). Host and device share it (PPLAB_HD). A mask may be
// wider than the image, so an index can fall past the far side of the extension: every mode but
// constant and nearest is periodic, and the index is taken modulo its period.
#include <cstdint>

#include "core/visit.hpp"
#include "pplab/convolution.hpp"

namespace pplab::detail {

// The index that position i (any integer) of a line of n > 0 elements reads, or -1 for the
// constant value.
PPLAB_HD inline std::int64_t boundary_index(std::int64_t i, std::int64_t n, boundary mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
  case boundary::constant:
    return -1;
  case boundary::nearest:
    return i < 0 ? 0 : n - 1;
  case boundary::wrap: {
    const std::int64_t k = i % n;
    return k < 0 ? k + n : k;
  }
  case boundary::reflect: {  // period 2n: a b c d | d c b a
    const std::int64_t period = 2 * n;
    std::int64_t k = i % period;
    if (k < 0) k += period;
    return k < n ? k : period - 1 - k;
  }
  case boundary::mirror: {  // period 2n - 2: a b c d | c b
    if (n == 1) return 0;
    const std::int64_t period = 2 * n - 2;
    std::int64_t k = i % period;
    if (k < 0) k += period;
    return k < n ? k : period - k;
  }
  }
  return -1;
}

}  // namespace pplab::detail
