// matmul/mpi/m02_summa_overlapped: SUMMA with the next panel's broadcasts started (MPI_Ibcast)
// before this panel's multiply, into a second pair of buffers, so that the transport works while
// the cores do. The prediction: the time of max(transport, compute) instead of their sum.
// What limits it: Open MPI moves a non-blocking collective forward only inside MPI calls (no
// progress thread by default); on shared memory the copy is done by the ranks' own cores, which
// are then not multiplying, so the overlap is worth most between hosts.
// Measured (the 16-core host of an H200 machine, 4 ranks of 4 threads,
// bench/results/h200-host-16core-2026-11-23-mpi-matmul-4x4.json, at an earlier commit): f32 4096^3
// in 231.3 ms, 594 GFLOP/s, 2.57x one rank alone (the cpu backend with 16 threads in one process:
// 1.69x).
#include "matmul/mpi/summa.hpp"

namespace pplab::detail::matmul_mpi {
namespace {

void run(const matmul_call& c) {
  summa::state s(c);
  const summa::grid_comms comms(s.g);
  const std::vector<summa::panel> panels = summa::panels_of(s.g, c.p.k);
  std::vector<std::byte> a_panel[2], b_panel[2];
  std::vector<MPI_Request> pending[2];
  const auto start = [&](std::size_t i) {
    const summa::panel& p = panels[i];
    const int slot = int(i % 2);
    a_panel[slot].resize(s.a_bytes(p));
    b_panel[slot].resize(s.b_bytes(p));
    if (s.g.col == p.a_col) s.pack_a(p, a_panel[slot].data());
    if (s.g.row == p.b_row) s.pack_b(p, b_panel[slot].data());
    summa::start_broadcast(a_panel[slot].data(), a_panel[slot].size(), p.a_col, comms.row,
                           pending[slot]);
    summa::start_broadcast(b_panel[slot].data(), b_panel[slot].size(), p.b_row, comms.col,
                           pending[slot]);
  };
  if (!panels.empty()) start(0);
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const int slot = int(i % 2);
    mpi::check(MPI_Waitall(int(pending[slot].size()), pending[slot].data(), MPI_STATUSES_IGNORE),
               "MPI_Waitall");
    pending[slot].clear();
    if (i + 1 < panels.size()) start(i + 1);
    s.multiply(panels[i], a_panel[slot].data(), b_panel[slot].data(), i == 0);
  }
  if (panels.empty()) s.scale_only();
  mpi::agree(s.failed);
}

}  // namespace

extern const matmul_rung m02_summa_overlapped{
    .info = {.step = 2,
             .summary = "SUMMA with the next panel's broadcasts started before this multiply"},
    .can_run = one_float_product,
    .run = run,
};

}  // namespace pplab::detail::matmul_mpi
