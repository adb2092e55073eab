#pragma once
// A backend as one unit, an executor: whether it is usable here (and why not), its memory
// (allocate, copy in and out, host data streamed through staging buffers), its stream and
// synchronization, its timer, and the probes of its ceilings. `host` (seq, cpu) and `cuda` are
// the leaves; the mpi executor wraps a local one on each rank of a job, and the nccl executor
// drives several GPUs, through this same interface. Rungs never see an executor: they get the call
// contract of core/registry.hpp, with pointers in the executor's memory and its stream.
//
// Which executors exist is decided by the build alone: src/core/host/ always, src/core/cuda/
// (in the cuda module, core/modules.hpp) when nvcc was found; without it, or where the module
// cannot be loaded, src/core/cuda_forward.cpp gives an executor that says why it is absent.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/timing.hpp"
#include "pplab/backend.hpp"
#include "pplab/ceiling.hpp"
#include "pplab/device_span.hpp"
#include "pplab/error.hpp"
#include "pplab/job.hpp"

namespace pplab::detail {

using pplab::ceiling;

struct time_plan {
  int min_reps = 5;       // host: at least this many repeats
  double budget_s = 1.0;  // host: repeats go on while within this budget
  int device_reps = 50;   // device: exactly this many repeats, each after an L2 flush
};

class executor {
public:
  virtual ~executor() = default;
  virtual backend kind() const noexcept = 0;

  // Empty when usable here; else the reason ("this build has no CUDA backend ...").
  virtual std::string why_absent() const = 0;
  bool usable() const { return why_absent().empty(); }
  // A line about the hardware: "AMD EPYC, 2 threads" or "NVIDIA H200, 132 SMs, ...".
  virtual std::string describe() const = 0;
  // True when rungs of this backend read and write host memory: no staging needed.
  virtual bool host_memory() const noexcept = 0;
  // False when this executor's pointers stand for data rather than point at it (nccl: one
  // array split over several GPUs, core/nccl/array.hpp): no arithmetic on them, and host data is
  // copied in whole (copy_in) rather than streamed in chunks.
  virtual bool addressable() const noexcept { return true; }
  // Whether `p` points into this executor's memory (data a caller says is already there).
  virtual bool holds(const void* p) const { return host_memory() && p; }
  // A caller's data already spread over the devices this executor drives, one part per device
  // in its order (elements of `elem_bytes` each), as a pointer of this executor's memory for the
  // length of a call, without a copy: `release` forgets it and frees nothing. Each part is
  // checked to lie on its device; `what` (the call's name) opens the errors. An executor of one
  // memory refuses parts.
  virtual void* adopt(std::span<const device_part> parts, std::size_t elem_bytes,
                      const std::string& what);

  // ---- memory in this executor's space. Copies wait for the stream's earlier work.
  // allocate's memory is usable at once from any stream: the cuda executor waits for its stream.
  virtual void* allocate(std::size_t bytes) = 0;
  // Memory for the work enqueued on stream() after this call, in that stream's order (work on
  // another stream must wait for stream() first, as it must anyway for what stream() writes
  // there): no wait, so a device call on a caller's stream returns without waiting for the work
  // queued before it.
  virtual void* allocate_in_stream_order(std::size_t bytes) { return allocate(bytes); }
  virtual void release(void* p) noexcept = 0;
  virtual void copy_in(void* dst, const void* host_src, std::size_t bytes) = 0;
  virtual void copy_out(void* host_dst, const void* src, std::size_t bytes) = 0;
  // `rows` rows of `row_bytes` each, rows `dst_pitch` and `src_pitch` bytes apart (matrices with
  // leading dimensions); the bytes between rows are left alone.
  virtual void copy_rows_in(void* dst, std::size_t dst_pitch, const void* host_src,
                            std::size_t src_pitch, std::size_t row_bytes, std::size_t rows) = 0;
  virtual void copy_rows_out(void* host_dst, std::size_t dst_pitch, const void* src,
                             std::size_t src_pitch, std::size_t row_bytes, std::size_t rows) = 0;
  virtual void fill(void* dst, int byte, std::size_t bytes) = 0;
  // Bytes from one place in this executor's memory to another that does not overlap it, in the
  // stream's order. Host memory by memcpy; the cuda executor's on its stream; the others
  // refuse (std::logic_error).
  virtual void copy_within(void* dst, const void* src, std::size_t bytes);
  // How much allocate() can give now, as far as this executor knows: the policy passes over a
  // rung whose scratch would not fit (core/run.hpp). Unbounded on the host (no query: the
  // operating system's answer would not say what it can still give).
  virtual std::size_t free_bytes() const { return SIZE_MAX; }

