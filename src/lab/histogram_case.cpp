// The lab's histogram case: bytes into their 256 natural bins (uniform, and all one value), and
// floats into 1024 (uniform, and 90% one value), 65536 and 2^20 bins (and on devices 2^20 bins
// with 90% in one); counts compared exactly with the seq reference; GB/s against the read
// ceiling, and for bytes on the host also against the one-counter-store-per-byte floor
// (histogram/cpu/byte_rows.hpp), measured in the same run. Split over a job's ranks: f32 into 1024
// and 2^20 bins, and 2^20 bins for 2^14 values (its time the combine's: 8 MiB of counts); over a
// host's GPUs: 1024 and 2^20 bins for 2^24 values per GPU (2^30 in a full run). And
// numpy.histogram's other bins and weights: 1024 bins given as an array of edges (quadratic
// spacing over [0, 1]; on devices also normal data into edges at sorted normal samples), and 1024
// and 65536 even bins summing f32 weights (the sums within 1e-9 of the reference's, relative to
// each bin's sum of |weights|; the weights' bytes count as read).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>

#include "core/generate.hpp"
#include "core/host/host_executor.hpp"
#include "core/run.hpp"
#include "histogram/atomic_rates.hpp"
#include "histogram/binning.hpp"
#include "histogram/cpu/byte_rows.hpp"
#include "histogram/image_baseline.hpp"
#include "histogram/rung.hpp"
#include "lab/lab_loop.hpp"

namespace pplab::lab {
namespace {

struct histogram_case {
  using rung_type = detail::histogram_rung;
  static constexpr int host_min_reps = 5;
  using problem = lab_problem<detail::histogram_problem>;

