// The lab's reduction case: f32 sum, i32 sum, f32 max and f32 argmax over uniform data, the exact
// sums of f32 and f64 beside plain ones (in a full run also of normal f32 data and of f32 and f64
// data spread over 120 binades, each beside its plain sum) (and, on a device,
// f32 sums of shrinking size: where launches, not bytes, set the time), checked against the seq
// reference with the tolerance rule of core/verify.hpp; GB/s against the read ceiling. On a
// device it also times pplab::reduce on host data, against the host-to-device copy. Split over a
// job's ranks: f32 and i32 sums and the f32 exact sum of the same array whatever the rank count
// (strong scaling); over
// a host's GPUs: 2^24 values per GPU (2^30 in a full run; weak scaling), and 2^20 per GPU, where
// a whole call's latency shows beside the 4-byte all-reduce's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/generate.hpp"
#include "core/host/host_executor.hpp"
#include "core/run.hpp"
#include "core/verify.hpp"
#include "lab/lab_loop.hpp"
#include "pplab/device.hpp"
#include "reduce/reduce_common.hpp"
#include "reduce/rung.hpp"

namespace pplab::lab {
namespace {

struct reduce_case {
  using rung_type = detail::reduce_rung;
  static constexpr int host_min_reps = 5;
  using problem = lab_problem<detail::reduce_problem>;

  static std::size_t big(size s) {
    return s == size::full ? std::size_t(1) << 28
                           : (s == size::quick ? std::size_t(1) << 24 : std::size_t(1) << 16);
  }

  std::vector<problem> problems(const settings& opts) const {
    const size s = opts.scale;
    std::vector<problem> out;
    const auto add = [&](dtype t, op o, std::size_t n, bool device_only,
                         bool exact = false) -> problem& {
      return out.emplace_back(problem{{t, o, n, exact},
                                      std::string(name_of(t)) + (exact ? " exact " : " ") +
                                          std::string(name_of(o)) + " n=" + pow2_label(n),
                                      std::string(name_of(t)),
                                      std::string(name_of(o)),
                                      n,
                                      double(n * size_of(t)),
                                      0,
                                      device_only,
                                      detail::distribution::uniform,
                                      std::nullopt,
                                      {}});
    };
    for (auto [t, o] : {std::pair{dtype::f32, op::sum},
                        {dtype::i32, op::sum},
                        {dtype::f32, op::max},
                        {dtype::f32, op::argmax},
                        {dtype::f32, op::var},
                        {dtype::f32, op::nansum},
                        {dtype::f32, op::nanmean},
                        {dtype::f32, op::count_nonzero}})
      add(t, o, big(s), false);
    // Exact sums beside the plain ones of the same data: f32 over the same count, f64 over half
    // as many (the same bytes).
    add(dtype::f32, op::sum, big(s), false, true);
    add(dtype::f64, op::sum, big(s) / 2, false);
    add(dtype::f64, op::sum, big(s) / 2, false, true);
    if (s == size::full)  // and normal data (signs mixed, exponents wider), and data spread
      for (auto [t, d] : {std::pair{dtype::f32, detail::distribution::normal},
                          {dtype::f32, detail::distribution::spread},
                          {dtype::f64, detail::distribution::spread}}) {
        for (bool exact : {false, true}) {  // over 120 binades: what no window takes
          problem& pr = add(t, op::sum, big(s) / size_of(t) * 4, false, exact);
          pr.dist = d;
          pr.group += " " + std::string(name_of(d));
        }
      }
    if (s == size::full)
      for (std::size_t n : {std::size_t(1) << 24, std::size_t(1) << 20, std::size_t(1) << 16})
        add(dtype::f32, op::sum, n, true);
    if (wants(opts, "reduce", backend::mpi)) {
      const std::string ranks =
          " on " + std::to_string(detail::executor_for(backend::mpi).ranks()) + " ranks";
      for (auto [t, o] :
           {std::pair{dtype::f32, op::sum}, {dtype::i32, op::sum}, {dtype::f32, op::var}}) {
        problem& pr = add(t, o, big(s), false);
        pr.group += ranks, pr.split = backend::mpi;
      }
      problem& pr = add(dtype::f32, op::sum, big(s), false, true);  // one process's bits
      pr.group += ranks, pr.split = backend::mpi;
    }
    if (wants(opts, "reduce", backend::nccl)) {
      const std::size_t g = std::size_t(detail::nccl_gpu_count());
      const std::size_t per_gpu = s == size::full ? std::size_t(1) << 30 : big(s);
      for (std::size_t each : {per_gpu, std::size_t(1) << 20}) {
        if (each != per_gpu && s == size::tiny) continue;
        problem& pr = add(dtype::f32, op::sum, each * g, false);
        pr.group = "f32 sum n=" + pow2_label(each) + " per GPU on " + std::to_string(g) + " GPUs";
        pr.split = backend::nccl;
        if (each != per_gpu)
          pr.note = "a whole call, beside the 4-byte all-reduce's latency (nccl_latency_us)";
      }
      problem& pr = add(dtype::f32, op::sum, per_gpu * g, false, true);  // one GPU's bits
      pr.group =
          "f32 exact sum n=" + pow2_label(per_gpu) + " per GPU on " + std::to_string(g) + " GPUs";
      pr.split = backend::nccl;
    }
    return out;
  }

