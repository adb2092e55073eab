// The nccl executor's arrays (see array.hpp).
#include "core/nccl/array.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <set>

#include "pplab/error.hpp"

namespace pplab::detail::nccl {
namespace {

std::mutex known_mutex;
std::set<const void*>& known() {
  static std::set<const void*> s;
  return s;
}

gpu_array* remember(gpu_array* a) {
  std::lock_guard lock(known_mutex);
  known().insert(a);
  return a;
}

// Calls f(slice i, first byte in it, bytes, where in [offset, offset + bytes) it starts) for
// every slice that overlaps the range.
template <class F>
void over_range(const gpu_array& a, std::size_t offset, std::size_t bytes, F&& f) {
  if (offset + bytes > a.bytes)
    fail(errc::invalid_argument, "internal error: a range past the end of a GPU array");
  for (std::size_t i = 0; i < a.slices.size(); ++i) {
    const slice& s = a.slices[i];
    const std::size_t lo = std::max(offset, s.offset),
                      hi = std::min(offset + bytes, s.offset + s.bytes);
    if (lo < hi) f(i, lo - s.offset, hi - lo, lo - offset);
  }
}

}  // namespace

bool is_array(const void* p) {
  std::lock_guard lock(known_mutex);
  return known().count(p) != 0;
}

const gpu_array& array_at(const void* p) {
  if (!is_array(p))
    fail(errc::invalid_argument, "internal error: a pointer given to an nccl rung is not one of "
                                 "the nccl executor's arrays");
  return *static_cast<const gpu_array*>(p);
}
gpu_array& array_at(void* p) {
  return const_cast<gpu_array&>(array_at(static_cast<const void*>(p)));
}

gpu_array* make_array(std::size_t bytes) {
  const std::vector<member>& ms = members();
  const std::size_t granule = 256, granules = (bytes + granule - 1) / granule;
  auto a = std::make_unique<gpu_array>();
  a->bytes = bytes, a->owned = true;
  std::size_t at = 0;
  try {
    each([&](const member& m) {
      const std::size_t i = a->slices.size(), d = ms.size();
      const std::size_t mine = granules / d + (i < granules % d ? 1 : 0);
      slice s;
      s.offset = at, s.bytes = std::min(mine * granule, bytes - at);
      if (s.bytes) {
        const cudaError_t e = cudaMallocAsync(&s.data, s.bytes, m.stream);
        if (e != cudaSuccess) {
          (void)cudaGetLastError();
          fail(errc::device, "cannot allocate " + std::to_string(s.bytes >> 20) + " MiB on GPU " +
                                 std::to_string(m.device) + " (" + cudaGetErrorString(e) +
                                 "): the data does not fit the GPUs' memory");
        }
      }
      a->slices.push_back(s);
      at += s.bytes;
    });
    synchronize();  // usable from any stream from here on
  } catch (...) {
    for (std::size_t i = 0; i < a->slices.size(); ++i)
      if (a->slices[i].data) cudaFreeAsync(a->slices[i].data, ms[i].stream);
    throw;
  }
  return remember(a.release());
}

gpu_array* wrap_array(std::vector<slice> slices) {
  auto a = std::make_unique<gpu_array>();
  for (slice& s : slices) s.offset = a->bytes, a->bytes += s.bytes;
  a->slices = std::move(slices);
  return remember(a.release());
}

void release_array(void* p) noexcept {
  {
    std::lock_guard lock(known_mutex);
    if (!known().erase(p)) return;
  }
  gpu_array* a = static_cast<gpu_array*>(p);
  if (a->owned) {
    const std::vector<member>& ms = members();
    for (std::size_t i = 0; i < a->slices.size(); ++i)
      if (a->slices[i].data) cudaFreeAsync(a->slices[i].data, ms[i].stream);
  }
  delete a;
}

void write_range(gpu_array& dst, std::size_t offset, const void* src, std::size_t bytes,
                 const member& from) {
  over_range(dst, offset, bytes,
             [&](std::size_t i, std::size_t at, std::size_t len, std::size_t skip) {
               PPLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(dst.slices[i].data) + at,
                                          static_cast<const char*>(src) + skip, len,
                                          cudaMemcpyDefault, from.stream));
             });
}

void read_range(const gpu_array& src, std::size_t offset, void* dst, std::size_t bytes,
                const member& to) {
  over_range(src, offset, bytes,
             [&](std::size_t i, std::size_t at, std::size_t len, std::size_t skip) {
               PPLAB_CUDA(cudaMemcpyAsync(static_cast<char*>(dst) + skip,
                                          static_cast<const char*>(src.slices[i].data) + at, len,
                                          cudaMemcpyDefault, to.stream));
             });
}

device_buffer::device_buffer(const member& m, std::size_t bytes, std::size_t zeroed)
    : stream_(m.stream), device_(m.device) {
  if (!bytes) return;
  PPLAB_CUDA(cudaMallocAsync(&p_, bytes, m.stream));
  if (zeroed) PPLAB_CUDA(cudaMemsetAsync(p_, 0, std::min(zeroed, bytes), m.stream));
}

device_buffer::~device_buffer() {
  if (p_) cudaFreeAsync(p_, stream_);
}

device_buffer& device_buffer::operator=(device_buffer&& o) noexcept {
  std::swap(p_, o.p_), std::swap(stream_, o.stream_), std::swap(device_, o.device_);
  return *this;
}

void* kept_scratch(std::size_t k, std::size_t bytes, device_buffer& owned) {
  const member& m = members()[k];
  bytes = std::max<std::size_t>(bytes, 256);
  if (bytes > kept_scratch_most) {
    owned = device_buffer(m, bytes, 256);
    return owned.get();
  }
  struct kept {
    void* p = nullptr;
    std::size_t bytes = 0;
  };
  static std::vector<kept> all(members().size());
  kept& mine = all[k];
  if (mine.bytes < bytes) {  // on m's stream, behind every earlier use of the smaller one
    PPLAB_CUDA(cudaSetDevice(m.device));
    if (mine.p) PPLAB_CUDA(cudaFreeAsync(mine.p, m.stream));
    mine = {};
    PPLAB_CUDA(cudaMallocAsync(&mine.p, bytes, m.stream));
    PPLAB_CUDA(cudaMemsetAsync(mine.p, 0, 256, m.stream));
    mine.bytes = bytes;
  }
  return mine.p;
}

stream_mark::stream_mark() { PPLAB_CUDA(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
stream_mark::~stream_mark() { cudaEventDestroy(e_); }
void stream_mark::record(cudaStream_t s) { PPLAB_CUDA(cudaEventRecord(e_, s)); }
void stream_mark::wait_in(cudaStream_t s) const { PPLAB_CUDA(cudaStreamWaitEvent(s, e_, 0)); }

member_marks::member_marks() {
  each([&](const member&) { marks_.push_back(std::make_unique<stream_mark>()); });
}

void member_marks::record(std::size_t k) { marks_[k]->record(members()[k].stream); }

void member_marks::wait_for_others(std::size_t k) const {
  for (std::size_t j = 0; j < marks_.size(); ++j)
    if (j != k) marks_[j]->wait_in(members()[k].stream);
}

}  // namespace pplab::detail::nccl
