// The lab's convolution case: correlation of an f32 image with square masks (the tiling notes'
// exercise), every output checked against the reference in double with the tolerance of
// core/verify.hpp (convolution/rung.hpp: close_to_reference). A row is held against its roofline:
// the image read once and the output written once against the copy ceiling, or the mask's
// multiply-adds against the FMA peak, whichever takes longer; each row also in Gpx/s. The timed
// problems use the nearest mode, the one mode the vendors' filters (NPP, OpenCV) share with
// SciPy; the tiny ones go through every mode. 8192 x 8192
// with masks 3 to 15 and 1024 x 1024 with 3 in a full run, 1024 x 1024 with masks 3 and 7 in a
// quick one (the seq reference rung reads every tap
// through the boundary mode); on a job's ranks, 7 x 7 over the same image whatever their count;
// on a host's GPUs (nccl), 7 x 7 over 61440 rows of 16384 per GPU in a full run. A full run's stack
// of 64 planes of 1024 x 1024 is filtered by the rungs that take a stack in a call: down its
// middle axis (15 x 1), and by a 9 x 9 outer product over its last two axes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "convolution/rung.hpp"
#include "core/generate.hpp"
#include "core/host/host_executor.hpp"
#include "lab/lab_loop.hpp"
#include "pplab/convolution.hpp"

namespace pplab::lab {
namespace {

struct convolution_case {
  using rung_type = detail::convolution_rung;
  static constexpr int host_min_reps = 3;
  using problem = lab_problem<detail::convolution_problem>;

  // `channels`: a u8 image's (its output u8 when u8_out, else f32).
  static problem filter(dtype t, std::size_t rows, std::size_t cols, std::size_t k, boundary mode,
                        bool separable = false, std::size_t channels = 1, bool u8_out = false) {
    const detail::convolution_problem p{t,    rows, cols,      k,        k,
                                        mode, 0.0,  separable, channels, u8_out};
    const std::size_t px = rows * cols, values = px * channels;
    const std::string image =
        t == dtype::u8 ? "u8 x" + std::to_string(channels) + (u8_out ? " to u8" : " to f32")
                       : std::string(name_of(t));
    problem pr{p,
               image + " " + std::to_string(rows) + "x" + std::to_string(cols) + " mask " +
                   std::to_string(k) + "x" + std::to_string(k) + (separable ? " separable " : " ") +
                   std::string(name_of(mode)),
               std::string(name_of(t)),
               std::to_string(k) + "x" + std::to_string(k),
               px,
               double(values * (size_of(t) + size_of(detail::output_type(p)))),
               // a separable mask's floor is its two passes: kh + kw multiply-adds per output
               2.0 * double(values) * double(separable ? 2 * k : k * k),
               false,
               detail::distribution::uniform,
               std::nullopt,
               {}};
    pr.roofline = true;
    pr.item = "px";
    return pr;
  }
  // A mask of one row (`across`: 1 x k) or one column (k x 1): a 1-D pass (correlate1d, one axis
  // of a named filter).
  static problem line(dtype t, std::size_t rows, std::size_t cols, std::size_t k, bool across,
                      boundary mode) {
    problem pr = filter(t, rows, cols, k, mode);
    pr.p.kh = across ? 1 : k, pr.p.kw = across ? k : 1;
    const std::string mask = std::to_string(pr.p.kh) + "x" + std::to_string(pr.p.kw);
    pr.group = std::string(name_of(t)) + " " + std::to_string(rows) + "x" + std::to_string(cols) +
               " mask " + mask + " " + std::string(name_of(mode));
    pr.op = mask;
    pr.flops = 2.0 * double(rows * cols) * double(k);
    return pr;
  }

  // `planes` of one image's problem `pr` as a stack, named "planes x rows x cols `what`": its
  // counts and traffic `planes` times one image's.
  static problem stacked(problem pr, std::size_t planes, const std::string& what) {
    pr.p.planes = planes;
    pr.group = std::string(name_of(pr.p.type)) + " " + std::to_string(planes) + "x" +
               std::to_string(pr.p.rows) + "x" + std::to_string(pr.p.cols) + " " + what + " " +
               std::string(name_of(pr.p.mode));
    pr.n *= planes, pr.bytes *= double(planes), pr.flops *= double(planes);
    return pr;
  }

