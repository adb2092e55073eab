#pragma once
// A wall-clock stopwatch, for timing a call from outside.
#include <chrono>

namespace pplab {

// Wall-clock seconds since construction (steady clock).
struct stopwatch {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

}  // namespace pplab
