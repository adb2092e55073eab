#pragma once
// The distributed matmul cases shared by the mpi and nccl job tests: every rank cuts its blocks
// (pplab::mpi_matmul_blocks: the layout of both backends) out of whole matrices it generates
// (small shapes: 0, 1, primes, smaller than the grid, tall, wide), with padded rows and C full of
// NaN where beta = 0; its block of C is held against the seq backend's product, element by element.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/generate.hpp"
#include "core/run.hpp"
#include "core/verify.hpp"
#include "matmul/rung.hpp"
#include "pplab/pplab.hpp"

namespace pplab::test {

struct block_case {
  dtype t = dtype::f32;
  detail::matmul_problem p;
  double alpha = 1.5, beta = 0;
  matmul_blocks mine;
  std::size_t lda = 0, ldb = 0, ldc = 0;
  std::vector<std::byte> a, b;  // this rank's blocks, padded rows
  std::vector<std::byte> whole_c, want;

  std::string name() const {
    return std::string(name_of(t)) + " " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
           std::to_string(p.k) + " beta " + std::to_string(beta);
  }

  // Rows of `blk` cut out of a whole matrix of `cols` columns, ld elements apart (NaN: every
  // element of the block NaN instead).
  std::vector<std::byte> cut(const std::vector<std::byte>& whole, std::size_t cols,
                             const matrix_block& blk, std::size_t ld, bool nan) const {
    const std::size_t e = size_of(t);
    std::vector<std::byte> out((blk.rows * ld + 1) * e);
    for (std::size_t r = 0; r < blk.rows; ++r)
      std::memcpy(out.data() + r * ld * e, whole.data() + ((blk.row0 + r) * cols + blk.col0) * e,
                  blk.cols * e);
    if (nan)
      visit_dtype(t, [&](auto tag) {
        using T = decltype(tag);
        T* x = reinterpret_cast<T*>(out.data());
        for (std::size_t r = 0; r < blk.rows; ++r)
          for (std::size_t j = 0; j < blk.cols; ++j)
            x[r * ld + j] = std::numeric_limits<T>::quiet_NaN();
      });
    return out;
  }

  // This rank's block of C before the call (NaN where beta = 0).
  std::vector<std::byte> fresh_c() const { return cut(whole_c, p.n, mine.c, ldc, beta == 0); }

  // The block of C after the call, held against the seq product.
  void check(const std::vector<std::byte>& cb) const {
    visit_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      const T* got = reinterpret_cast<const T*>(cb.data());
      const T* ref = reinterpret_cast<const T*>(want.data());
      int bad = 0;
      for (std::size_t i = 0; i < mine.c.rows; ++i)
        for (std::size_t j = 0; j < mine.c.cols; ++j) {
          const double w = double(ref[(mine.c.row0 + i) * p.n + mine.c.col0 + j]);
          const double g = double(got[i * ldc + j]);
          const double tol = detail::dot_tolerance(p.k, t) * (4 * double(p.k) + 4) + 1e-30;
          if (!(std::abs(g - w) <= tol) && bad++ < 3)
            ADD_FAILURE() << "C(" << mine.c.row0 + i << "," << mine.c.col0 + j << ") = " << g
                          << ", want " << w;
        }
    });
  }
};

// Calls each(case) for every dtype, shape and beta.
template <class Each> void for_each_block_case(Each&& each) {
  struct shape {
    std::size_t m, n, k;
  };
  const shape shapes[] = {{0, 3, 2},    {3, 0, 2},   {4, 5, 0},    {1, 1, 1},      {2, 3, 1},
                          {17, 13, 11}, {64, 3, 97}, {3, 70, 130}, {131, 67, 1201}};
  const auto& seq_rung = *detail::find<detail::matmul_rung>("matmul/seq/m01_triple_loop");
  for (dtype t : {dtype::f32, dtype::f64})
    for (const shape& sh : shapes)
      for (double beta : {0.0, 0.5}) {
        block_case c;
        c.t = t, c.p = {t, sh.m, sh.n, sh.k}, c.beta = beta;
        const std::size_t e = size_of(t), m = sh.m, n = sh.n, k = sh.k;
        std::vector<std::byte> a(m * k * e + 1), b(k * n * e + 1);
        c.whole_c.resize(m * n * e + 1);
        detail::generate(t, a.data(), m * k, detail::distribution::normal, 1);
        detail::generate(t, b.data(), k * n, detail::distribution::normal, 2);
        detail::generate(t, c.whole_c.data(), m * n, detail::distribution::normal, 3);
        c.want = c.whole_c;
        detail::run_rung(seq_rung, {c.p, c.alpha, beta, a.data(), k, b.data(), n, c.want.data(), n,
                                    nullptr, nullptr});
        c.mine = mpi_matmul_blocks(m, n, k);
        c.lda = c.mine.a.cols + 2, c.ldb = c.mine.b.cols + 2, c.ldc = c.mine.c.cols + 2;
        c.a = c.cut(a, k, c.mine.a, c.lda, false);
        c.b = c.cut(b, n, c.mine.b, c.ldb, false);
        each(c);
      }
}

}  // namespace pplab::test
