// The lab on the GPU: the device's ceilings (theoretical bandwidth from its attributes, a copy,
// a vectorized read kernel, CUB's own float Sum) and every cuda reduction rung, timed with
// events on device-resident data, the L2 flushed between repeats, verified against the host.
// (No fmt here: its compile-time format checks do not pass through nvcc.)
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/device_memory.hpp"
#include "core/generate.hpp"
#include "core/registry.hpp"
#include "core/run_rung.hpp"
#include "core/timing.hpp"
#include "lab.hpp"

namespace pplab::cli {
namespace {

// Times `work` on the default stream: warm-up, then reps, each after an L2 flush that is not
// timed. Returns the median and minimum in milliseconds.
template <class F>
detail::timing time_gpu(F&& work, int reps, void* flush, std::size_t flush_bytes) {
  cudaEvent_t start, stop;
  PPLAB_CUDA(cudaEventCreate(&start));
  PPLAB_CUDA(cudaEventCreate(&stop));
  work();
  PPLAB_CUDA(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    PPLAB_CUDA(cudaMemsetAsync(flush, r & 0xff, flush_bytes));
    PPLAB_CUDA(cudaEventRecord(start));
    work();
    PPLAB_CUDA(cudaEventRecord(stop));
    PPLAB_CUDA(cudaEventSynchronize(stop));
    float t = 0;
    PPLAB_CUDA(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  PPLAB_CUDA(cudaEventDestroy(start));
  PPLAB_CUDA(cudaEventDestroy(stop));
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2] * 1e-3, ms.front() * 1e-3, reps};
}

// The read ceiling: every thread streams 16-byte loads, four in flight, and folds them with xor
// (nothing to compute), one store per block so the loads cannot be dropped.
__global__ void read_kernel(const uint4* __restrict__ in, std::size_t count, unsigned* sink) {
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * threads < count; i += 4 * threads) {
    const uint4 a = __ldg(in + i), b = __ldg(in + i + threads), c = __ldg(in + i + 2 * threads),
                d = __ldg(in + i + 3 * threads);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^
           d.w;
  }
  for (; i < count; i += threads) {
    const uint4 a = __ldg(in + i);
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // practically never: keeps the loads alive
}

struct gpu_bench {
  std::size_t bytes;
  detail::device_buffer data, flush, sink;
  std::size_t flush_bytes;
  explicit gpu_bench(std::size_t b)
      : bytes(b), data(b), flush(std::size_t(256) << 20), sink(4096, true),
        flush_bytes(std::size_t(256) << 20) {}
};

bool close(const scalar& got, const scalar& ref, double sum_abs, std::size_t n, double& rel) {
  if (got.k != ref.k) return rel = 1, false;
  if (got.k != scalar::kind::f64) return rel = 0, got.u == ref.u;
  if (got.f == ref.f) return rel = 0, true;
  rel = std::abs(got.f - ref.f) / std::max({sum_abs, std::abs(ref.f), 1e-300});
  return rel <= 2.0 * double(n + 16) * 0x1.0p-53;
}

}  // namespace

void lab_cuda_ceilings(lab_session& lab) {
  const std::size_t bytes = (lab.settings.quick ? std::size_t(1) << 26 : std::size_t(1) << 30);
  lab.progress("measuring the GPU's ceilings");
  gpu_bench b(bytes);
  detail::device_buffer copy(bytes);
  PPLAB_CUDA(cudaMemset(b.data.get(), 1, bytes));
  const int reps = lab.settings.quick ? 10 : 30;
  const detail::timing c = time_gpu(
      [&] {
        PPLAB_CUDA(cudaMemcpyAsync(copy.get(), b.data.get(), bytes, cudaMemcpyDeviceToDevice));
      },
      reps, b.flush.get(), b.flush_bytes);
  int sms = detail::gpu().sm_count;
  const detail::timing r = time_gpu(
      [&] {
        read_kernel<<<unsigned(sms * 8), 256>>>(static_cast<const uint4*>(b.data.get()), bytes / 16,
                                                static_cast<unsigned*>(b.sink.get()));
        PPLAB_CUDA_LAUNCHED();
      },
      reps, b.flush.get(), b.flush_bytes);
  // Host to device from pinned memory: the ceiling of the staging path for host data.
  {
    const std::size_t h2d = std::min(bytes, std::size_t(256) << 20);
    void* pinned = nullptr;
    PPLAB_CUDA(cudaMallocHost(&pinned, h2d));
    std::memset(pinned, 1, h2d);
    const detail::timing t = time_gpu(
        [&] { PPLAB_CUDA(cudaMemcpyAsync(b.data.get(), pinned, h2d, cudaMemcpyHostToDevice)); },
        reps, b.flush.get(), b.flush_bytes);
    PPLAB_CUDA(cudaFreeHost(pinned));
    lab.ceilings.gpu_h2d_GBps = double(h2d) / t.median_s * 1e-9;
  }
  lab.ceilings.gpu_theoretical_GBps = detail::gpu().mem_GBps_theoretical;
  lab.ceilings.gpu_copy_GBps = 2.0 * double(bytes) / c.median_s * 1e-9;
  lab.ceilings.gpu_read_GBps = double(bytes) / r.median_s * 1e-9;
}

void lab_cuda_reduce(lab_session& lab) {
  if (!lab.wants(pattern::reduce, backend::cuda)) return;
  struct problem {
    dtype t;
    op what;
    std::size_t n;
  };
  std::vector<problem> problems;
  const std::size_t big = lab.settings.quick ? std::size_t(1) << 24 : std::size_t(1) << 28;
  for (auto [t, o] : {std::pair{dtype::f32, op::sum}, {dtype::f32, op::max}, {dtype::i32, op::sum}})
    problems.push_back({t, o, big});
  if (!lab.settings.quick)
    for (std::size_t n : {std::size_t(1) << 24, std::size_t(1) << 20, std::size_t(1) << 16})
      problems.push_back({dtype::f32, op::sum, n});
  const int reps = lab.settings.quick ? 10 : 50;
  for (const problem& pr : problems) {
    const std::size_t bytes = pr.n * size_of(pr.t);
    std::vector<std::byte> host(bytes);
    detail::generate(pr.t, host.data(), pr.n, detail::distribution::uniform, 42);
    gpu_bench b(bytes);
    detail::copy_to_device(b.data.get(), host.data(), bytes);
    const detail::reduce_problem p{pr.t, pr.what, pr.n};
    const std::string group =
        std::string(name_of(pr.t)) + " " + std::string(name_of(pr.what)) + " n=" + pow2_label(pr.n);
    lab.progress("reference for " + group);
    const scalar ref =
        detail::run_reduce(*detail::find_reduce("reduce/seq/r01_sequential_loop"), p, host.data());
    double sum_abs = 0;
    if (pr.t == dtype::f32) {
      const float* x = reinterpret_cast<const float*>(host.data());
#pragma omp parallel for reduction(+ : sum_abs)
      for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(pr.n); ++i) sum_abs += std::abs(double(x[i]));
    }
    detail::device_buffer out(sizeof(scalar));
    // CUB's own float Sum (accumulating in float): the figure the targets are quoted against.
    if (pr.t == dtype::f32 && pr.what == op::sum) {
      std::size_t temp = 0;
      const float* in = static_cast<const float*>(b.data.get());
      float* res = static_cast<float*>(out.get());
      PPLAB_CUDA(cub::DeviceReduce::Sum(nullptr, temp, in, res, pr.n));
      detail::device_buffer tmp(temp);
      const detail::timing tm =
          time_gpu([&] { PPLAB_CUDA(cub::DeviceReduce::Sum(tmp.get(), temp, in, res, pr.n)); },
                   reps, b.flush.get(), b.flush_bytes);
      lab_row row;
      row.pattern = "reduce", row.backend = "cuda",
      row.variant = "cub::DeviceReduce::Sum (float accumulator)";
      row.rung = -1, row.group = group, row.dtype = "f32", row.op = "sum", row.n = pr.n;
      row.reps = tm.reps, row.median_ms = tm.median_s * 1e3, row.min_ms = tm.min_s * 1e3;
      row.GBps = double(bytes) / tm.median_s * 1e-9;
      row.pct_of_ceiling = 100 * row.GBps / lab.ceilings.gpu_read_GBps;
      float got = 0;
      detail::copy_to_host(&got, res, sizeof got);
      row.max_rel_err = std::abs(double(got) - ref.f) / std::max(sum_abs, 1e-300);
      row.verified = row.max_rel_err < 1e-5;  // a float accumulator: float-sized agreement
      row.note = "reference: not the same accumulator";
      lab.rows.push_back(row);
    }
    // Host data through the API: pageable memory streamed in 64 MiB chunks through pinned buffers,
    // copies overlapped with the reduction. Its ceiling is the host-to-device copy.
    if (pr.n == big && pr.t == dtype::f32 && pr.what == op::sum) {
      lab.progress("host data through pplab::reduce(cuda, ...)");
      scalar got;
      const detail::timing tm = detail::time_it(
          [&] { got = reduce(backend::cuda, pr.t, host.data(), pr.n, pr.what); }, 5,
          lab.settings.budget_s);
      lab_row row;
      row.pattern = "reduce", row.backend = "cuda", row.variant = "pplab::reduce(cuda, host data)";
      row.rung = -1, row.group = group, row.dtype = "f32", row.op = "sum", row.n = pr.n;
      row.reps = tm.reps, row.median_ms = tm.median_s * 1e3, row.min_ms = tm.min_s * 1e3;
      row.GBps = double(bytes) / tm.median_s * 1e-9;
      row.pct_of_ceiling = 100 * row.GBps / lab.ceilings.gpu_h2d_GBps;
      row.verified = close(got, ref, sum_abs, pr.n, row.max_rel_err);
      row.note = "% of the host-to-device copy, not of the read ceiling";
      lab.rows.push_back(row);
    }
    for (const auto& r : detail::rungs().reduce) {
      if (r.info.where != backend::cuda || !r.can_run(p)) continue;
      lab.progress(std::string(r.info.id) + " (" + group + ")");
      detail::device_buffer scratch(
          std::max<std::size_t>(r.scratch_bytes ? r.scratch_bytes(p) : 0, 256), true);
      detail::fill_device(out.get(), 0xab, sizeof(scalar));  // poison
      const detail::reduce_call call{p, b.data.get(), static_cast<scalar*>(out.get()),
                                     scratch.get(), nullptr};
      const detail::timing tm = time_gpu([&] { r.run(call); }, reps, b.flush.get(), b.flush_bytes);
      scalar got;
      detail::copy_to_host(&got, out.get(), sizeof got);
      lab_row row;
      row.pattern = "reduce", row.backend = "cuda", row.variant = std::string(r.info.id);
      row.rung = r.info.rung, row.group = group, row.dtype = std::string(name_of(pr.t));
      row.op = std::string(name_of(pr.what)), row.n = pr.n;
      row.reps = tm.reps, row.median_ms = tm.median_s * 1e3, row.min_ms = tm.min_s * 1e3;
      row.GBps = double(bytes) / tm.median_s * 1e-9;
      row.pct_of_ceiling = 100 * row.GBps / lab.ceilings.gpu_read_GBps;
      row.verified = close(got, ref, sum_abs, pr.n, row.max_rel_err);
      lab.rows.push_back(row);
    }
  }
}

}  // namespace pplab::cli
