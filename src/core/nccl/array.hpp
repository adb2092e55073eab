#pragma once
// The nccl executor's memory: one array of `bytes` bytes split over the GPUs this process drives,
// one slice per member of nccl::members() (in member order, some possibly empty): slice i lies on
// member i's device and holds the array's bytes [offset_i, offset_i + bytes_i). Under mpirun a
// process drives one GPU, and its array is its own part of the job's data.
//
// The pointers this executor hands out (allocate) and the ones the nccl rungs get point to one
// of these descriptors, not to data: no arithmetic on them. A caller's own device parts (the
// API's list of device spans) are wrapped in one without a copy.
#include <cstddef>
#include <memory>
#include <vector>

#include "core/nccl/world.hpp"

namespace pplab::detail::nccl {

struct slice {
  void* data = nullptr;  // on members()[i].device
  std::size_t offset = 0, bytes = 0;
};

struct gpu_array {
  std::size_t bytes = 0;
  std::vector<slice> slices;  // one per member
  bool owned = false;         // its slices were allocated by the executor, which frees them
};

// The array a pointer from this backend stands for (throws an internal error when it is not
// one the executor knows).
const gpu_array& array_at(const void* p);
gpu_array& array_at(void* p);

// A new array of `bytes` split evenly over the members in whole 256-byte granules (no element
// of any dtype, and no 16-byte vector, crosses a slice), and its release.
gpu_array* make_array(std::size_t bytes);
// An array over slices the caller owns (freed by the caller), registered like the others.
gpu_array* wrap_array(std::vector<slice> slices);
void release_array(void* p) noexcept;
bool is_array(const void* p);

// Enqueues on member `from`'s stream the copy of `bytes` device bytes at `src` (on member
// from's device) into the array at byte `offset`, wherever its slices lie (peer copies over
// NVLink where they lie on other GPUs).
void write_range(gpu_array& dst, std::size_t offset, const void* src, std::size_t bytes,
                 const member& from);
// The reverse: the array's bytes [offset, offset + bytes) into `dst` on member to's device.
void read_range(const gpu_array& src, std::size_t offset, void* dst, std::size_t bytes,
                const member& to);

// Device memory of one member's GPU from its stream-ordered pool, freed on its stream; the first
// `zeroed` bytes are set to zero (a rung's scratch: its first 256 bytes arrive zeroed).
class device_buffer {
public:
  device_buffer() = default;
  device_buffer(const member& m, std::size_t bytes, std::size_t zeroed = 0);
  ~device_buffer();
  device_buffer(device_buffer&& o) noexcept : p_(o.p_), stream_(o.stream_), device_(o.device_) {
    o.p_ = nullptr;
  }
  device_buffer& operator=(device_buffer&& o) noexcept;
  void* get() const noexcept { return p_; }
  template <class T> T* as() const noexcept { return static_cast<T*>(p_); }

private:
  void* p_ = nullptr;
  cudaStream_t stream_ = nullptr;
  int device_ = 0;
};

// A rung's scratch on member k's GPU (the call contract's: at least 256 bytes, the first 256
// zero) kept between calls: made, zeroed, on the first call that needs it and again when a call
// needs more, then reused as it is, the contract keeping those bytes zero (a rung that counts there
// leaves them zero). Spares each call an allocation, a memset and a free per GPU, enqueued before
// the next GPU's work. Scratch past `kept_scratch_most` is a call's own (`owned`, freed on the
// stream when it goes): held between calls it would take that much of the GPU from everything
// else. One call at a time, as the backend's other kept memory.
inline constexpr std::size_t kept_scratch_most = std::size_t(64) << 20;
void* kept_scratch(std::size_t k, std::size_t bytes, device_buffer& owned);

// A point in one stream that work on another stream waits for (an event without timing, made on
// the current device). Destroying it while work is pending is safe: CUDA frees it once reached.
class stream_mark {
public:
  stream_mark();
  ~stream_mark();
  stream_mark(const stream_mark&) = delete;
  stream_mark& operator=(const stream_mark&) = delete;
  void record(cudaStream_t s);
  void wait_in(cudaStream_t s) const;  // work enqueued on s from here on waits for the mark

private:
  cudaEvent_t e_ = nullptr;
};

// One stream_mark per member, each made on its member's device (an event can be recorded only on
// a stream of its own device), for rungs that order the GPUs' streams against each other at every
// call: made once and kept, where a call's own marks would cost an event's creation each.
class member_marks {
public:
  member_marks();
  void record(std::size_t k);  // on member k's stream
  // Work enqueued from here on on member k's stream waits for every other member's mark.
  void wait_for_others(std::size_t k) const;
  const stream_mark& operator[](std::size_t k) const { return *marks_[k]; }

private:
  std::vector<std::unique_ptr<stream_mark>> marks_;
};

}  // namespace pplab::detail::nccl
