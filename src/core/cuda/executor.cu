// The cuda executor: device 0 of this machine. Memory comes from the stream-ordered pool (cheap
// to take and give back for every call), each host thread has its own stream, host data is
// streamed through two pinned buffers on two streams (the copy of one chunk overlaps the work on
// the other), the timer is event_timer (events, L2 flushed), and the ceilings are measured by
// kernels and copies here.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>

#include "core/cuda/check.cuh"
#include "core/cuda/tensor_cores.cuh"
#include "core/cuda/timer.cuh"
#include "core/cuda/toolbox.cuh"
#include "core/device.hpp"
#include "core/host/host_executor.hpp"
#include "pplab/device.hpp"

namespace pplab::detail {
namespace {

// The caller's stream of a stream_scope on this thread, if one is open.
thread_local bool callers_stream_set = false;
thread_local cudaStream_t callers_stream = nullptr;

// A read ceiling: every thread streams 16-byte loads of kind L, four in flight, and folds them
// with xor (nothing to compute), one store per block so the loads cannot be dropped.
template <load L>
__global__ void read_kernel(const uint4* __restrict__ in, std::size_t count, unsigned* sink) {
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * threads < count; i += 4 * threads) {
    const uint4 a = load16<L>(in + i), b = load16<L>(in + i + threads),
                c = load16<L>(in + i + 2 * threads), d = load16<L>(in + i + 3 * threads);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^
           d.w;
  }
  for (; i < count; i += threads) {
    const uint4 a = load16<L>(in + i);
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // practically never: keeps the loads alive
}

__global__ void empty_kernel() {}

// The FMA peak: every thread keeps 8 independent multiply-add chains in registers (enough to
// cover the FMA latency with a full SM of warps); one store per thread keeps them alive.
template <class T> __global__ void fma_kernel(T* sink, int iters) {
  T a[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) a[k] = T(threadIdx.x + k);
  const T b = T(0.999), c = T(0.001);
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = a[k] * b + c;
  T s = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += a[k];
  if (s == T(-1)) *sink = s;  // never: the chains stay positive
}

// The fp64 tensor-core peak: every warp keeps 4 independent chains of 16 x 8 x 4 products of
// doubles in registers (a full SM of warps covers their latency); one store keeps them alive.
__global__ void mma_f64_kernel(double* sink, int iters) {
  double d[4][4] = {};
  const double a0 = 1e-3 * threadIdx.x, a1 = 1.0 + a0, b = 0.5;
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int k = 0; k < 4; ++k) mma_16x8x4(d[k], a0, a1, b);
  double s = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) s += d[k][0] + d[k][1] + d[k][2] + d[k][3];
  if (s == -1.0) *sink = s;  // never: the chains stay positive
}

// The TF32 tensor-core peak (mma.sync, as m14 multiplies): 4 chains of 16 x 8 x 8 products per
// warp.
__global__ void mma_tf32_kernel(float* sink, int iters) {
  float d[4][4] = {};
  const unsigned a[4] = {__float_as_uint(1e-3f * threadIdx.x), __float_as_uint(1.0f),
                         __float_as_uint(0.5f), __float_as_uint(0.25f)};
  const unsigned b[2] = {__float_as_uint(0.5f), __float_as_uint(0.125f)};
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int k = 0; k < 4; ++k) mma_16x8x8_tf32(d[k], a, b);
  float s = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) s += d[k][0] + d[k][1] + d[k][2] + d[k][3];
  if (s == -1.0f) *sink = s;  // never: the chains stay positive
}

// The TF32 peak of Hopper's warpgroup products (wgmma, as m16 multiplies): each of a block's two
// warpgroups adds 4 products of 64 x 128 x 8 a round into its 64 x 128 accumulators, the operands
// read from shared memory by descriptor in m16's layout (128-byte rows, swizzled).
__global__ void __launch_bounds__(256) wgmma_tf32_kernel(float* sink, int iters) {
  __shared__ __align__(1024) float tiles[(64 + 128) * 32];  // A's 64 x 32, B's 128 x 32
  for (int i = int(threadIdx.x); i < (64 + 128) * 32; i += 256) tiles[i] = 1e-3f * float(i % 7);
  __syncthreads();
  float d[64] = {};
  wgmma_fence();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < 4; ++k)
      wgmma_64x128x8_tf32(d, wgmma_tile_128b(tiles + k * 8),
                          wgmma_tile_128b(tiles + 64 * 32 + k * 8));
    wgmma_commit();
    wgmma_wait<1>();
  }
  wgmma_wait<0>();
  float s = 0;
