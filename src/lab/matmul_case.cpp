// The lab's matmul case: C = A*B for square f32 matrices, verified by Freivalds' check (C x
// against A (B x) in double, O(n^2) instead of an O(n^3) reference) with the tolerance of
// core/verify.hpp; GFLOP/s against the fp32 multiply-add peak.
#include <algorithm>
#include <cmath>

#include "core/generate.hpp"
#include "core/verify.hpp"
#include "lab/lab_loop.hpp"

namespace pplab::lab {
namespace {

// Freivalds' check for a random x: a wrong element of C shows up in (C x)_i. Returns the largest
// error over the scale a correct float product may err by, (|A| (|B| |x|))_i; none for NaN.
double freivalds(const float* a, const float* b, const float* c, std::size_t m, std::size_t n,
                 std::size_t k) {
  std::vector<double> x(n), bx(k), babs(k);
  for (std::size_t j = 0; j < n; ++j) x[j] = double(detail::mix(j) >> 11) * 0x1.0p-53 - 0.5;
  for (std::size_t l = 0; l < k; ++l) {
    double s = 0, sa = 0;
    for (std::size_t j = 0; j < n; ++j) {
      s += double(b[l * n + j]) * x[j];
      sa += std::abs(double(b[l * n + j]) * x[j]);
    }
    bx[l] = s, babs[l] = sa;
  }
  double worst = 0;
  for (std::size_t i = 0; i < m; ++i) {
    double want = 0, scale = 0, got = 0;
    for (std::size_t l = 0; l < k; ++l) {
      want += double(a[i * k + l]) * bx[l];
      scale += std::abs(double(a[i * k + l])) * babs[l];
    }
    for (std::size_t j = 0; j < n; ++j) got += double(c[i * n + j]) * x[j];
    if (std::isnan(got)) return none;
    worst = std::max(worst, std::abs(got - want) / (scale > 0 ? scale : 1));
  }
  return worst;
}

struct matmul_case {
  using rung_type = detail::matmul_rung;
  static constexpr int host_min_reps = 3;
  using problem = lab_problem<detail::matmul_problem>;

  std::vector<problem> problems(size s) const {
    const std::size_t e = s == size::full ? 2048 : (s == size::quick ? 512 : 64);
    const std::string shape = std::to_string(e) + "x" + std::to_string(e) + "x" + std::to_string(e);
    return {{{dtype::f32, e, e, e}, "f32 " + shape, "f32", "gemm", e * e * e,
             3.0 * double(e * e) * 4, 2.0 * double(e) * double(e) * double(e)}};
  }

  struct host_data {
    std::vector<float> a, b;
  };
  host_data prepare(const problem& pr) const {
    host_data h{std::vector<float>(pr.p.m * pr.p.k), std::vector<float>(pr.p.k * pr.p.n)};
    detail::generate(dtype::f32, h.a.data(), h.a.size(), detail::distribution::uniform, 3);
    detail::generate(dtype::f32, h.b.data(), h.b.size(), detail::distribution::uniform, 4);
    return h;
  }

  struct placed {
    placed_input a, b;
    detail::buffer c;
  };
  placed place(detail::executor& ex, const problem& pr, const host_data& h) const {
    return {place_input(ex, h.a.data(), h.a.size() * 4), place_input(ex, h.b.data(), h.b.size() * 4),
            detail::buffer(ex, pr.p.m * pr.p.n * 4)};
  }
  detail::matmul_call call(const problem& pr, placed& pl, void* scratch, void* stream) const {
    const auto& p = pr.p;
    return {p, 1.0, 0.0, pl.a.data, p.k, pl.b.data, p.n, pl.c.get(), p.n, scratch, stream};
  }
  void poison(detail::executor& ex, const problem&, placed& pl) const {
    ex.fill(pl.c.get(), 0xff, pl.c.size());  // NaN in every float
  }
  verdict verify(detail::executor& ex, const problem& pr, const host_data& h, placed& pl,
                 const detail::variant_info&) const {
    std::vector<float> c(pr.p.m * pr.p.n);
    ex.copy_out(c.data(), pl.c.get(), c.size() * 4);
    verdict v;
    v.max_rel_err = freivalds(h.a.data(), h.b.data(), c.data(), pr.p.m, pr.p.n, pr.p.k);
    v.ok = !std::isnan(v.max_rel_err) && v.max_rel_err <= detail::dot_tolerance(pr.p.k, dtype::f32);
    if (!v.ok) v.note = "Freivalds' check failed";
    return v;
  }
  void extra_ceilings(session&, detail::executor&, const problem&, row&) const {}
  void extra_rows(session&, detail::executor&, const problem&, const host_data&) const {}
};

}  // namespace

void run_matmul_case(session& s) { run_case(s, matmul_case{}); }
std::vector<std::string> planned_matmul(const settings& s) { return planned(s, matmul_case{}); }

}  // namespace pplab::lab