  // A stack of `planes` images, each filtered down its columns by a k x 1 mask: a 3-D array's
  // middle axis, as SciPy's separable filters pass along it (no copy moves the axis first).
  static problem stack(dtype t, std::size_t planes, std::size_t rows, std::size_t cols,
                       std::size_t k, boundary mode) {
    return stacked(line(t, rows, cols, k, false, mode), planes,
                   "middle axis mask " + std::to_string(k) + "x1");
  }

  // A stack of `planes` images, each filtered by a k x k outer product: a 3-D array's last two
  // axes under a 3-D separable filter (a Gaussian's), the first axis's pass being a stack().
  static problem stack_outer(dtype t, std::size_t planes, std::size_t rows, std::size_t cols,
                             std::size_t k, boundary mode) {
    problem pr = stacked(filter(t, rows, cols, k, mode, true), planes,
                         "last two axes mask " + std::to_string(k) + "x" + std::to_string(k) +
                             " separable");
    pr.device_only = true;  // no host rung takes a stack of outer products
    return pr;
  }

  std::vector<problem> problems(const settings& opts) const {
    const size s = opts.scale;
    std::vector<problem> out;
    if (s == size::full) {
      for (std::size_t k : {3, 5, 7, 11, 15})
        out.push_back(filter(dtype::f32, 8192, 8192, k, boundary::nearest));
      for (std::size_t k : {7, 15})
        out.push_back(filter(dtype::f32, 8192, 8192, k, boundary::nearest, true));
      for (bool across : {true, false})
        out.push_back(line(dtype::f32, 8192, 8192, 15, across, boundary::reflect));
      // As many values as the 8192 x 8192 lines: a 64 x 1024 x 1024 array's middle axis
      out.push_back(stack(dtype::f32, 64, 1024, 1024, 15, boundary::reflect));
      // The same values' last two axes under a Gaussian of sigma 1 (9 taps an axis)
      out.push_back(stack_outer(dtype::f32, 64, 1024, 1024, 9, boundary::reflect));
      // A Gaussian of sigma 4's size, past c07's squares: on devices alone (the host rungs and
      // the reference take every one of its 1089 taps an output)
      out.push_back(filter(dtype::f32, 4096, 4096, 33, boundary::reflect, true));
      out.back().device_only = true;
      // A small image, where a device's launch latency is the cost to beat.
      out.push_back(filter(dtype::f32, 1024, 1024, 3, boundary::nearest));
      out.push_back(filter(dtype::u8, 4096, 4096, 5, boundary::nearest, false, 3, true));  // RGB
      // A blur of a photo: a separable 15 x 15 mask, which c08 takes only at run time.
      out.push_back(filter(dtype::u8, 2048, 2048, 15, boundary::nearest, true, 3, true));
    } else if (s == size::quick) {
      for (std::size_t k : {3, 7})
        out.push_back(filter(dtype::f32, 1024, 1024, k, boundary::nearest));
      out.push_back(filter(dtype::f32, 1024, 1024, 7, boundary::nearest, true));
      out.push_back(line(dtype::f32, 1024, 1024, 7, false, boundary::reflect));
      out.back().device_only = true;  // c13's row; the host's lines are the full run's
      out.push_back(filter(dtype::u8, 1024, 1024, 5, boundary::nearest, false, 3, true));
    } else {  // awkward sizes, every mode once, f64 too
      out.push_back(filter(dtype::f32, 61, 67, 5, boundary::reflect));
      out.push_back(filter(dtype::f32, 37, 29, 3, boundary::constant));
      out.push_back(filter(dtype::f64, 23, 41, 7, boundary::mirror));
      out.push_back(filter(dtype::f32, 29, 37, 5, boundary::wrap, true));
      out.push_back(filter(dtype::f64, 31, 19, 3, boundary::nearest, true));
      out.push_back(filter(dtype::u8, 29, 31, 3, boundary::constant, false, 3));
      out.push_back(filter(dtype::u8, 33, 17, 5, boundary::mirror, false, 4, true));
      out.push_back(line(dtype::f32, 61, 67, 5, true, boundary::reflect));
      out.push_back(line(dtype::f64, 37, 29, 9, false, boundary::mirror));
      out.push_back(stack(dtype::f32, 3, 29, 37, 5, boundary::wrap));
      out.push_back(stack_outer(dtype::f32, 3, 29, 37, 5, boundary::mirror));
    }
    if (wants(opts, "convolution", backend::mpi)) {
      const std::size_t side = s == size::full ? 8192 : (s == size::quick ? 1024 : 67);
      problem pr = filter(dtype::f32, side, side, 7, boundary::reflect);
      pr.group += " on " + std::to_string(detail::executor_for(backend::mpi).ranks()) + " ranks";
      pr.split = backend::mpi;
      out.push_back(pr);
    }
    // The GPUs of one host: in a full run 61440 rows of 16384 per GPU (3.75 GiB; two GPUs at the
    // least), so that each GPU's share stays ~40x its launches and edge bands whatever the GPU
    // count, and one GPU takes over 5 ms on the whole image (on 49152 rows a GPU one H200 took
    // 4.16 ms on two GPUs' image, 387 Gpx/s, and two 1.93x that; 16384^2 took 0.89 ms on one
    // H200, and its split's ~70 us held two GPUs to 1.73x).
    if (wants(opts, "convolution", backend::nccl)) {
      const detail::executor& gpus = detail::executor_for(backend::nccl);
      const std::size_t cols = s == size::full ? 16384 : (s == size::quick ? 2048 : 67);
      const std::size_t shares = std::max<std::size_t>(
          2, std::size_t(gpus.ranks() > 1 ? gpus.ranks() : detail::nccl_gpu_count()));
      const std::size_t rows = s == size::full ? 61440 * shares : cols;
      problem pr = filter(dtype::f32, rows, cols, 7, boundary::reflect);
      pr.group += " on " + (gpus.ranks() > 1 ? std::to_string(gpus.ranks()) + " processes"
                                             : std::to_string(detail::nccl_gpu_count()) + " GPUs");
      pr.split = backend::nccl;
      out.push_back(pr);
    }
    return out;
  }

