// The lab's problems for each pattern, on the host backends: data, reference, timing, checks.
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "core/ceilings.hpp"
#include "core/generate.hpp"
#include "core/registry.hpp"
#include "core/run_rung.hpp"
#include "core/timing.hpp"
#include "histogram/binning.hpp"
#include "lab.hpp"

namespace pplab::cli {
namespace {

struct buffer {
  explicit buffer(std::size_t bytes) : data(new std::byte[bytes ? bytes : 1]) {}
  std::unique_ptr<std::byte[]> data;
};

lab_row row_of(const detail::variant_info& v, const std::string& group, dtype t,
               const std::string& op, std::size_t n, const detail::timing& tm) {
  lab_row r;
  r.pattern = std::string(name_of(v.what));
  r.backend = std::string(name_of(v.where));
  r.variant = std::string(v.id);
  r.rung = v.rung;
  r.group = group;
  r.dtype = std::string(name_of(t));
  r.op = op;
  r.n = n;
  r.reps = tm.reps;
  r.median_ms = tm.median_s * 1e3;
  r.min_ms = tm.min_s * 1e3;
  return r;
}

// Float results agree within the error bound of two double-precision sums of n terms.
bool close_enough(const scalar& got, const scalar& ref, double sum_abs, std::size_t n,
                  double& rel) {
  if (got.k != scalar::kind::f64) {
    rel = 0;
    return got.u == ref.u;
  }
  if (got.f == ref.f || (std::isnan(got.f) && std::isnan(ref.f))) {
    rel = 0;
    return true;
  }
  const double scale = std::max(sum_abs, std::abs(ref.f));
  rel = std::abs(got.f - ref.f) / (scale > 0 ? scale : 1);
  return rel <= 2.0 * double(n + 16) * 0x1.0p-53;
}

}  // namespace

void lab_reduce(lab_session& lab) {
  const std::size_t n = lab.settings.quick ? std::size_t(1) << 24 : std::size_t(1) << 28;
  struct problem {
    dtype t;
    op what;
  };
  const problem problems[] = {{dtype::f32, op::sum}, {dtype::i32, op::sum}, {dtype::f32, op::max}};
  std::unique_ptr<buffer> data;
  dtype filled = dtype::u8;
  if (!lab.wants(pattern::reduce, backend::seq) && !lab.wants(pattern::reduce, backend::cpu))
    return;
  for (const problem& pr : problems) {
    if (!data || filled != pr.t) {
      data = std::make_unique<buffer>(n * size_of(pr.t));
      detail::generate(pr.t, data->data.get(), n, detail::distribution::uniform, 42);
      filled = pr.t;
    }
    const detail::reduce_problem p{pr.t, pr.what, n};
    const std::string group =
        fmt::format("{} {} n={}", name_of(pr.t), name_of(pr.what), pow2_label(n));
    lab.progress("reference for " + group);
    const scalar ref = detail::run_reduce(*detail::find_reduce("reduce/seq/r01_sequential_loop"), p,
                                          data->data.get());
    double sum_abs = 0;  // the scale of a float sum's rounding error
    if (pr.t == dtype::f32) {
      const float* x = reinterpret_cast<const float*>(data->data.get());
#pragma omp parallel for reduction(+ : sum_abs)
      for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i) sum_abs += std::abs(double(x[i]));
    }
    for (const auto& r : detail::rungs().reduce) {
      if (!lab.wants(pattern::reduce, r.info.where) || r.mem != detail::memory::host ||
          !r.can_run(p))
        continue;
      lab.progress(fmt::format("{} ({})", r.info.id, group));
      scalar got;
      const detail::timing tm = detail::time_it(
          [&] { got = detail::run_reduce(r, p, data->data.get()); }, 5, lab.settings.budget_s);
      lab_row row = row_of(r.info, group, pr.t, std::string(name_of(pr.what)), n, tm);
      row.verified = close_enough(got, ref, sum_abs, n, row.max_rel_err);
      row.GBps = double(n * size_of(pr.t)) / tm.median_s * 1e-9;
      row.pct_of_ceiling = 100 * row.GBps / lab.ceilings.read_GBps;
      lab.rows.push_back(row);
    }
  }
}