  struct host_data {
    std::unique_ptr<std::byte[]> in;
    scalar ref;
    double scale = 0;  // sum |x|: the scale of a float sum's rounding error
  };
  host_data prepare(const problem& pr) const {
    host_data h;
    h.in.reset(new std::byte[pr.n * size_of(pr.p.type) + 1]);
    detail::generate(pr.p.type, h.in.get(), pr.n, pr.dist, 42);
    if (skips_nan(pr.p.what))  // the nan ops' data holds NaN to leave out: one element in 17
      visit_dtype(pr.p.type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_floating_point_v<T>)
          for (std::size_t i = 5; i < pr.n; i += 17)
            reinterpret_cast<T*>(h.in.get())[i] = std::numeric_limits<T>::quiet_NaN();
      });
    // The reference: seq's loop; for an exact sum the long accumulator, exact by construction.
    h.ref = detail::run_rung(
        *detail::find<detail::reduce_rung>(pr.p.exact ? "reduce/seq/r02_exact_long_accumulator"
                                                      : "reduce/seq/r01_sequential_loop"),
        pr.p, h.in.get());
    if (is_float(pr.p.type)) {
      // a variance's scale: the mean of the squares (its error grows with the mean's size); a
      // mean's the mean of |x|
      const bool var = is_moments(pr.p.what) && plain_of(pr.p.what) != op::mean;
      const bool mean = plain_of(pr.p.what) == op::mean;
      double s = 0;
      visit_dtype(pr.p.type, [&](auto tag) {
        using T = decltype(tag);
        const T* x = reinterpret_cast<const T*>(h.in.get());
#pragma omp parallel for reduction(+ : s)
        for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(pr.n); ++i)
          if (x[i] == x[i]) s += var ? double(x[i]) * double(x[i]) : std::abs(double(x[i]));
      });
      h.scale = var || mean ? s / double(std::max<std::size_t>(pr.n, 1)) : s;
    }
    return h;
  }

  struct placed {
    placed_input in;
    detail::buffer out;
    detail::reduce_problem p;  // this process's part
  };
  placed place(detail::executor& ex, const problem& pr, const host_data& h) const {
    const part mine = ex.my_part(pr.n);
    const std::size_t w = size_of(pr.p.type);
    return {place_input(ex, h.in.get() + mine.first * w, mine.count * w),
            detail::buffer(ex, detail::answer_bytes(pr.p)),
            {pr.p.type, pr.p.what, mine.count, pr.p.exact}};
  }
  detail::reduce_call call(const problem&, placed& pl, void* scratch, void* stream) const {
    return {pl.p, pl.in.data, pl.out.as<scalar>(), scratch, stream};
  }
  void poison(detail::executor& ex, const problem&, placed& pl) const {
    ex.fill(pl.out.get(), 0xab, detail::answer_bytes(pl.p));
  }
  verdict verify(detail::executor& ex, const problem& pr, const host_data& h, placed& pl,
                 const detail::rung_info& info) const {
    verdict v;
    if (pr.p.exact) {  // the same bits as the exact reference, or wrong
      detail::exact_total t;
      ex.copy_out(&t, pl.out.get(), sizeof t);
      const double got = detail::rounded(pr.p, t).f;
      v.ok = got == h.ref.f || (std::isnan(got) && std::isnan(h.ref.f));
      v.max_rel_err = v.ok ? 0 : std::abs(got - h.ref.f) / std::max(h.scale, 1e-300);
      v.note = "exact: the same bits as the long accumulator's";
      return v;
    }
    scalar got;
    if (is_moments(pr.p.what)) {  // the moments, before the variance's last step
      detail::moments m;
      ex.copy_out(&m, pl.out.get(), sizeof m);
      got = detail::answer_of(m, pr.p.what, pr.n);
    } else {
      ex.copy_out(&got, pl.out.get(), sizeof got);
    }
    v.ok = detail::close_enough(got, h.ref, h.scale, pr.n, info.float_accumulator, v.max_rel_err);
    if (info.float_accumulator) v.note = "accumulates in float: a float-sized tolerance";
    if (!info.reproducible && is_float(pr.p.type) && !is_arg(pr.p.what))
      v.note += std::string(v.note.empty() ? "" : "; ") + "float order not fixed: not reproducible";
    return v;
  }
  void extra_ceilings(session&, detail::executor&, const problem&, row&) const {}

  // Host data through the API on a device: pageable memory streamed through pinned buffers,
  // copies overlapped with the reduction. Its ceiling is the host-to-device copy.
  void extra_rows(session& s, detail::executor& ex, const problem& pr, const host_data& h) const {
    if (ex.host_memory() || pr.device_only || pr.p.what != op::sum) return;
    if (pr.p.exact) {  // pplab::sum_exact: the same bits as the reference's, or wrong
      const auto same = [&](double got, double& err) {
        err = got == h.ref.f ? 0 : 1;
        return got == h.ref.f;
      };
      const std::string name =
          "pplab::sum_exact(" + std::string(name_of(ex.kind())) + ", host data)";
      s.progress("host data through " + name);
      add_whole_call_row(s, ex, pr, "reduce", name, pr.bytes, "gpu_h2d_GBps",
                         "% of the host-to-device copy, not of the read ceiling", [&](double& err) {
                           return same(sum_exact(ex.kind(), pr.p.type, h.in.get(), pr.n), err);
                         });
      if (ex.kind() == backend::cuda)
        add_device_call_row(s, ex, pr, "reduce", "sum_exact_device", h.in.get(),
                            [&](const void* d, double& err) {
                              return same(sum_exact_device(pr.p.type, d, pr.n), err);
                            });
      return;
    }
    if (pr.p.type != dtype::f32) return;
    add_host_data_row(s, ex, pr, "reduce", [&](double& err) {
      const scalar got = reduce(ex.kind(), pr.p.type, h.in.get(), pr.n, pr.p.what);
      return detail::close_enough(got, h.ref, h.scale, pr.n, false, err);
    });
    if (ex.kind() == backend::cuda)
      add_device_call_row(s, ex, pr, "reduce", "reduce_device", h.in.get(),
                          [&](const void* d, double& err) {
                            const scalar got = reduce_device(pr.p.type, d, pr.n, pr.p.what);
                            return detail::close_enough(got, h.ref, h.scale, pr.n, false, err);
                          });
  }
};

}  // namespace

void run_reduce_case(session& s) { run_case(s, reduce_case{}); }
std::vector<std::string> planned_reduce(const settings& s) { return planned(s, reduce_case{}); }

}  // namespace pplab::lab
