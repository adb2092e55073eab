#pragma once
// What the SUMMA rungs share (grid.hpp has the layout). The k dimension is walked in panels
// that lie within one grid column's part of A's columns and one grid row's part of B's rows:
// the panel's A columns (this grid row's rows of them) are broadcast along the grid row from
// the rank that holds them, its B rows along the grid column, and every rank adds the product
// of the two panels to its block of C with its local backend's rung.
#include <mpi.h>

#include <exception>
#include <vector>

#include "core/mpi/world.hpp"
#include "matmul/matmul_common.hpp"
#include "matmul/mpi/grid.hpp"
#include "matmul/rung.hpp"

namespace pplab::detail::summa {

// Panels of at most this many columns of A (rows of B): deep enough for the local rung's
// packed kernels, small enough that the two panel buffers stay beside the blocks.
inline constexpr std::size_t max_panel = 512;

struct panel {
  std::size_t k0 = 0, kb = 0;
  int a_col = 0, b_row = 0;  // the grid column that holds A's columns, the grid row B's rows
};
std::vector<panel> panels_of(const rank_grid& g, std::size_t k);

// The row and column communicators of this call's grid (MPI_Comm_split), freed at the end.
struct grid_comms {
  MPI_Comm row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  explicit grid_comms(const rank_grid& g);
  ~grid_comms();
  grid_comms(const grid_comms&) = delete;
  grid_comms& operator=(const grid_comms&) = delete;
};

// The call's blocks and the panel buffers of one SUMMA step.
struct state {
  const matmul_call& c;
  rank_grid g;
  matmul_blocks mine;
  std::size_t elem;
  explicit state(const matmul_call& call);
  std::size_t a_bytes(const panel& p) const { return mine.a.rows * p.kb * elem; }
  std::size_t b_bytes(const panel& p) const { return p.kb * mine.b.cols * elem; }
  // The holder of the panel copies it from its block into the (packed) panel buffer.
  void pack_a(const panel& p, void* into) const;
  void pack_b(const panel& p, void* into) const;
  // C block = alpha * A panel * B panel + (first ? beta : 1) * C block, by the local backend's
  // rung; an error is kept (the rank goes on taking part in the broadcasts) and agreed at the end.
  void multiply(const panel& p, const void* a, const void* b, bool first);
  void scale_only();  // k = 0: C = beta * C (never reading C when beta is 0)
  std::exception_ptr failed;
};

// MPI_Bcast of any number of bytes (in pieces of at most 1 GiB: counts are ints).
void broadcast(void* data, std::size_t bytes, int root, MPI_Comm comm);
// The same, started: the requests are appended to `out`.
void start_broadcast(void* data, std::size_t bytes, int root, MPI_Comm comm,
                     std::vector<MPI_Request>& out);

}  // namespace pplab::detail::summa
