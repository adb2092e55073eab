// SUMMA's shared steps (see summa.hpp).
#include "matmul/mpi/summa.hpp"

#include <algorithm>
#include <cstring>
#include <set>

#include "matmul/rung.hpp"

namespace pplab::detail::summa {

std::vector<panel> panels_of(const rank_grid& g, std::size_t k) {
  // Every place where a grid column's part of k or a grid row's part of k begins.
  std::set<std::size_t> cuts = {k};
  for (int j = 0; j < g.cols; ++j) cuts.insert(std::min(part_of(k, j, g.cols).first, k));
  for (int i = 0; i < g.rows; ++i) cuts.insert(std::min(part_of(k, i, g.rows).first, k));
  const auto owner = [&](std::size_t k0, int parts) {
    for (int r = 0; r < parts; ++r) {
      const part p = part_of(k, r, parts);
      if (k0 >= p.first && k0 < p.first + p.count) return r;
    }
    return 0;
  };
  std::vector<panel> out;
  for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it)
    for (std::size_t k0 = *it; k0 < *std::next(it); k0 += max_panel) {
      const std::size_t kb = std::min(max_panel, *std::next(it) - k0);
      out.push_back({k0, kb, owner(k0, g.cols), owner(k0, g.rows)});
    }
  return out;
}

grid_comms::grid_comms(const rank_grid& g) {
  mpi::check(MPI_Comm_split(mpi::comm(), g.row, g.col, &row), "MPI_Comm_split");
  mpi::check(MPI_Comm_split(mpi::comm(), g.col, g.row, &col), "MPI_Comm_split");
}
grid_comms::~grid_comms() {
  if (row != MPI_COMM_NULL) MPI_Comm_free(&row);
  if (col != MPI_COMM_NULL) MPI_Comm_free(&col);
}

state::state(const matmul_call& call)
    : c(call), g(grid_of(mpi::rank(), mpi::size())),
      mine(blocks_of(g, call.p.m, call.p.n, call.p.k)), elem(size_of(call.p.type)) {}

void state::pack_a(const panel& p, void* into) const {
  if (mine.a.rows == 0) return;  // an empty block: nothing to copy (and `into` may be null)
  // Columns [k0, k0 + kb) of A are columns [k0 - col0, ...) of this rank's block.
  const char* from = static_cast<const char*>(c.a) + (p.k0 - mine.a.col0) * elem;
  for (std::size_t r = 0; r < mine.a.rows; ++r)
    std::memcpy(static_cast<char*>(into) + r * p.kb * elem, from + r * c.lda * elem, p.kb * elem);
}

void state::pack_b(const panel& p, void* into) const {
  if (mine.b.cols == 0) return;
  const char* from = static_cast<const char*>(c.b) + (p.k0 - mine.b.row0) * c.ldb * elem;
  for (std::size_t r = 0; r < p.kb; ++r)
    std::memcpy(static_cast<char*>(into) + r * mine.b.cols * elem, from + r * c.ldb * elem,
                mine.b.cols * elem);
}

void state::multiply(const panel& p, const void* a, const void* b, bool first) {
  if (failed) return;
  try {
    const matmul_problem local{c.p.type, mine.c.rows, mine.c.cols, p.kb};
    const backend where = mpi_local();
    run_rung(default_rung<matmul_rung>(where, local), executor_for(where),
             {local, c.alpha, first ? c.beta : 1.0, a, p.kb, b, mine.b.cols, c.c, c.ldc, nullptr,
              nullptr});
  } catch (...) {
    failed = std::current_exception();
  }
}

void state::scale_only() {
  try {
    const matmul_problem local{c.p.type, mine.c.rows, mine.c.cols, 0};
    const backend where = mpi_local();
    run_rung(default_rung<matmul_rung>(where, local), executor_for(where),
             {local, c.alpha, c.beta, nullptr, 1, nullptr, std::max<std::size_t>(mine.c.cols, 1),
              c.c, c.ldc, nullptr, nullptr});
  } catch (...) {
    failed = std::current_exception();
  }
}

namespace {
constexpr std::size_t piece = std::size_t(1) << 30;
}

void broadcast(void* data, std::size_t bytes, int root, MPI_Comm comm) {
  for (std::size_t at = 0; at < bytes; at += piece)
    mpi::check(MPI_Bcast(static_cast<char*>(data) + at, int(std::min(piece, bytes - at)), MPI_BYTE,
                         root, comm),
               "MPI_Bcast");
}

void start_broadcast(void* data, std::size_t bytes, int root, MPI_Comm comm,
                     std::vector<MPI_Request>& out) {
  for (std::size_t at = 0; at < bytes; at += piece) {
    out.emplace_back();
    mpi::check(MPI_Ibcast(static_cast<char*>(data) + at, int(std::min(piece, bytes - at)), MPI_BYTE,
                          root, comm, &out.back()),
               "MPI_Ibcast");
  }
}

}  // namespace pplab::detail::summa