  std::vector<problem> problems(const settings& opts) const {
    const size s = opts.scale;
    const std::size_t nb = s == size::full ? std::size_t(1) << 30
                                           : (s == size::quick ? std::size_t(1) << 26 : 1 << 16);
    const std::size_t nf = s == size::full ? std::size_t(1) << 28
                                           : (s == size::quick ? std::size_t(1) << 24 : 1 << 16);
    std::vector<problem> out;
    const auto add = [&](dtype t, detail::distribution d, std::size_t bins, std::size_t n,
                         double lo, double hi, bool natural, bool device_only = false) -> problem& {
      return out.emplace_back(problem{{t, n, bins, lo, hi, false, natural},
                                      std::string(name_of(t)) + " " + std::string(name_of(d)) +
                                          " " + pow2_label(bins) + " bins n=" + pow2_label(n),
                                      std::string(name_of(t)),
                                      std::string(name_of(d)),
                                      n,
                                      double(n * size_of(t)),
                                      0,
                                      device_only,
                                      d,
                                      std::nullopt,
                                      {}});
    };
    // The GPU issue's rows: bytes uniform and all one value; floats into 1024, 65536 and 2^20
    // bins, and 1024 bins with 90% of the values in one.
    add(dtype::u8, detail::distribution::uniform, 256, nb, 0, 256, true);
    add(dtype::u8, detail::distribution::constant, 256, nb, 0, 256, true);
    add(dtype::f32, detail::distribution::uniform, 1024, nf, 0, 1, false);
    add(dtype::f32, detail::distribution::skewed, 1024, nf, 0, 1, false);
    add(dtype::f32, detail::distribution::uniform, 65536, nf, 0, 1, false);
    add(dtype::f32, detail::distribution::uniform, std::size_t(1) << 20, nf, 0, 1, false);
    // Many bins with 90% of the values in one: what a rung with one global atomic per element
    // does on a hot counter (the GPU's many-bins policy is chosen for it).
    add(dtype::f32, detail::distribution::skewed, std::size_t(1) << 20, nf, 0, 1, false, true);
    // Normal data over [-4, 4): what `torch.histc(torch.randn(n), bins, -4, 4)` bins. Its
    // positions are not exact floats (x + 4 rounds), and its buckets are uneven.
    for (std::size_t bins : {std::size_t(1024), std::size_t(65536), std::size_t(1) << 20})
      add(dtype::f32, detail::distribution::normal, bins, nf, -4, 4, false, true);
    // Every range above has bins of a power-of-two width, which the GPU bins with no edge
    // comparison (power_of_two_width_binner); 1000 bins over [0, 1) keep the float binner's
    // comparisons measured.
    add(dtype::f32, detail::distribution::uniform, 1000, nf, 0, 1, false, true);
    // numpy.histogram(x, edges) and numpy.histogram(x, 1024, weights=w).
    problem& edges = add(dtype::f32, detail::distribution::uniform, 1024, nf, 0, 1, false);
    edges.p.edge_array = true, edges.p.closed_last = true;
    edges.group = "f32 uniform 2^10 edges (array) n=" + pow2_label(nf);
    // Normal data into 1024 edges at sorted normal samples: where the data's quantiles fall, the
    // way bins are often chosen; the edges crowd where the values do, some gaps far narrower
    // than the mean (the even cells of the GPU's binners then meet several bins).
    problem& quantiles = add(dtype::f32, detail::distribution::normal, 1024, nf, 0, 1, false, true);
    quantiles.p.edge_array = true, quantiles.p.closed_last = true;
    quantiles.group = "f32 normal 2^10 edges at normal samples n=" + pow2_label(nf);
    // And numpy.bincount(x, w) into 65536 bins: more slots than one block's shared memory holds.
    for (std::size_t bins : {std::size_t(1024), std::size_t(65536)}) {
      problem& weighted = add(dtype::f32, detail::distribution::uniform, bins, nf, 0, 1, false);
      weighted.p.weighted = true, weighted.p.weight_type = dtype::f32;
      weighted.group = "f32 uniform " + pow2_label(bins) + " bins f32 weights n=" + pow2_label(nf);
      weighted.bytes = double(nf * 8);
    }
    const auto split = [&](backend b, std::size_t bins, std::size_t n, const std::string& on) {
      problem& pr = add(dtype::f32, detail::distribution::uniform, bins, n, 0, 1, false);
      pr.group = "f32 " + pow2_label(bins) + " bins n=" + on;
      pr.split = b;
    };
    if (wants(opts, "histogram", backend::mpi)) {
      const std::string ranks =
          " on " + std::to_string(detail::executor_for(backend::mpi).ranks()) + " ranks";
      for (auto [bins, n] : {std::pair{std::size_t(1024), nf},
                             {std::size_t(1) << 20, nf},
                             {std::size_t(1) << 20, std::size_t(1) << 14}})
        split(backend::mpi, bins, n, pow2_label(n) + ranks);
    }
    if (wants(opts, "histogram", backend::nccl)) {
      const std::size_t g = std::size_t(detail::nccl_gpu_count());
      const std::size_t per_gpu = s == size::full ? std::size_t(1) << 30 : nf;
      for (std::size_t bins : {std::size_t(1024), std::size_t(1) << 20})
        split(backend::nccl, bins, per_gpu * g,
              pow2_label(per_gpu) + " per GPU on " + std::to_string(g) + " GPUs");
    }
    return out;
  }

