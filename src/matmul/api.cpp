// pplab::matmul: checks shapes, strides and overlap, picks the backend's rung, runs it.
#include <string>

#include "core/run_rung.hpp"
#include "pplab/matmul.hpp"

namespace pplab {
namespace {

struct span_bytes {
  const char* begin;
  const char* end;
};
span_bytes extent(const void* p, std::size_t rows, std::size_t cols, std::size_t ld,
                  std::size_t elem) {
  const char* b = static_cast<const char*>(p);
  if (!rows || !cols) return {b, b};
  return {b, b + ((rows - 1) * ld + cols) * elem};
}
bool overlap(span_bytes x, span_bytes y) { return x.begin < y.end && y.begin < x.end; }

}  // namespace

void matmul(backend where, dtype t, std::size_t m, std::size_t n, std::size_t k, double alpha,
            const void* a, std::size_t lda, const void* b, std::size_t ldb, double beta, void* c,
            std::size_t ldc) {
  if (t != dtype::f32 && t != dtype::f64)
    fail(errc::invalid_argument,
         "matmul: dtype " + std::string(name_of(t)) + " is not supported; use f32 or f64");
  lda = lda ? lda : k, ldb = ldb ? ldb : n, ldc = ldc ? ldc : n;
  const auto check = [](const char* name, std::size_t ld, std::size_t cols) {
    if (ld < cols)
      fail(errc::invalid_argument, std::string("matmul: ld") + name + " = " + std::to_string(ld) +
                                       " is less than its column count " + std::to_string(cols));
  };
  check("a", lda, k), check("b", ldb, n), check("c", ldc, n);
  if ((m && k && !a) || (k && n && !b) || (m && n && !c))
    fail(errc::invalid_argument, "matmul: a matrix with elements has a null data pointer");
  const std::size_t elem = size_of(t);
  const span_bytes cs = extent(c, m, n, ldc, elem);
  if (overlap(cs, extent(a, m, k, lda, elem)) || overlap(cs, extent(b, k, n, ldb, elem)))
    fail(errc::invalid_argument, "matmul: C overlaps A or B; write the product to its own memory");
  detail::require_backend(where);
  const detail::matmul_problem p{t, m, n, k};
  detail::run_matmul(detail::pick_matmul(where, p),
                     {p, alpha, beta, a, lda, b, ldb, c, ldc, nullptr});
}

}  // namespace pplab