  // A separable mask of mixed signs: a Gaussian down y times a shifted one across x, its factors
  // after its k x k values (convolution_problem::separable).
  static std::vector<double> separable_mask_of(std::size_t k) {
    std::vector<double> col(k), row(k), m(k * k);
    const double c = double(k / 2);
    for (std::size_t i = 0; i < k; ++i) {
      const double d = double(i) - c;
      col[i] = std::exp(-d * d / (2 + c));
      row[i] = std::exp(-d * d / (4 + 2 * c)) - 0.4 + 0.01 * double(i);
    }
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < k; ++j) m[i * k + j] = col[i] * row[j];
    m.insert(m.end(), col.begin(), col.end());
    m.insert(m.end(), row.begin(), row.end());
    return m;
  }

  // A mask of mixed signs (a difference of Gaussians' shape): no tap is zero, and the sums
  // cancel, so a wrong tap shows.
  static std::vector<double> mask_of(std::size_t k) {
    std::vector<double> m(k * k);
    const double c = double(k / 2);
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < k; ++j) {
        const double d2 = (double(i) - c) * (double(i) - c) + (double(j) - c) * (double(j) - c);
        m[i * k + j] =
            std::exp(-d2 / (2 + c)) - 0.5 * std::exp(-d2 / (4 + 2 * c)) + 0.01 * double(j);
      }
    return m;
  }

  // A line's taps (a 1 x k or k x 1 mask), of mixed signs as mask_of's.
  static std::vector<double> line_of(std::size_t k) {
    std::vector<double> m(k);
    const double c = double(k / 2);
    for (std::size_t i = 0; i < k; ++i) {
      const double d2 = (double(i) - c) * (double(i) - c);
      m[i] = std::exp(-d2 / (2 + c)) - 0.5 * std::exp(-d2 / (4 + 2 * c)) + 0.01 * double(i);
    }
    return m;
  }

  struct host_data {
    std::unique_ptr<std::byte[]> in;
    std::vector<double> mask, want, scale;
    std::vector<float> mask32;
    const void* typed_mask(dtype t) const {
      return t == dtype::f64 ? static_cast<const void*>(mask.data()) : mask32.data();
    }
  };
  host_data prepare(const problem& pr) const {
    const auto& p = pr.p;
    host_data h;
    const std::size_t plane = p.rows * p.cols * p.channels, values = p.planes * plane;
    h.in.reset(new std::byte[values * size_of(p.type) + 1]);
    detail::generate(p.type, h.in.get(), values, pr.dist, 11);
    h.mask = p.separable    ? separable_mask_of(p.kh)
             : p.kh == p.kw ? mask_of(p.kh)
                            : line_of(p.kh * p.kw);
    h.mask32.assign(h.mask.begin(), h.mask.end());
    h.want.resize(values), h.scale.resize(values);
    detail::convolution_problem one = p;
    one.planes = 1;
    for (std::size_t i = 0; i < p.planes; ++i)
      detail::reference_correlation(one, h.in.get() + i * plane * size_of(p.type),
                                    p.cols * p.channels, h.mask.data(), h.want.data() + i * plane,
                                    h.scale.data() + i * plane);
    return h;
  }

