#pragma once
// Stopping a long host call from outside, cleanly. A program that wants its calls stoppable (the
// Python package: a Ctrl-C while pplab works with the GIL released) installs a check on the
// thread that calls pplab; long host work asks it between its pieces, on that thread, and when it
// says stop, the call throws pplab::error (errc::interrupted), its outputs unfinished.
// Asked between: the lab's rows, a host matmul's bands of K, a host filter's bands of rows, and
// a host histogram's or reduction's parts (core/pieces.hpp, docs/python.md).
namespace pplab {

// True when the call should stop. Called on the thread that installed it, between pieces of work
// (every row of the lab, every band of a product); it may take a lock (the GIL).
using interrupt_check = bool (*)();

// Installs `check` for this thread for the scope's life (nested scopes restore the outer one).
class interrupt_scope {
public:
  explicit interrupt_scope(interrupt_check check) noexcept;
  ~interrupt_scope();
  interrupt_scope(const interrupt_scope&) = delete;
  interrupt_scope& operator=(const interrupt_scope&) = delete;

private:
  interrupt_check outer_;
};

// Throws pplab::error (interrupted) when this thread's check says stop; nothing otherwise.
void stop_if_interrupted();

}  // namespace pplab
