// matmul/mpi/m01_summa: SUMMA (van de Geijn and Watts), the textbook distributed product. A, B
// and C are cut over a 2-D grid of ranks (grid.hpp); for each panel of k the rank holding A's
// panel broadcasts it along its grid row and the rank holding B's along its grid column, and
// every rank adds the panels' product to its block of C with its local backend's best rung. No
// rank ever holds more than its blocks and two panels.
// Data moved per rank: about (m*k/rows + k*n/cols) elements received, against 2*m*n*k/P flops:
// for 4096^3 f32 on 4 ranks, 64 MiB in for 34 GFLOP of work. What limits it: each broadcast
// waits for the multiply before it (nothing overlaps), so the transport's time adds to the
// compute's; m02 starts the next panel's broadcast first.
// Measured (the 16-core host of an H200 machine, 4 ranks of 4 threads,
// bench/results/h200-host-16core-2026-11-23-mpi-matmul-4x4.json, at an earlier commit): f32 4096^3
// in 237.2 ms, 579 GFLOP/s, 2.50x one rank alone (the cpu backend with 16 threads in one process:
// 1.69x).
#include "matmul/mpi/summa.hpp"

namespace pplab::detail::matmul_mpi {
namespace {

void run(const matmul_call& c) {
  summa::state s(c);
  const summa::grid_comms comms(s.g);
  const std::vector<summa::panel> panels = summa::panels_of(s.g, c.p.k);
  std::vector<std::byte> a_panel, b_panel;
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const summa::panel& p = panels[i];
    a_panel.resize(s.a_bytes(p));
    b_panel.resize(s.b_bytes(p));
    if (s.g.col == p.a_col) s.pack_a(p, a_panel.data());
    if (s.g.row == p.b_row) s.pack_b(p, b_panel.data());
    summa::broadcast(a_panel.data(), a_panel.size(), p.a_col, comms.row);
    summa::broadcast(b_panel.data(), b_panel.size(), p.b_row, comms.col);
    s.multiply(p, a_panel.data(), b_panel.data(), i == 0);
  }
  if (panels.empty()) s.scale_only();
  mpi::agree(s.failed);
}

}  // namespace

extern const matmul_rung m01_summa{
    .info = {.step = 1,
             .summary = "SUMMA on a 2-D grid of ranks: panels broadcast along rows and columns"},
    .can_run = one_float_product,
    .run = run,
};

}  // namespace pplab::detail::matmul_mpi
