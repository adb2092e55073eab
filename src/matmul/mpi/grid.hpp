#pragma once
// Where the blocks of a distributed product live: the ranks as a 2-D grid, rows x cols = P with
// rows the largest divisor of P not above sqrt(P) (4 ranks: 2 x 2; 6: 2 x 3; a prime count: a
// 1 x P row), rank r at grid row r / cols and column r % cols. A (m x k) is cut into grid rows
// of m and grid columns of k; B (k x n) into grid rows of k and grid columns of n; C (m x n)
// into grid rows of m and grid columns of n: SUMMA's layout. Each cut is part_of's: as even as
// the sizes allow, so a matrix smaller than the grid leaves some ranks empty blocks.
#include <cstring>
#include <vector>

#include "core/executor.hpp"
#include "pplab/matmul.hpp"

namespace pplab::detail {

struct rank_grid {
  int rows = 1, cols = 1, row = 0, col = 0;
};

inline rank_grid grid_of(int rank, int ranks) {
  rank_grid g;
  for (int d = 1; d * d <= ranks; ++d)
    if (ranks % d == 0) g.rows = d;
  g.cols = ranks / g.rows;
  g.row = rank / g.cols, g.col = rank % g.cols;
  return g;
}

inline matmul_blocks blocks_of(const rank_grid& g, std::size_t m, std::size_t n, std::size_t k) {
  const part mr = part_of(m, g.row, g.rows), kc = part_of(k, g.col, g.cols),
             kr = part_of(k, g.row, g.rows), nc = part_of(n, g.col, g.cols);
  return {{mr.first, mr.count, kc.first, kc.count},
          {kr.first, kr.count, nc.first, nc.count},
          {mr.first, mr.count, nc.first, nc.count}};
}

// C's blocks (each rank's packed, rows x cols) gathered and put in place on rank 0, as one
// packed m x n matrix of `elem`-byte elements; empty on the other ranks.
inline std::vector<std::byte> assemble_c(executor& ex, const void* block, std::size_t m,
                                         std::size_t n, std::size_t k, std::size_t elem) {
  const matrix_block mine = blocks_of(grid_of(ex.rank(), ex.ranks()), m, n, k).c;
  const std::vector<std::byte> all = ex.gather_to_root(block, mine.rows * mine.cols * elem);
  std::vector<std::byte> c(ex.rank() == 0 ? m * n * elem : 0);
  if (ex.rank() != 0) return c;
  std::size_t at = 0;
  for (int r = 0; r < ex.ranks(); ++r) {
    const matrix_block blk = blocks_of(grid_of(r, ex.ranks()), m, n, k).c;
    for (std::size_t i = 0; i < blk.rows; ++i, at += blk.cols * elem)
      std::memcpy(c.data() + ((blk.row0 + i) * n + blk.col0) * elem, all.data() + at,
                  blk.cols * elem);
  }
  return c;
}

}  // namespace pplab::detail