  struct host_data {
    std::unique_ptr<std::byte[]> in;
    std::vector<float> weights;  // weighted problems
    std::vector<double> edges;   // edge-array problems: (i / bins)^2, i = 0..bins; sorted
                                 // normal samples for normal data
    std::vector<std::uint64_t> ref;
  };
  host_data prepare(const problem& pr) const {
    host_data h;
    h.in.reset(new std::byte[pr.n * size_of(pr.p.type) + 1]);
    detail::generate(pr.p.type, h.in.get(), pr.n, pr.dist, 7);
    if (pr.p.weighted) {
      h.weights.resize(pr.n);
      detail::generate(dtype::f32, h.weights.data(), pr.n, detail::distribution::normal, 11);
    }
    if (pr.p.edge_array && pr.dist == detail::distribution::normal) {
      h.edges.resize(pr.p.bins + 1);
      detail::generate(dtype::f64, h.edges.data(), h.edges.size(), detail::distribution::normal, 3);
      std::sort(h.edges.begin(), h.edges.end());
    } else if (pr.p.edge_array) {
      for (std::size_t i = 0; i <= pr.p.bins; ++i)
        h.edges.push_back(double(i) * double(i) / (double(pr.p.bins) * double(pr.p.bins)));
    }
    h.ref.resize(detail::slots(pr.p));
    detail::run_rung(*detail::find<detail::histogram_rung>("histogram/seq/h01_sequential"), pr.p,
                     detail::histogram_data(h.in.get(), h.weights.data(), h.edges.data()),
                     h.ref.data());
    return h;
  }

  struct placed {
    placed_input in, weights, edges;
    detail::buffer counts;
    detail::histogram_problem p;  // this process's part
  };
  placed place(detail::executor& ex, const problem& pr, const host_data& h) const {
    const part mine = ex.my_part(pr.n);
    const std::size_t w = size_of(pr.p.type);
    detail::histogram_problem local = pr.p;
    local.n = mine.count;
    return {place_input(ex, h.in.get() + mine.first * w, mine.count * w),
            place_input(ex, h.weights.data() + (h.weights.empty() ? 0 : mine.first),
                        h.weights.empty() ? 0 : mine.count * sizeof(float)),
            place_input(ex, h.edges.data(), h.edges.size() * sizeof(double)),
            detail::buffer(ex, detail::slots(pr.p) * 8), local};
  }
  detail::histogram_call call(const problem&, placed& pl, void* scratch, void* stream) const {
    return {pl.p,
            pl.in.data,
            pl.counts.as<std::uint64_t>(),
            scratch,
            stream,
            pl.weights.data,
            static_cast<const double*>(pl.edges.data)};
  }
  void poison(detail::executor& ex, const problem&, placed& pl) const {
    ex.fill(pl.counts.get(), 0xde, pl.counts.size());
  }
  verdict verify(detail::executor& ex, const problem& pr, const host_data& h, placed& pl,
                 const detail::rung_info& info) const {
    std::vector<std::uint64_t> got(h.ref.size());
    ex.copy_out(got.data(), pl.counts.get(), got.size() * 8);
    verdict v;
    if (pr.p.weighted) return verify_sums(pr, h, got);
    v.ok = got == h.ref;
    v.max_rel_err = 0;
    if (info.racy) {
      const std::uint64_t counted = std::accumulate(got.begin(), got.end(), std::uint64_t(0));
      v.note = "racy on purpose: lost " + std::to_string(pr.n - counted) + " of " +
               std::to_string(pr.n) + " counts";
    } else if (!v.ok) {
      v.note = "counts differ from the reference";
    }
    return v;
  }

  // Sums of weights: each within 1e-9 of the reference's, relative to the bin's sum of |weights|
  // (the reference sums in double in order; a rung may sum in another order or in fixed point).
  static verdict verify_sums(const problem& pr, const host_data& h,
                             const std::vector<std::uint64_t>& got) {
    std::vector<double> magnitude(h.ref.size());
    const detail::range_binner bin(pr.p);
    const auto* x = reinterpret_cast<const float*>(h.in.get());
    for (std::size_t i = 0; i < pr.n; ++i) magnitude[bin(x[i])] += std::fabs(h.weights[i]);
    verdict v;
    v.max_rel_err = 0;
    for (std::size_t s = 0; s < got.size(); ++s) {
      double g = 0, want = 0;
      std::memcpy(&g, &got[s], 8);
      std::memcpy(&want, &h.ref[s], 8);
      const double err = magnitude[s] > 0 ? std::fabs(g - want) / magnitude[s] : std::fabs(g);
      v.max_rel_err = std::max(v.max_rel_err, err);
    }
    v.ok = v.max_rel_err <= 1e-9;
    if (!v.ok) v.note = "sums differ from the reference";
    return v;
  }

