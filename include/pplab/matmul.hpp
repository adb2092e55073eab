#pragma once
// Matrix multiplication C = alpha*A*B + beta*C, row-major, float or double, any M, N, K >= 0,
// with leading dimensions (row strides, in elements) for sub-matrix views.
// As in BLAS, beta == 0 overwrites C without reading it, so NaN in an unset C does not spread.
// C must not overlap A or B.
#include <cstddef>
#include <string>
#include <vector>

#include "backend.hpp"
#include "dtype.hpp"
#include "error.hpp"

namespace pplab {

template <class T> struct matrix_ref {
  T* data = nullptr;
  std::size_t rows = 0, cols = 0;
  std::size_t ld = 0;  // row stride in elements; 0 means cols
  std::size_t stride() const noexcept { return ld ? ld : cols; }
};

// m, n and k are the whole product's. On the mpi backend a, b and c are this rank's blocks of the
// distributed matrices (`mpi_matmul_blocks` says which), lda, ldb and ldc their row strides;
// every rank calls with the same m, n, k, alpha and beta, and each gets its block of C. `how` may
// name the rung to run and asks which ran (pplab/backend.hpp).
void matmul(backend where, dtype t, std::size_t m, std::size_t n, std::size_t k, double alpha,
            const void* a, std::size_t lda, const void* b, std::size_t ldb, double beta, void* c,
            std::size_t ldc, const rung_choice& how = {});

// A stack of `batch` products, C_i = alpha A_i B_i + beta C_i for i < batch (numpy.matmul of
// stacks; cuBLAS's strided batch): matrix i of A at a + i * stride_a elements, of B and C
// likewise. A stride of 0 gives every product the same matrix (one matrix broadcast against a
// stack); C's matrices must not overlap. On the cpu backend a stack of small products (up to
// 256^3 multiply-adds each) is shared among the threads, one product to a thread at a time;
// otherwise, and on the other backends, the products run one after another, each as matmul runs
// it. `how` names the rung of every product and asks which ran.
void matmul_batched(backend where, dtype t, std::size_t batch, std::size_t m, std::size_t n,
                    std::size_t k, double alpha, const void* a, std::size_t lda,
                    std::size_t stride_a, const void* b, std::size_t ldb, std::size_t stride_b,
                    double beta, void* c, std::size_t ldc, std::size_t stride_c,
                    const rung_choice& how = {});

// A block of a matrix: rows [row0, row0 + rows) and columns [col0, col0 + cols).
struct matrix_block {
  std::size_t row0 = 0, rows = 0, col0 = 0, cols = 0;
};
struct matmul_blocks {
  matrix_block a, b, c;
};
// The blocks of A (m x k), B (k x n) and C (m x n) this process holds on the mpi backend: a 2-D
// grid of the ranks, SUMMA's layout (docs/mpi.md). One process (or any other backend): the
// whole matrices.
matmul_blocks mpi_matmul_blocks(std::size_t m, std::size_t n, std::size_t k);
// The same for the job of backend `where` (mpi, or nccl under mpirun; one process: the whole).
matmul_blocks matmul_blocks_of(backend where, std::size_t m, std::size_t n, std::size_t k);
// Every rank's block of C (`block`, elements of `elem_bytes`, rows of its block's width) put
// together on rank 0 as the whole m x n matrix, row-major (empty on the other ranks).
std::vector<std::byte> gather_c(backend where, const void* block, std::size_t m, std::size_t n,
                                std::size_t k, std::size_t elem_bytes);

template <class Tag, class T>
void matmul(Tag where, T alpha, matrix_ref<const T> a, matrix_ref<const T> b, T beta,
            matrix_ref<T> c) {
  if (a.cols != b.rows || c.rows != a.rows || c.cols != b.cols)
    fail(errc::invalid_argument, "matmul: shapes do not match: A is " + std::to_string(a.rows) +
                                     "x" + std::to_string(a.cols) + ", B is " +
                                     std::to_string(b.rows) + "x" + std::to_string(b.cols) +
                                     ", C is " + std::to_string(c.rows) + "x" +
                                     std::to_string(c.cols) + "; need A: MxK, B: KxN, C: MxN");
  matmul(backend(where), dtype_of<T>(), a.rows, b.cols, a.cols, double(alpha), a.data, a.stride(),
         b.data, b.stride(), double(beta), c.data, c.stride());
}

}  // namespace pplab