  // ---- the stream rungs enqueue on (null on the host), and waiting for it
  virtual void* stream() = 0;
  virtual void synchronize() = 0;  // throws pplab::error if queued work failed
  // The end of a call that leaves its results in this executor's memory: waits for the stream,
  // except on a caller's own stream (a stream_scope, pplab/device.hpp), where the results are
  // ready for the caller's later work on that stream, as its own kernels' are, and the call
  // returns once its work is enqueued (the host's part of the call, a Python call's edges and
  // wrapping, overlaps the GPU's).
  virtual void finish_in_place() { synchronize(); }

  // Host data of any size, streamed through this executor's memory in chunks of at most
  // `chunk_bytes`: `chunk(data, bytes, index, slot, stream)` enqueues the work on one chunk
  // (already in this executor's memory) on `stream`. Two slots alternate, so that the copy of
  // one chunk overlaps the work on the other; `drain(slot)` runs once a slot's work is done,
  // before the slot is used again and at the end. This version copies chunk by chunk through
  // two buffers; the cuda executor overlaps copies with compute through pinned memory.
  using chunk_fn = std::function<void(const void* data, std::size_t bytes, std::size_t index,
                                      int slot, void* stream)>;
  using drain_fn = std::function<void(int slot)>;
  virtual void stream_in(const void* host, std::size_t bytes, std::size_t chunk_bytes,
                         const chunk_fn& chunk, const drain_fn& drain);

  // stream_in's generalization for work whose input and output both live on the host and may
  // not fit this executor's memory at once (a filter's rows with their halos): the call in
  // `slabs` slabs. `plan(s)` says slab s's rows: its input, runs of host rows of `in_row` bytes
  // gathered in order into one packed buffer in this executor's memory, and where its output
  // rows (`out_row` bytes each) go. `work(s, in, out, slot, stream)` enqueues the work from that
  // buffer into `out` (room for out_bytes) on `stream` and returns where in this executor's
  // memory the slab's output rows start, packed. Up to slab_slots slabs are in flight at once
  // (work gets its slot, below slab_slots, for scratch of its own), so that one slab's copies
  // overlap the others' work. Host memory that is
  // page-locked (pin_host, cudaHostRegister, cudaMallocHost) is copied to and from directly;
  // other host memory goes through page-locked staging, copied by the calling thread's OpenMP
  // threads.
  static constexpr int slab_slots = 3;
  struct host_rows {
    const void* data;
    std::size_t pitch, rows;  // rows, pitch bytes apart
  };
  struct slab_rows {
    std::vector<host_rows> in;
    void* out;
    std::size_t out_pitch, out_rows;
  };
  using slab_plan_fn = std::function<slab_rows(std::size_t slab)>;
  using slab_fn = std::function<const void*(std::size_t slab, const void* in, void* out, int slot,
                                            void* stream)>;
  virtual void stream_slabs(std::size_t slabs, std::size_t in_row, std::size_t most_in_rows,
                            std::size_t out_row, std::size_t out_bytes, const slab_plan_fn& plan,
                            const slab_fn& work);
  // Page-locks host memory for the copies of stream_slabs (and any other DMA of this executor)
  // until unpin_host; false where there is nothing to gain or it cannot.
  virtual bool pin_host(void*, std::size_t) { return false; }
  virtual void unpin_host(void*) {}

  // ---- the timer: `work` only enqueues on stream(); warm-up, repeats, median and minimum
  virtual timing time(const std::function<void()>& work, const time_plan& plan) = 0;

  // ---- placement over parts: a backend whose data is split over a job's ranks (mpi) or a
  // host's GPUs (nccl) says what one part runs on alone (mpi: each rank's local backend; nccl:
  // the cuda backend), which the lab's scaling baseline runs; any other executor is its own.
  virtual backend part_backend() const { return kind(); }
  bool splits() const { return part_backend() != kind(); }
  // What one part is called in a sentence: "rank", "GPU".
  virtual std::string part_word() const { return "part"; }
  // This process's elements of an n-element array in a call of this backend: its rank's slice
  // in a job of several processes, else all of them (nccl in one process splits an array itself,
  // in copy_in).
  pplab::part my_part(std::size_t n) const { return pplab::part_of(n, rank(), ranks()); }
  // `work` (a whole call on part_backend()'s executor, waited for) on the first part alone
  // (rank 0, GPU 0), timed the way this executor times its own calls; every rank gets the
  // timing. The others wait without taking the first part's cores.
  virtual timing time_alone(const std::function<void()>& work, const time_plan& plan) {
    return time(work, plan);
  }