  // Bytes counted on the host: their floor is one counter store per byte, not the read. On the
  // GPU the atomic hierarchy is measured once (histogram/atomic_rates.hpp), and bytes, one
  // shared atomic each, are held against the shared-memory atomic rate as well.
  void extra_ceilings(session& s, detail::executor& ex, const problem& pr, row& r) const {
    const bool bytes = size_of(pr.p.type) == 1 && pr.p.natural;
    if (ex.kind() == backend::cuda) {
      if (std::isnan(s.ceiling("gpu_atomic_shared_Gps"))) {
        s.progress("measuring the GPU's atomic rates (shared, L2, DRAM, one counter)");
        for (detail::ceiling& c : detail::measure_gpu_atomic_rates(ex, s.opts.budget_s))
          s.add_ceiling(std::move(c));
      }
      if (bytes) r.floor = "gpu_atomic_shared_byte_GBps";
      return;
    }
    if (!ex.host_memory() || !bytes) return;
    if (std::isnan(s.ceiling("store_GBps"))) {
      s.progress("measuring the byte histogram's floor (one counter store per byte)");
      s.add_ceiling({"store_GBps",
                     detail::measure_byte_store_floor_GBps(s.probe_bytes(), s.opts.budget_s),
                     "all-thread byte loop storing one 32-bit counter per byte (no add): a byte "
                     "histogram's floor"});
    }
    r.floor = "store_GBps";
  }
  // The uniform bytes as an RGBA image of n / 4 pixels, on the GPU: CUB's MultiHistogramEven
  // over the interleaved pixels (the vendor's call for image channels, the baseline) against the
  // rung the API picks for one channel, run on each of the four channels as pplab holds an image
  // (apart: its reader separates them while decoding). The same bytes either way; each answer
  // checked against its own layout's counts.
  void image_rows(session& s, detail::executor& ex, const problem& pr, const host_data& h) const {
    const std::size_t pixels = pr.n / 4;
    const detail::histogram_problem one{dtype::u8, pixels, 256, 0, 256, false, true};
    const detail::histogram_rung& rung =
        detail::default_rung<detail::histogram_rung>(ex.kind(), one);
    if (!wants_rung(s.opts, rung.info)) return;
    const std::string group = "u8 RGBA image 4x2^8 bins n=" + pow2_label(pixels) + " pixels";
    s.progress("image channels (" + group + ")");
    std::vector<std::uint64_t> interleaved(1024), apart(1024);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(h.in.get());
    for (std::size_t i = 0; i < 4 * pixels; ++i) ++interleaved[(i & 3) * 256 + bytes[i]];
    for (std::size_t c = 0; c < 4; ++c)  // no division per byte: 2^30 of them in a full run
      for (std::size_t i = 0; i < pixels; ++i) ++apart[c * 256 + bytes[c * pixels + i]];
    const placed_input in = place_input(ex, h.in.get(), 4 * pixels);
    const auto add = [&](const detail::rung_info& info, const std::function<void()>& work,
                         const std::function<bool()>& right, std::string note) {
      const detail::timing t = ex.time(work, s.plan(host_min_reps));
      row r = row_of(info, group, "u8", "RGBA", pixels, t);
      r.api_pick = info.id == rung.info.id;
      r.verified = right();
      r.max_rel_err = 0;
      r.note = r.verified ? std::move(note) : "counts differ from the reference";
      s.rate_bytes(r, ex, double(4 * pixels));
      s.out.rows.push_back(r);
    };
    {  // CUB
      detail::buffer counts(ex, 1024 * 8);
      detail::buffer scratch = detail::scratch_for(ex, detail::cub_rgba_histogram_scratch(pixels));
      add(
          {"histogram/cuda/h00_cub_multi_histogram_even", ex.kind(), 0, ""},
          [&] {
            detail::cub_rgba_histogram(in.data, pixels, counts.as<std::uint64_t>(), scratch.get(),
                                       ex.stream());
          },
          [&] {
            std::vector<std::uint64_t> got(1024);
            ex.copy_out(got.data(), counts.get(), got.size() * 8);
            return got == interleaved;
          },
          "interleaved RGBA pixels, 4 x 256 bins");
    }
    {  // pplab's rung, channel by channel
      const std::size_t nslots = detail::slots(one);
      detail::buffer counts(ex, 4 * nslots * 8);
      detail::buffer scratch = detail::scratch_for(ex, rung.scratch(one));
      const auto* first = static_cast<const std::uint8_t*>(in.data);
      add(
          {rung.info.id, ex.kind(), rung.info.step, ""},
          [&] {
            for (std::size_t c = 0; c < 4; ++c)
              rung.run({one, first + c * pixels, counts.as<std::uint64_t>() + c * nslots,
                        scratch.get(), ex.stream()});
          },
          [&] {
            std::vector<std::uint64_t> got(4 * nslots);
            ex.copy_out(got.data(), counts.get(), got.size() * 8);
            for (std::size_t c = 0; c < 4; ++c)
              for (std::size_t k = 0; k < nslots; ++k)
                if (got[c * nslots + k] != (k < 256 ? apart[c * 256 + k] : 0)) return false;
            return true;
          },
          "the 4 channels apart (as pplab's reader gives them), one call each");
    }
  }

