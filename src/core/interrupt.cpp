// The thread's interrupt check (pplab/interrupt.hpp).
#include "pplab/interrupt.hpp"

#include "core/pieces.hpp"
#include "pplab/error.hpp"

namespace pplab {
namespace {
thread_local interrupt_check current = nullptr;
}  // namespace

interrupt_scope::interrupt_scope(interrupt_check check) noexcept : outer_(current) {
  current = check;
}

interrupt_scope::~interrupt_scope() { current = outer_; }

void stop_if_interrupted() {
  if (current && current())
    fail(errc::interrupted, "interrupted: the call stopped before it finished; its outputs are "
                            "unfinished");
}

}  // namespace pplab

namespace pplab::detail {

double& piece_work() {
  static double work = 0x1p33;
  return work;
}

std::size_t& piece_elements() {
  static std::size_t elements = std::size_t(1) << 28;
  return elements;
}

}  // namespace pplab::detail