  // This process's rows of the image and of the output (on a job: part_of the rows).
  struct placed {
    placed_input in;
    detail::buffer out;
    const void* mask;
    part mine;
    detail::convolution_problem p;
  };
  placed place(detail::executor& ex, const problem& pr, const host_data& h) const {
    const part mine = ex.my_part(pr.p.rows);  // a stack: on one executor, all its planes
    const std::size_t values = pr.p.cols * pr.p.channels, row = values * size_of(pr.p.type);
    const std::size_t rows = mine.count * pr.p.planes;
    return {place_input(ex, h.in.get() + mine.first * row, rows * row),
            detail::buffer(ex, rows * values * size_of(detail::output_type(pr.p))),
            h.typed_mask(pr.p.type), mine, pr.p};
  }
  detail::convolution_call call(const problem& pr, placed& pl, void* scratch, void* stream) const {
    const std::size_t values = pr.p.cols * pr.p.channels, plane = pr.p.rows * values;
    return {pr.p, pl.in.data, values, pl.mask, pl.out.get(), values, scratch, stream, plane, plane};
  }
  void poison(detail::executor& ex, const problem& pr, placed& pl) const {
    // NaN in every float, 0xa5 in every byte (a value the u8 outputs are unlikely to have all
    // over): every output is written
    ex.fill(pl.out.get(), detail::output_type(pr.p) == dtype::u8 ? 0xa5 : 0xff, pl.out.size());
  }
  verdict verify(detail::executor& ex, const problem& pr, const host_data& h, placed& pl,
                 const detail::rung_info& info) const {
    const auto& p = pr.p;
    const std::size_t values = p.cols * p.channels;
    const std::size_t n = pl.mine.count * values * p.planes, first = pl.mine.first * values;
    std::vector<std::byte> got(pl.out.size() + 1);
    ex.copy_out(got.data(), pl.out.get(), pl.out.size());
    verdict v;
    v.ok = true;
    v.max_rel_err = 0;
    std::size_t wrong = 0;
    const dtype out = detail::output_type(p);
    for (std::size_t i = 0; i < n; ++i) {
      const double g = out == dtype::f32  ? double(reinterpret_cast<const float*>(got.data())[i])
                       : out == dtype::u8 ? double(std::uint8_t(got[i]))
                                          : reinterpret_cast<const double*>(got.data())[i];
      const double want = h.want[first + i], scale = h.scale[first + i];
      if (!detail::output_close_to_reference(p, g, want, scale, &info)) ++wrong;
      if (scale > 0 && std::isfinite(g) && out != dtype::u8)
        v.max_rel_err = std::max(v.max_rel_err, std::abs(g - want) / scale);
    }
    v.ok = wrong == 0;
    if (!v.ok) v.note = std::to_string(wrong) + " outputs differ from the reference";
    return v;
  }
  // The split rungs run on the TF32 tensor cores: their rows stay against the strict roofline
  // (above 100% where they beat the FMA peak), and the note says how busy they kept the tensor
  // cores, counting every multiply-add of their products against the peak of the instruction
  // they issue (mma.sync; c12 wgmma): three products each, of c09's bands (8 KS columns for each
  // 8 outputs of a mask row, KS = (kw + 14) / 8) or of c11's and c12's 16 x 16 mask (16 taps of
  // 16 slots per output, whatever the mask).
  void extra_ceilings(session& s, detail::executor&, const problem& pr, row& out) const {
    const bool wgmma = out.rung == "convolution/cuda/c12_split_tf32_wgmma";
    const std::string tf32 = wgmma ? "gpu_tf32_wgmma_GFLOPs" : "gpu_tf32_tensor_GFLOPs";
    const auto& p = pr.p;
    double tensor_taps = 0;  // a product's multiply-adds per output
    if (out.rung == "convolution/cuda/c09_split_tf32")
      tensor_taps = double(p.kh * 8 * ((p.kw + 14) / 8));
    else if (wgmma || out.rung == "convolution/cuda/c11_split_tf32_whole_mask") tensor_taps = 256.0;
    // Against the taps the row's GFLOP/s counts: kh + kw for a separable mask.
    const double per_tap = tensor_taps / double(p.separable ? p.kh + p.kw : p.kh * p.kw);
    if (per_tap == 0) return;
    out.other_units = true;
    if (std::isnan(s.ceiling(tf32)) || std::isnan(out.GFLOPs)) return;
    char note[192];
    std::snprintf(note, sizeof note,
                  "%.1f%% of the TF32 tensor cores' peak by %s (%.2fx the taps: the products' "
                  "padded taps, three products each)",
                  100 * 3 * per_tap * out.GFLOPs / s.ceiling(tf32), wgmma ? "wgmma" : "mma.sync",
                  3 * per_tap);
    out.add_note(note);
  }