void lab_histogram(lab_session& lab) {
  const bool quick = lab.settings.quick;
  struct problem {
    dtype t;
    detail::distribution dist;
    std::size_t bins, n;
    double lo, hi;
    bool natural;
  };
  const std::size_t nb = quick ? std::size_t(1) << 26 : std::size_t(1) << 30;
  const std::size_t nf = quick ? std::size_t(1) << 24 : std::size_t(1) << 26;
  const problem problems[] = {
      {dtype::u8, detail::distribution::uniform, 256, nb, 0, 256, true},
      {dtype::u8, detail::distribution::skewed, 256, nb, 0, 256, true},
      {dtype::f32, detail::distribution::uniform, 1024, nf, 0, 1, false},
      {dtype::f32, detail::distribution::uniform, std::size_t(1) << 22, nf, 0, 1, false}};
  if (!lab.wants(pattern::histogram, backend::seq) && !lab.wants(pattern::histogram, backend::cpu))
    return;
  for (const problem& pr : problems) {
    buffer data(pr.n * size_of(pr.t));
    detail::generate(pr.t, data.data.get(), pr.n, pr.dist, 7);
    const detail::histogram_problem p{pr.t, pr.n, pr.bins, pr.lo, pr.hi, false, pr.natural};
    const std::string group = fmt::format("{} {} {} bins n={}", name_of(pr.t), name_of(pr.dist),
                                          pow2_label(pr.bins), pow2_label(pr.n));
    lab.progress("reference for " + group);
    std::vector<std::uint64_t> ref(detail::slots(p)), got(detail::slots(p));
    detail::run_histogram(*detail::find_histogram("histogram/seq/h01_sequential"), p,
                          data.data.get(), ref.data());
    for (const auto& r : detail::rungs().histogram) {
      if (!lab.wants(pattern::histogram, r.info.where) || r.mem != detail::memory::host ||
          !r.can_run(p))
        continue;
      lab.progress(fmt::format("{} ({})", r.info.id, group));
      const detail::timing tm =
          detail::time_it([&] { detail::run_histogram(r, p, data.data.get(), got.data()); }, 5,
                          lab.settings.budget_s);
      lab_row row = row_of(r.info, group, pr.t, std::string(name_of(pr.dist)), pr.n, tm);
      row.verified = got == ref;
      row.max_rel_err = 0;
      if (!row.verified) row.note = "counts differ from the reference";
      row.GBps = double(pr.n * size_of(pr.t)) / tm.median_s * 1e-9;
      row.pct_of_ceiling = 100 * row.GBps / lab.ceilings.read_GBps;
      lab.rows.push_back(row);
    }
  }
}

namespace {

// Freivalds' check: C x against A (B x) in double, for a random x. A wrong element of C shows
// up in (C x)_i; the bound is k * eps * (|A| (|B| |x|))_i, the error a correct float product may
// have. Returns the largest error relative to that scale.
template <class T>
double freivalds(const T* a, const T* b, const T* c, std::size_t m, std::size_t n, std::size_t k) {
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

}  // namespace

void lab_matmul(lab_session& lab) {
  if (!lab.wants(pattern::matmul, backend::seq) && !lab.wants(pattern::matmul, backend::cpu))
    return;
  const std::size_t s = lab.settings.quick ? 512 : 2048;
  const std::size_t m = s, n = s, k = s;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  detail::generate(dtype::f32, a.data(), a.size(), detail::distribution::uniform, 3);
  detail::generate(dtype::f32, b.data(), b.size(), detail::distribution::uniform, 4);
  const detail::matmul_problem p{dtype::f32, m, n, k};
  const std::string group = fmt::format("f32 {}x{}x{}", m, n, k);
  const double flops = 2.0 * double(m) * double(n) * double(k);
  for (const auto& r : detail::rungs().matmul) {
    if (!lab.wants(pattern::matmul, r.info.where) || r.mem != detail::memory::host || !r.can_run(p))
      continue;
    lab.progress(fmt::format("{} ({})", r.info.id, group));
    std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());  // poison
    const detail::matmul_call call{p, 1.0, 0.0, a.data(), k, b.data(), n, c.data(), n, nullptr};
    const detail::timing tm =
        detail::time_it([&] { detail::run_matmul(r, call); }, 3, lab.settings.budget_s);
    lab_row row = row_of(r.info, group, dtype::f32, "gemm", m * n * k, tm);
    row.max_rel_err = freivalds(a.data(), b.data(), c.data(), m, n, k);
    row.verified = !std::isnan(row.max_rel_err) && row.max_rel_err <= 2.0 * double(k) * 0x1.0p-24;
    row.GFLOPs = flops / tm.median_s * 1e-9;
    row.pct_of_ceiling = 100 * row.GFLOPs / lab.ceilings.fp32_GFLOPs;
    lab.rows.push_back(row);
  }
}

}  // namespace pplab::cli