  // Floats in host memory through the API on a device backend with the range left to the data
  // (numpy.histogram's default): one crossing of the bus, held against the host-to-device copy.
  // The reference is the cpu backend's answer to the same call (its own minimum and maximum).
  void inferred_range_row(session& s, detail::executor& ex, const problem& pr,
                          const host_data& h) const {
    histogram_options o;
    o.bins = pr.p.bins;
    const histogram_result want = histogram(backend::cpu, pr.p.type, h.in.get(), pr.n, o);
    add_host_data_row(
        s, ex, pr, "histogram",
        [&](double& err) {
          const histogram_result got = histogram(ex.kind(), pr.p.type, h.in.get(), pr.n, o);
          err = 0;
          return got.counts == want.counts && got.lo == want.lo && got.hi == want.hi &&
                 got.underflow == want.underflow && got.overflow == want.overflow &&
                 got.nan == want.nan;
        },
        "inferred range");
  }

  // Bytes in host memory through the API on a device backend: streamed through the executor,
  // held against the host-to-device copy measured in the same run; and the same bytes as the
  // channels of an image on the GPU.
  void extra_rows(session& s, detail::executor& ex, const problem& pr, const host_data& h) const {
    if (ex.host_memory() || pr.dist != detail::distribution::uniform) return;
    if (pr.p.weighted || pr.p.edge_array) return;
    if (pr.p.type == dtype::f32 && pr.p.bins == 1024) return inferred_range_row(s, ex, pr, h);
    if (pr.p.type != dtype::u8 || !pr.p.natural) return;
    add_host_data_row(s, ex, pr, "histogram", [&](double& err) {
      const histogram_result got = histogram(ex.kind(), pr.p.type, h.in.get(), pr.n);
      std::vector<std::uint64_t> slots = got.counts;
      slots.insert(slots.end(), {got.underflow, got.overflow, got.nan});
      err = 0;
      return slots == h.ref;
    });
    // After the host-data row: the report prints a problem's rows while they run together.
    if (ex.kind() == backend::cuda) image_rows(s, ex, pr, h);
  }
};

}  // namespace

void run_histogram_case(session& s) { run_case(s, histogram_case{}); }
std::vector<std::string> planned_histogram(const settings& s) {
  return planned(s, histogram_case{});
}

}  // namespace pplab::lab
