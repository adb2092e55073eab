// The nccl executor: the GPUs of the host (one process driving all, or one process per GPU under
// mpirun), its memory arrays split over them (array.hpp), host data copied to every GPU at once
// (one host thread per GPU), a timer that waits for every GPU, and the ceilings between GPUs:
// peer copy bandwidth, NCCL's all-reduce bus bandwidth, the latency of a 4-byte all-reduce, and
// one GPU's read and multiply-add rates times the GPU count. In a job of several processes, the
// job's agreement, gathers and barriers are the mpi executor's.
#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <vector>

#include "core/device.hpp"
#include "core/host/host_executor.hpp"
#include "core/nccl/array.hpp"
#include "core/timer.hpp"

namespace pplab::detail {
namespace {

using nccl::gpu_array;
using nccl::member;

// The part of the array's slice i inside [0, bytes): (first byte of the slice, length).
std::pair<std::size_t, std::size_t> within(const gpu_array& a, std::size_t i, std::size_t bytes) {
  const nccl::slice& s = a.slices[i];
  if (s.offset >= bytes) return {s.offset, 0};
  return {s.offset, std::min(s.bytes, bytes - s.offset)};
}

// f(i, member) for every GPU: on one host thread per GPU for copies of 64 MiB or more (pageable
// copies run at once on every GPU), from this thread for the small ones (an answer, counts),
// where starting threads would cost more than the copies.
void on_gpus(std::size_t bytes, const std::function<void(std::size_t, const member&)>& f) {
  if (bytes >= (std::size_t(64) << 20)) return nccl::in_parallel(f);
  nccl::each(f);
}

class gpus_executor final : public executor {
public:
  backend kind() const noexcept override { return backend::nccl; }
  std::string why_absent() const override { return nccl::why_absent(); }
  std::string describe() const override {
    const std::string why = why_absent();
    if (!why.empty()) return "absent: " + why;
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, nccl::members().front().device);
    int version = 0;
    ncclGetVersion(&version);
    const std::string how = nccl::one_process() ? "one process drives them"
                                                : "one process per GPU, " +
                                                      std::to_string(nccl::processes()) + " ranks";
    return std::to_string(nccl::world_size()) + " x " + prop.name + " (" +
           std::to_string(prop.multiProcessorCount) + " SMs), " + how + ", NCCL " +
           std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
           std::to_string(version % 100);
  }
  bool host_memory() const noexcept override { return false; }
  bool addressable() const noexcept override { return false; }
  bool holds(const void* p) const override { return nccl::is_array(p); }

  // The parts as slices of an array, each checked to be memory of its GPU. Inside a call's
  // agreement: a bad part on one rank fails every rank.
  void* adopt(std::span<const device_part> parts, std::size_t elem_bytes,
              const std::string& what) override {
    const std::vector<member>& ms = nccl::members();
    if (parts.size() != ms.size())
      fail(errc::invalid_argument, what + ": " + std::to_string(parts.size()) +
                                       " device parts for the " + std::to_string(ms.size()) +
                                       " GPUs this process drives (one part per GPU)");
    std::vector<nccl::slice> slices;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const device_part& p = parts[i];
      if (p.size == 0) {
        slices.push_back({nullptr, 0, 0});
        continue;
      }
      cudaPointerAttributes attr{};
      if (!p.data || cudaPointerGetAttributes(&attr, p.data) != cudaSuccess ||
          attr.type != cudaMemoryTypeDevice || attr.device != ms[i].device) {
        (void)cudaGetLastError();
        fail(errc::invalid_argument, what + ": device part " + std::to_string(i) +
                                         " is not memory of GPU " + std::to_string(ms[i].device));
      }
      slices.push_back({const_cast<void*>(p.data), 0, p.size * elem_bytes});
    }
    return nccl::wrap_array(std::move(slices));
  }

  void* allocate(std::size_t bytes) override { return nccl::make_array(bytes); }
  void release(void* p) noexcept override { nccl::release_array(p); }
  // An array takes a slice on every GPU: the least free of them bounds it.
  std::size_t free_bytes() const override {
    std::size_t least = SIZE_MAX;
    nccl::each([&](const member&) { least = std::min(least, free_device_bytes()); });
    return least;
  }