  // A host image through the API on a device: streamed in row slabs with their halos, the copies
  // in and out overlapped with the filtering, held against the host-to-device copy (the output
  // crosses back at the same time, on the other direction of the bus).
  void extra_rows(session& s, detail::executor& ex, const problem& pr, const host_data& h) const {
    const auto& p = pr.p;
    const bool timed = (s.opts.scale == size::full && p.rows == 8192 && p.kh == 5) ||
                       (s.opts.scale == size::quick && p.kh == 3);
    if (ex.host_memory() || !ex.addressable() || pr.split || !timed || p.separable ||
        p.type != dtype::f32)
      return;
    std::vector<float> out(p.rows * p.cols);
    const auto check = [&](double& err) {
      err = 0;
      bool ok = true;
      for (std::size_t i = 0; i < out.size(); ++i) {
        ok = ok && detail::output_close_to_reference(p, out[i], h.want[i], h.scale[i]);
        if (h.scale[i] > 0 && std::isfinite(out[i]))
          err = std::max(err, std::abs(out[i] - h.want[i]) / h.scale[i]);
      }
      return ok;
    };
    filter_options o;
    o.mode = p.mode;
    const auto run = [&] {
      correlate(ex.kind(), p.type, h.in.get(), p.rows, p.cols, 0, h.mask.data(), p.kh, p.kw,
                out.data(), 0, o);
    };
    // Each way checked on a call of its own into a poisoned output, before its timed calls (a
    // check of each would be timed with it): the caller's memory as it is (pageable: staged
    // through page-locked buffers by the host threads), then page-locked in place, which the
    // GPU copies from and to directly.
    const std::size_t bytes_in = p.rows * p.cols * size_of(p.type);
    const std::string how = bytes_in >= detail::slab_streaming_bytes ? "row slabs" : "copied whole";
    const auto timed_row = [&](const std::string& way) {
      std::fill(out.begin(), out.end(), std::nanf(""));
      run();
      double err = 0;
      const bool ok = check(err);
      add_host_data_row(
          s, ex, pr, "correlate",
          [&](double& e) {
            run();
            e = err;
            return ok;
          },
          how + way, double(bytes_in));
      // The output crosses back at once: the bus's rate with copies both ways is the floor.
      row& added = s.out.rows.back();
      const double both = s.ceiling("gpu_h2d_both_ways_GBps");
      if (!std::isnan(both) && !std::isnan(added.GBps)) {
        char note[120];
        std::snprintf(note, sizeof note, "%.1f%% of the copy in while one goes out (%.1f GB/s)",
                      100 * added.GBps / both, both);
        added.add_note(note);
      }
    };
    timed_row("");
    // The image is only read: page-locking it in place changes nothing in it.
    void* image = const_cast<std::byte*>(h.in.get());
    if (ex.pin_host(image, bytes_in)) {
      if (ex.pin_host(out.data(), out.size() * sizeof(float))) {
        timed_row(", page-locked");
        ex.unpin_host(out.data());
      }
      ex.unpin_host(image);
    }
  }
};

}  // namespace

void run_convolution_case(session& s) { run_case(s, convolution_case{}); }
std::vector<std::string> planned_convolution(const settings& s) {
  return planned(s, convolution_case{});
}

}  // namespace pplab::lab