  // ---- ceilings: this executor's own, measured now on `bytes`-sized buffers
  virtual std::vector<ceiling> measure_ceilings(std::size_t bytes, double budget_s) = 0;
  // The best streaming read of a `bytes` working set, GB/s: the ceiling of a bandwidth-bound
  // row of that size (a problem that fits a cache is measured against a cache-sized read).
  virtual double read_GBps(std::size_t bytes, double budget_s) = 0;

  // ---- a job of several processes (mpi): this process's rank and the job's rank count (0 and 1
  // for a single process). Every call of a pattern on such a backend first agrees: each rank
  // brings its own checks' outcome (`local_error`, empty when they passed), the call's
  // arguments as text (`signature`: what must be the same on every rank) and the length of its
  // part. If any rank failed, every rank throws that error (the lowest failing rank's, naming
  // it); if the signatures differ, every rank throws an error naming the two ranks; else the
  // answer is the sum of the parts' lengths. One small collective: no rank goes on alone into
  // the next one, so an error can never leave the others waiting. A single process rethrows its
  // own error and returns local_n.
  virtual int rank() const { return 0; }
  virtual int ranks() const { return 1; }
  virtual std::uint64_t agree_on_call(const std::string& signature, std::uint64_t local_n,
                                      const std::exception_ptr& local_error);
  // Every rank's `bytes` (host memory), concatenated in rank order on rank 0 (empty elsewhere):
  // how a distributed result reaches the one process that writes it.
  virtual std::vector<std::byte> gather_to_root(const void* mine, std::size_t bytes);
  // Rank 0's `bytes` at `data` copied to every rank, and a barrier whose waiting ranks sleep
  // (nothing for one process).
  virtual void broadcast_from_root(void*, std::size_t) {}
  virtual void barrier() {}
};

// The job's words, public (pplab/job.hpp).
using pplab::agreed_error;
using pplab::end_with_error;
using pplab::part;
using pplab::part_of;

// The executor of a backend.
executor& executor_for(backend b);
// After an exhaustive switch over backend: a value outside the enumeration (a bug).
[[noreturn]] void unknown_backend(backend b);

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Memory of an executor that frees itself.
class buffer {
public:
  buffer() = default;
  buffer(executor& ex, std::size_t bytes) : buffer(ex, bytes, &executor::allocate) {}
  // Memory in the stream's order (executor::allocate_in_stream_order).
  static buffer in_stream_order(executor& ex, std::size_t bytes) {
    return buffer(ex, bytes, &executor::allocate_in_stream_order);
  }
  // A caller's parts, adopted (executor::adopt) for the buffer's life.
  static buffer adopt(executor& ex, std::span<const device_part> parts, std::size_t elem_bytes,
                      const std::string& what) {
    buffer b;
    b.ex_ = &ex;
    b.p_ = ex.adopt(parts, elem_bytes, what);
    for (const device_part& p : parts) b.bytes_ += p.size * elem_bytes;
    return b;
  }
  ~buffer() {
    if (p_) ex_->release(p_);
  }
  buffer(buffer&& o) noexcept : ex_(o.ex_), p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
  buffer& operator=(buffer&& o) noexcept {
    std::swap(ex_, o.ex_), std::swap(p_, o.p_), std::swap(bytes_, o.bytes_);
    return *this;
  }
  void* get() const noexcept { return p_; }
  template <class T> T* as() const noexcept { return static_cast<T*>(p_); }
  std::size_t size() const noexcept { return bytes_; }

private:
  buffer(executor& ex, std::size_t bytes, void* (executor::*get)(std::size_t))
      : ex_(&ex), bytes_(bytes) {
    // An executor whose pointers stand for arrays gives one for nothing too: rungs look it up.
    if (bytes || !ex.addressable()) p_ = (ex.*get)(bytes);
  }

  executor* ex_ = nullptr;
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// Scratch for a rung: at least 256 bytes, the first 256 zeroed (the call contract), in the
// stream's order: the rung's work on stream() may use it; work on other streams waits for
// stream() first.
buffer scratch_for(executor& ex, std::size_t bytes);

}  // namespace pplab::detail