  void copy_in(void* dst, const void* src, std::size_t bytes) override {
    const gpu_array& a = nccl::array_at(dst);
    on_gpus(bytes, [&](std::size_t i, const member& m) {
      const auto [at, len] = within(a, i, bytes);
      // On the GPU's stream, waited for: a pageable copy may return before its data has landed.
      if (len)
        PPLAB_CUDA(cudaMemcpyAsync(a.slices[i].data, static_cast<const char*>(src) + at, len,
                                   cudaMemcpyHostToDevice, m.stream));
      PPLAB_CUDA(cudaStreamSynchronize(m.stream));
    });
  }
  void copy_out(void* dst, const void* src, std::size_t bytes) override {
    const gpu_array& a = nccl::array_at(src);
    on_gpus(bytes, [&](std::size_t i, const member& m) {
      const auto [at, len] = within(a, i, bytes);
      // After the rungs' work on this GPU's stream.
      if (len)
        PPLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(dst) + at, a.slices[i].data, len,
                                   cudaMemcpyDeviceToHost, m.stream));
      PPLAB_CUDA(cudaStreamSynchronize(m.stream));
    });
  }
  // Arrays are packed (dst_pitch == row_bytes): rows of a host view are packed first.
  void copy_rows_in(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t row_bytes, std::size_t rows) override {
    need_packed(dst_pitch, row_bytes);
    if (src_pitch == row_bytes) return copy_in(dst, src, rows * row_bytes);
    std::vector<char> packed(rows * row_bytes);
    for (std::size_t r = 0; r < rows; ++r)
      std::memcpy(packed.data() + r * row_bytes, static_cast<const char*>(src) + r * src_pitch,
                  row_bytes);
    copy_in(dst, packed.data(), packed.size());
  }
  void copy_rows_out(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                     std::size_t row_bytes, std::size_t rows) override {
    need_packed(src_pitch, row_bytes);
    if (dst_pitch == row_bytes) return copy_out(dst, src, rows * row_bytes);
    std::vector<char> packed(rows * row_bytes);
    copy_out(packed.data(), src, packed.size());
    for (std::size_t r = 0; r < rows; ++r)
      std::memcpy(static_cast<char*>(dst) + r * dst_pitch, packed.data() + r * row_bytes,
                  row_bytes);
  }
  void fill(void* dst, int byte, std::size_t bytes) override {
    const gpu_array& a = nccl::array_at(dst);
    nccl::each([&](std::size_t i, const member& m) {
      const auto [at, len] = within(a, i, bytes);
      if (len) PPLAB_CUDA(cudaMemsetAsync(a.slices[i].data, byte, len, m.stream));
    });
  }
  void* stream() override { return nullptr; }  // the rungs use every member's stream
  void synchronize() override { nccl::synchronize(); }

  // ---- a job of several processes: the mpi executor's agreement and collectives
  int rank() const override { return usable() ? nccl::process_rank() : 0; }
  int ranks() const override { return usable() ? nccl::processes() : 1; }
  std::uint64_t agree_on_call(const std::string& signature, std::uint64_t local_n,
                              const std::exception_ptr& local_error) override {
    if (in_job()) return executor_for(backend::mpi).agree_on_call(signature, local_n, local_error);
    return executor::agree_on_call(signature, local_n, local_error);
  }
  std::vector<std::byte> gather_to_root(const void* mine, std::size_t bytes) override {
    if (in_job()) return executor_for(backend::mpi).gather_to_root(mine, bytes);
    return executor::gather_to_root(mine, bytes);
  }
  void broadcast_from_root(void* data, std::size_t bytes) override {
    if (in_job()) executor_for(backend::mpi).broadcast_from_root(data, bytes);
  }
  void barrier() override {
    if (in_job()) executor_for(backend::mpi).barrier();
  }

  backend part_backend() const override { return backend::cuda; }
  std::string part_word() const override { return "GPU"; }
  // One GPU (the first of this process, or rank 0's in a job) alone, timed as a whole call of
  // every GPU is: the same flushes and clock, so that the ratio is the scaling of a whole call.
  timing time_alone(const std::function<void()>& work, const time_plan& plan) override {
    return time(
        [&] {
          if (rank() == 0) work();
        },
        plan);
  }

  // One process: every GPU's L2 flushed (a 256 MiB memset each, not timed), then the work and
  // the wait for every GPU on the host's clock. A job: the mpi executor's collective timer
  // around the work and the wait (the slowest rank's time; no flush).
  timing time(const std::function<void()>& work, const time_plan& plan) override {
    const auto run = [&] {
      work();
      nccl::synchronize();
    };
    if (in_job()) {
      time_plan host = plan;
      host.min_reps = std::max(plan.min_reps, 5);
      return executor_for(backend::mpi).time(run, host);
    }
    static std::vector<nccl::device_buffer> flush = [] {
      std::vector<nccl::device_buffer> out;
      nccl::each([&](const member& m) { out.emplace_back(m, flush_bytes); });
      return out;
    }();
    const auto once = [&](int r) {
      nccl::each([&](std::size_t i, const member& m) {
        PPLAB_CUDA(cudaMemsetAsync(flush[i].get(), r & 0xff, flush_bytes, m.stream));
      });
      nccl::synchronize();
      stopwatch clock;
      run();
      return clock.seconds();
    };
    const double warm = once(0);
    int reps = plan.device_reps;
    if (warm * reps > 2.0) reps = std::max(std::min(reps, 5), int(2.0 / warm));
    std::vector<double> s;
    for (int r = 0; r < reps; ++r) s.push_back(once(r + 1));
    std::sort(s.begin(), s.end());
    return {s[s.size() / 2], s.front(), reps};
  }

  std::vector<ceiling> measure_ceilings(std::size_t bytes, double budget_s) override {
    std::vector<ceiling> out;
    const int gpus = nccl::world_size();
    const std::vector<member>& ms = nccl::members();
    const int reps = budget_s < 0.5 ? 5 : 20;
    // One GPU's own ceilings (the cuda executor's probes, on the first GPU of this process),
    // times the GPU count: the GPUs are of one kind.
    executor& one = executor_for(backend::cuda);
    int was = 0;
    PPLAB_CUDA(cudaGetDevice(&was));
    for (const ceiling& c :
         one.measure_ceilings(std::max<std::size_t>(bytes / gpus, 1 << 20), budget_s))
      if (c.key == "gpu_read_GBps" || c.key == "gpu_fp32_GFLOPs" || c.key == "gpu_fp64_GFLOPs")
        out.push_back({"nccl_" + c.key.substr(4), c.value * gpus,
                       "one GPU's " + c.key + " times " + std::to_string(gpus) + " GPUs"});
    const std::size_t big = std::min<std::size_t>(bytes, std::size_t(1) << 30) & ~std::size_t(255);
    std::vector<nccl::device_buffer> bufs;
    nccl::each([&](const member& m) { bufs.emplace_back(m, big, big); });
    nccl::synchronize();
    if (nccl::one_process() && ms.size() > 1) {
      const timing t = time(
          [&] {
            PPLAB_CUDA(cudaSetDevice(ms[0].device));
            PPLAB_CUDA(cudaMemcpyPeerAsync(bufs[1].get(), ms[1].device, bufs[0].get(), ms[0].device,
                                           big, ms[0].stream));
          },
          {1, 0, reps});
      out.push_back(
          {"nccl_peer_GBps", double(big) / t.median_s * 1e-9,
           "cudaMemcpyPeerAsync of " + std::to_string(big >> 20) + " MiB from GPU 0 to GPU 1"});
    }
    const auto all_reduce = [&](std::size_t floats) {
      PPLAB_NCCL(ncclGroupStart());
      std::size_t i = 0;
      for (const member& m : ms) {
        float* p = bufs[i++].as<float>();
        PPLAB_NCCL(ncclAllReduce(p, p, floats, ncclFloat32, ncclSum, m.comm, m.stream));
      }
      PPLAB_NCCL(ncclGroupEnd());
    };
    {
      const timing t = time([&] { all_reduce(big / 4); }, {1, 0, reps});
      const double alg = double(big) / t.median_s * 1e-9;
      out.push_back({"nccl_allreduce_busGBps", alg * 2.0 * (gpus - 1) / gpus,
                     "ncclAllReduce of " + std::to_string(big >> 20) +
                         " MiB of floats, bus bandwidth (data x 2(G-1)/G over the time)"});
    }
    {
      const timing t = time([&] { all_reduce(1); }, {1, 0, 200});
      out.push_back({"nccl_latency_us", t.median_s * 1e6,
                     "a 4-byte ncclAllReduce issued and waited for on every GPU, median"});
    }
    PPLAB_CUDA(cudaSetDevice(was));
    return out;
  }

  // One GPU's read rate on its share of the bytes, times the GPU count.
  double read_GBps(std::size_t bytes, double budget_s) override {
    const int gpus = nccl::world_size();
    return executor_for(backend::cuda)
               .read_GBps(std::max<std::size_t>(bytes / gpus, 1 << 20), budget_s) *
           gpus;
  }

private:
  static constexpr std::size_t flush_bytes = std::size_t(256) << 20;
  static bool in_job() { return nccl::why_absent().empty() && !nccl::one_process(); }
  static void need_packed(std::size_t pitch, std::size_t row_bytes) {
    if (pitch != row_bytes)
      fail(errc::invalid_argument,
           "internal error: the nccl executor's matrices are packed (pitch = row bytes)");
  }
};

}  // namespace

int nccl_module_gpu_count() { return nccl::why_absent().empty() ? nccl::world_size() : 0; }

executor& nccl_module_executor() {
  static gpus_executor ex;
  return ex;
}

}  // namespace pplab::detail