#pragma unroll
  for (int k = 0; k < 64; ++k) s += d[k];
  if (s == -1.0f) *sink = s;  // never: the sums stay positive
}

// Pinned and device chunk buffers and the two streams of stream_in, one set per host thread,
// kept for the next call (pinned memory is slow to take).
struct staging {
  cudaStream_t stream[2] = {};
  void* pinned[2] = {};
  void* dev[2] = {};
  std::size_t bytes = 0;
  staging() {
    for (cudaStream_t& s : stream) PPLAB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  ~staging() {  // at thread exit; errors no longer matter
    for (int k = 0; k < 2; ++k) cudaFreeHost(pinned[k]), cudaFree(dev[k]);
  }
  void need(std::size_t b) {
    if (b <= bytes) return;
    for (int k = 0; k < 2; ++k) {
      cudaFreeHost(pinned[k]), cudaFree(dev[k]);
      pinned[k] = dev[k] = nullptr;
      PPLAB_CUDA(cudaMallocHost(&pinned[k], b));
      PPLAB_CUDA(cudaMalloc(&dev[k], b));
    }
    bytes = b;
  }
};

staging& thread_staging() {
  static thread_local staging st;
  return st;
}

// The streams and pinned buffers of stream_slabs' slots (input and output), kept for the
// thread's next call as stream_in's are. A slot's pinned buffer is made the first time a slab of
// pageable memory needs it: page-locked callers never make one (up to 3 x (64 + 64) MiB).
struct slab_staging {
  static constexpr int slots = executor::slab_slots;
  cudaStream_t stream[slots] = {};
  void* in[slots] = {};
  void* out[slots] = {};
  std::size_t in_bytes[slots] = {}, out_bytes[slots] = {};
  slab_staging() {
    for (cudaStream_t& s : stream) PPLAB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  ~slab_staging() {
    for (int k = 0; k < slots; ++k) cudaFreeHost(in[k]), cudaFreeHost(out[k]);
  }
  // Slot k's buffer of at least `want` bytes; k's stream must be idle (growing frees the old one).
  static void* grown(void*& pinned, std::size_t& have, std::size_t want) {
    if (want > have) {
      cudaFreeHost(pinned);
      pinned = nullptr, have = 0;
      PPLAB_CUDA(cudaMallocHost(&pinned, want));
      have = want;
    }
    return pinned;
  }
  void* in_for(int k, std::size_t want) { return grown(in[k], in_bytes[k], want); }
  void* out_for(int k, std::size_t want) { return grown(out[k], out_bytes[k], want); }
};

slab_staging& thread_slab_staging() {
  static thread_local slab_staging st;
  return st;
}

// `rows` rows of `row_bytes`, copied by the host threads (a slab's gather or scatter).
void copy_rows_by_threads(char* dst, std::size_t dst_pitch, const char* src, std::size_t src_pitch,
                          std::size_t row_bytes, std::size_t rows) {
#pragma omp parallel for schedule(static) if (rows * row_bytes > (std::size_t(1) << 20))
  for (std::ptrdiff_t r = 0; r < std::ptrdiff_t(rows); ++r)
    std::memcpy(dst + std::size_t(r) * dst_pitch, src + std::size_t(r) * src_pitch, row_bytes);
}

// Whether host rows lie in page-locked memory the GPU copies to and from directly (their first
// and last bytes are: one registration or allocation covers a range between).
bool page_locked(const void* data, std::size_t pitch, std::size_t row_bytes, std::size_t rows) {
  if (!rows || !row_bytes) return true;
  const auto locked = [](const void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return a.type == cudaMemoryTypeHost;
  };
  return locked(data) &&
         locked(static_cast<const char*>(data) + (rows - 1) * pitch + row_bytes - 1);
}

// A host copy into pinned memory by all threads, a MiB each.
void pinned_copy(void* pinned, const char* src, std::size_t len) {
  char* dst = static_cast<char*>(pinned);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t off = 0; off < std::ptrdiff_t(len); off += 1 << 20)
    std::memcpy(dst + off, src + off, std::min<std::size_t>(1 << 20, len - std::size_t(off)));
}

// The chunk of copy_in's staged copies: as large as stream_in's chunks in the API's run paths.
constexpr std::size_t staged_chunk = std::size_t(64) << 20;

class cuda_exec final : public executor {
public:
  backend kind() const noexcept override { return backend::cuda; }
  std::string why_absent() const override { return gpu().present ? "" : gpu().why_absent; }
  std::string describe() const override {
    const gpu_info& g = gpu();
    if (!g.present) return "absent: " + g.why_absent;
    return g.name + ", " + std::to_string(g.sm_count) + " SMs, " +
           std::to_string(g.mem_bytes >> 30) + " GiB, " + g.driver;
  }
  bool host_memory() const noexcept override { return false; }
  bool holds(const void* p) const override {
    cudaPointerAttributes attr{};
    if (!p || cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
  }

  void* allocate(std::size_t bytes) override {
    void* p = allocate_in_stream_order(bytes);
    PPLAB_CUDA(cudaStreamSynchronize(s()));  // usable from any stream from here on
    return p;
  }
  void* allocate_in_stream_order(std::size_t bytes) override {
    ready();
    void* p = nullptr;
    PPLAB_CUDA(cudaMallocAsync(&p, bytes, s()));
    return p;
  }
  void release(void* p) noexcept override { cudaFreeAsync(p, s()); }
  std::size_t free_bytes() const override { return free_device_bytes(); }
  // Host memory that may be pageable: a large copy goes through the pinned buffers of stream_in,
  // one chunk copied into pinned memory by the host threads while the other crosses the bus, as a
  // pageable cudaMemcpy does not overlap them.
  void copy_in(void* dst, const void* src, std::size_t bytes) override {
    if (!bytes) return;
    if (bytes < 2 * staged_chunk) {
      PPLAB_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s()));
      PPLAB_CUDA(cudaStreamSynchronize(s()));  // the host memory may go away after the call
      return;
    }
    ready();
    PPLAB_CUDA(cudaStreamSynchronize(s()));  // after the stream's earlier work
    staging& st = thread_staging();
    st.need(staged_chunk);
    for (std::size_t first = 0, c = 0; first < bytes; first += staged_chunk, ++c) {
      const int k = int(c % 2);
      if (c >= 2) PPLAB_CUDA(cudaStreamSynchronize(st.stream[k]));  // its pinned buffer is free
      const std::size_t len = std::min(staged_chunk, bytes - first);
      pinned_copy(st.pinned[k], static_cast<const char*>(src) + first, len);
      PPLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(dst) + first, st.pinned[k], len,
                                 cudaMemcpyHostToDevice, st.stream[k]));
    }
    for (cudaStream_t t : st.stream) PPLAB_CUDA(cudaStreamSynchronize(t));
  }
  void copy_out(void* dst, const void* src, std::size_t bytes) override {
    if (!bytes) return;
    PPLAB_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s()));
    PPLAB_CUDA(cudaStreamSynchronize(s()));
  }
  void copy_rows_in(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t row_bytes, std::size_t rows) override {
    copy_rows(dst, dst_pitch, src, src_pitch, row_bytes, rows, cudaMemcpyHostToDevice);
  }
  void copy_rows_out(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                     std::size_t row_bytes, std::size_t rows) override {
    copy_rows(dst, dst_pitch, src, src_pitch, row_bytes, rows, cudaMemcpyDeviceToHost);
  }
  void fill(void* dst, int byte, std::size_t bytes) override {
    if (bytes) PPLAB_CUDA(cudaMemsetAsync(dst, byte, bytes, s()));
  }
  void copy_within(void* dst, const void* src, std::size_t bytes) override {
    if (bytes) PPLAB_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s()));
  }
  void* stream() override { return s(); }
  void synchronize() override { PPLAB_CUDA(cudaStreamSynchronize(s())); }
  void finish_in_place() override {
    if (!callers_stream_set) synchronize();
  }

  // Chunks are copied by the CPU threads into one of two pinned buffers, sent to the GPU on that
  // buffer's stream, and worked on there; a slot is drained (its stream finished) before its
  // pinned buffer takes the next chunk.
  void stream_in(const void* host, std::size_t bytes, std::size_t chunk_bytes,
                 const chunk_fn& chunk, const drain_fn& drain) override {
    ready();
    staging& st = thread_staging();  // not in use here: neither chunk nor drain copies in
    st.need(std::min(chunk_bytes, std::max<std::size_t>(bytes, 1)));
    const std::size_t chunks = bytes ? (bytes + chunk_bytes - 1) / chunk_bytes : 1;
    bool busy[2] = {false, false};
    for (std::size_t c = 0; c < chunks; ++c) {
      const int k = int(c % 2);
      if (busy[k]) {
        PPLAB_CUDA(cudaStreamSynchronize(st.stream[k]));
        drain(k);
      }
      const std::size_t first = c * chunk_bytes,
                        len = bytes ? std::min(chunk_bytes, bytes - first) : 0;
      pinned_copy(st.pinned[k], static_cast<const char*>(host) + first, len);
      if (len)
        PPLAB_CUDA(
            cudaMemcpyAsync(st.dev[k], st.pinned[k], len, cudaMemcpyHostToDevice, st.stream[k]));
      chunk(st.dev[k], len, c, k, st.stream[k]);
      busy[k] = true;
    }
    for (int k = 0; k < 2; ++k)
      if (busy[k]) {
        PPLAB_CUDA(cudaStreamSynchronize(st.stream[k]));
        drain(k);
      }
  }

  // Each slab's input copied in on its slot's stream (three slots) (from page-locked host rows
  // directly, or gathered by the host threads into the slot's pinned buffer first), worked on, and
  // its output copied out (to page-locked rows directly, or through the slot's pinned buffer,
  // scattered by the host threads once the slot's stream is done). A slot is finished before it
  // takes the next slab, so the host's gathering and scattering overlap the other slot's copies and
  // work.
  void stream_slabs(std::size_t slabs, std::size_t in_row, std::size_t most_in_rows,
                    std::size_t out_row, std::size_t out_bytes, const slab_plan_fn& plan,
                    const slab_fn& work) override {
    ready();
    PPLAB_CUDA(cudaStreamSynchronize(s()));  // after the stream's earlier work
    constexpr int slots = slab_staging::slots;
    slab_staging& st = thread_slab_staging();
    const std::size_t in_bytes = in_row * most_in_rows;
    buffer in[slots], out[slots];
    for (int k = 0; k < slots; ++k)
      in[k] = buffer(*this, in_bytes), out[k] = buffer(*this, out_bytes);
    // On an error, the slots' streams are waited for before their buffers go.
    struct drain_on_exit {
      slab_staging& st;
      ~drain_on_exit() {
        for (cudaStream_t t : st.stream) cudaStreamSynchronize(t);
      }
    } guard{st};
    slab_rows pending[slots];
    bool busy[slots] = {}, scatter[slots] = {};
    const auto finish = [&](int k) {
      busy[k] = false;
      PPLAB_CUDA(cudaStreamSynchronize(st.stream[k]));
      if (scatter[k])
        copy_rows_by_threads(static_cast<char*>(pending[k].out), pending[k].out_pitch,
                             static_cast<const char*>(st.out[k]), out_row, out_row,
                             pending[k].out_rows);
    };
    for (std::size_t slab = 0; slab < slabs; ++slab) {
      const int k = int(slab % slots);
      if (busy[k]) finish(k);
      slab_rows rows = plan(slab);
      char* dev_in = in[k].as<char>();
      bool gather = false;
      for (const host_rows& run : rows.in)
        gather = gather || !page_locked(run.data, run.pitch, in_row, run.rows);
      if (gather) {
        char* pinned = static_cast<char*>(st.in_for(k, in_bytes));  // slot k is idle here
        std::size_t at = 0;
        for (const host_rows& run : rows.in) {
          copy_rows_by_threads(pinned + at * in_row, in_row, static_cast<const char*>(run.data),
                               run.pitch, in_row, run.rows);
          at += run.rows;
        }
        if (at)
          PPLAB_CUDA(
              cudaMemcpyAsync(dev_in, pinned, at * in_row, cudaMemcpyHostToDevice, st.stream[k]));
      } else {
        for (const host_rows& run : rows.in) {
          if (run.rows)
            PPLAB_CUDA(cudaMemcpy2DAsync(dev_in, in_row, run.data, run.pitch, in_row, run.rows,
                                         cudaMemcpyHostToDevice, st.stream[k]));
          dev_in += run.rows * in_row;
        }
      }
      const void* back = work(slab, in[k].get(), out[k].get(), k, st.stream[k]);
      scatter[k] = !page_locked(rows.out, rows.out_pitch, out_row, rows.out_rows);
      if (rows.out_rows && scatter[k]) {
        PPLAB_CUDA(cudaMemcpyAsync(st.out_for(k, out_bytes), back, rows.out_rows * out_row,
                                   cudaMemcpyDeviceToHost, st.stream[k]));
      } else if (rows.out_rows) {
        PPLAB_CUDA(cudaMemcpy2DAsync(rows.out, rows.out_pitch, back, out_row, out_row,
                                     rows.out_rows, cudaMemcpyDeviceToHost, st.stream[k]));
      }
      pending[k] = std::move(rows), busy[k] = true;
    }
    for (std::size_t slab = slabs - std::min<std::size_t>(slabs, slots); slab < slabs; ++slab)
      if (busy[slab % slots]) finish(int(slab % slots));
  }

  // cudaHostRegister: page-locked in place (memory already locked, or not host memory, is left
  // as it is).
  bool pin_host(void* p, std::size_t bytes) override {
    if (!p || !bytes || !usable()) return false;
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) return true;
    cudaGetLastError();
    return false;
  }
  void unpin_host(void* p) override {
    if (p && cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
  }

  timing time(const std::function<void()>& work, const time_plan& plan) override {
    static thread_local event_timer timer(s());
    return timer.time(work, plan.device_reps);
  }

  std::vector<ceiling> measure_ceilings(std::size_t bytes, double budget_s) override {
    const int reps = budget_s < 0.5 ? 10 : 30;
    std::vector<ceiling> out;
    out.push_back({"gpu_theoretical_GBps", gpu().mem_GBps_theoretical,
                   "memory clock x bus width x 2, from the device attributes"});
    out.push_back(
        {"gpu_read_GBps", read_GBps(bytes, budget_s),
         "vectorized read kernel (16-byte loads, 4 in flight), the better of read-only and "
         "streaming loads, best repeat of probes at the start and the end of the run, L2 flushed"});
    {
      buffer a(*this, bytes), b(*this, bytes);
      fill(a.get(), 1, bytes);
      const timing t = time(
          [&] {
            PPLAB_CUDA(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, s()));
          },
          {1, 0, reps});
      out.push_back({"gpu_copy_GBps", 2.0 * double(bytes) / t.min_s * 1e-9,
                     "device-to-device copy, bytes read + written, best repeat"});
    }
    {
      const std::size_t h2d = std::min(bytes, std::size_t(256) << 20);
      buffer d(*this, h2d);
      void* pinned = nullptr;
      PPLAB_CUDA(cudaMallocHost(&pinned, h2d));
      std::memset(pinned, 1, h2d);
      const timing t = time(
          [&] { PPLAB_CUDA(cudaMemcpyAsync(d.get(), pinned, h2d, cudaMemcpyHostToDevice, s())); },
          {1, 0, reps});
      out.push_back({"gpu_h2d_GBps", double(h2d) / t.median_s * 1e-9,
                     "host-to-device copy from pinned memory (the staging path's ceiling)"});
      // The same copy while one of the same size goes the other way on a second stream: the
      // ceiling of work whose results go back as its data comes in (a filter's row slabs).
      buffer back(*this, h2d);
      void* landing = nullptr;
      cudaStream_t other = nullptr;
      cudaEvent_t start = nullptr, done = nullptr;
      PPLAB_CUDA(cudaMallocHost(&landing, h2d));
      PPLAB_CUDA(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
      PPLAB_CUDA(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
      PPLAB_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
      const timing both = time(
          [&] {
            PPLAB_CUDA(cudaEventRecord(start, s()));
            PPLAB_CUDA(cudaStreamWaitEvent(other, start, 0));
            PPLAB_CUDA(cudaMemcpyAsync(d.get(), pinned, h2d, cudaMemcpyHostToDevice, s()));
            PPLAB_CUDA(cudaMemcpyAsync(landing, back.get(), h2d, cudaMemcpyDeviceToHost, other));
            PPLAB_CUDA(cudaEventRecord(done, other));
            PPLAB_CUDA(cudaStreamWaitEvent(s(), done, 0));
          },
          {1, 0, reps});
      cudaEventDestroy(start), cudaEventDestroy(done), cudaStreamDestroy(other);
      cudaFreeHost(landing), cudaFreeHost(pinned);
      out.push_back({"gpu_h2d_both_ways_GBps", double(h2d) / both.median_s * 1e-9,
                     "host-to-device copy from pinned memory while a device-to-host copy of the "
                     "same size runs on another stream (the bus both ways at once)"});
    }
    {
      buffer sink(*this, 256);
      // `kernel` over a full GPU of 256-thread blocks, `iters` rounds of `flops` per block each.
      const auto peak = [&](auto kernel, auto* out, int iters, double flops) {
        const unsigned blocks = resident_blocks(kernel, 256);
        const timing t = time(
            [&] {
              kernel<<<blocks, 256, 0, s()>>>(out, iters);
              PPLAB_CUDA_LAUNCHED();
            },
            {1, 0, reps});
        return flops * iters * blocks / t.min_s * 1e-9;
      };
      const double fma_flops = 2.0 * 8 * 256;  // 8 chains per thread
      out.push_back({"gpu_fp32_GFLOPs", peak(fma_kernel<float>, sink.as<float>(), 4096, fma_flops),
                     "register-resident fp32 FMA chains (8 per thread, a full GPU of warps)"});
      out.push_back({"gpu_fp64_GFLOPs",
                     peak(fma_kernel<double>, sink.as<double>(), 4096, fma_flops),
                     "register-resident fp64 FMA chains (8 per thread; no tensor cores)"});
      if (kernel_built_for(mma_f64_kernel))
        out.push_back(
            {"gpu_fp64_tensor_GFLOPs",
             peak(mma_f64_kernel, sink.as<double>(), 1024, 2.0 * 16 * 8 * 4 * 4 * (256 / warp)),
             "register-resident fp64 tensor-core chains (mma.sync 16 x 8 x 4, 4 per "
             "warp, a full GPU of warps)"});
      if (kernel_built_for(mma_tf32_kernel, 80))
        out.push_back(
            {"gpu_tf32_tensor_GFLOPs",
             peak(mma_tf32_kernel, sink.as<float>(), 1024, 2.0 * 16 * 8 * 8 * 4 * (256 / warp)),
             "register-resident TF32 tensor-core chains (mma.sync 16 x 8 x 8, 4 per warp, a "
             "full GPU of warps)"});
      if (kernel_built_for(wgmma_tf32_kernel, 90) && wgmma_in_build())
        out.push_back({"gpu_tf32_wgmma_GFLOPs",
                       peak(wgmma_tf32_kernel, sink.as<float>(), 1024, 2.0 * 64 * 128 * 8 * 4 * 2),
                       "TF32 warpgroup products (wgmma 64 x 128 x 8) from shared memory, two "
                       "warpgroups a block, a full GPU of blocks"});
    }
    const timing t = time(
        [&] {
          empty_kernel<<<1, 32, 0, s()>>>();
          PPLAB_CUDA_LAUNCHED();
        },
        {1, 0, std::max(reps, 20)});
    out.push_back({"gpu_launch_us", t.median_s * 1e6,
                   "an empty kernel between two events: the least a launch costs"});
    return out;
  }

  // The best of the read-only and the streaming load paths (r12 streams up to 256 MiB: on a
  // 64 MiB working set it read 1% faster than a read-only probe), best repeat.
  double read_GBps(std::size_t bytes, double budget_s) override {
    bytes -= bytes % 16;
    buffer data(*this, bytes), sink(*this, 4096);
    fill(data.get(), 1, bytes);
    double best = 0;
    const auto probe = [&](auto kernel) {
      const unsigned blocks = resident_blocks(kernel, 256);
      const timing t = time(
          [&] {
            kernel<<<blocks, 256, 0, s()>>>(data.as<const uint4>(), bytes / 16,
                                            sink.as<unsigned>());
            PPLAB_CUDA_LAUNCHED();
          },
          {1, 0, budget_s < 0.5 ? 10 : 30});
      best = std::max(best, double(bytes) / t.min_s * 1e-9);
    };
    probe(read_kernel<load::readonly>);
    probe(read_kernel<load::streaming>);
    return best;
  }

private:
  void copy_rows(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                 std::size_t row_bytes, std::size_t rows, cudaMemcpyKind kind) {
    if (!rows || !row_bytes) return;
    PPLAB_CUDA(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows, kind, s()));
    PPLAB_CUDA(cudaStreamSynchronize(s()));  // the host memory may go away after the call
  }
  static cudaStream_t s() {
    if (callers_stream_set) return callers_stream;  // a stream_scope (pplab/device.hpp)
    static thread_local cudaStream_t stream = [] {
      cudaStream_t st;
      PPLAB_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
      return st;
    }();
    return stream;
  }
  // Keep up to an eighth of the device's memory (at least 1 GiB) of freed pool memory on the
  // current device for the next call instead of handing it back at every sync: mapping it again
  // costs about 2 ms a GiB (numpy.bincount(x, w) of 2^28 values into 65536 bins through h19,
  // whose records take 1.5 GiB: 8.5 ms a call with 1 GiB kept, 4.5 in the lab, which keeps its
  // scratch). Never lowers a threshold set higher: the nccl backend keeps all
  // of each GPU's (world.cpp), and 1 GiB there, set on GPU 0 alone when the cuda backend first ran,
  // handed a nccl histogram's 544 MiB of scratch back at every call on that GPU only: 1.1 ms of
  // mapping again per call, the 2^20-bin histogram at 1.35x one GPU on two H200s.
  void ready() {
    static std::atomic<std::uint64_t> done{0};  // one bit per device (64 and above: every time)
    int device = 0;
    PPLAB_CUDA(cudaGetDevice(&device));
    const std::uint64_t bit = device < 64 ? std::uint64_t(1) << device : 0;
    if (done.load(std::memory_order_acquire) & bit) return;
    cudaMemPool_t pool;
    PPLAB_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
    std::size_t free = 0, total = 0;
    PPLAB_CUDA(cudaMemGetInfo(&free, &total));
    std::uint64_t keep = std::max<std::uint64_t>(std::uint64_t(1) << 30, total / 8);
    std::uint64_t now = 0;
    PPLAB_CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &now));
    if (now < keep)
      PPLAB_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    done.fetch_or(bit, std::memory_order_release);
  }
};

}  // namespace

executor& cuda_module_executor() {
  static cuda_exec ex;
  return ex;
}

// A stream_scope (pplab/device.hpp, src/core/cuda_forward.cpp) on this thread: the caller's
// stream until it closes, then the one before it.
void cuda_module_open_stream_scope(void* stream, void** previous, bool* had_previous) {
  *previous = callers_stream;
  *had_previous = callers_stream_set;
  callers_stream = static_cast<cudaStream_t>(stream);
  callers_stream_set = true;
}

void cuda_module_close_stream_scope(void* previous, bool had_previous) {
  callers_stream = static_cast<cudaStream_t>(previous);
  callers_stream_set = had_previous;
}

}  // namespace pplab::detail
