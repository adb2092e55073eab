// Running a GPU reduction rung on host data, and the device-resident entry point.
//
// Host data of any size is streamed: chunks of 64 MiB are copied by the CPU threads into one of
// two pinned buffers, sent to the GPU asynchronously on that buffer's stream, and reduced there,
// so the copy of one chunk overlaps the reduction of the other. Each chunk leaves one answer;
// the host combines them in chunk order, so the result is deterministic (the chunk size is
// fixed) and no chunk needs more GPU memory than 2 x 64 MiB, whatever n is.
#include <omp.h>

#include <cstring>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/device.hpp"
#include "core/run_rung.hpp"
#include "pplab/device.hpp"
#include "reduce/reduce_common.hpp"

namespace pplab::detail {
namespace {

constexpr std::size_t chunk_bytes = std::size_t(64) << 20;

// Device and pinned buffers that grow as needed and are kept for the next call of this thread.
struct staging {
  cudaStream_t stream[2] = {};
  cudaEvent_t copied[2] = {};
  void* pinned[2] = {};
  void* dev[2] = {};
  void* scratch[2] = {};
  std::size_t scratch_bytes = 0;
  scalar* answers = nullptr;
  std::size_t answer_slots = 0;

  staging() {
    for (int k = 0; k < 2; ++k) {
      PPLAB_CUDA(cudaStreamCreateWithFlags(&stream[k], cudaStreamNonBlocking));
      PPLAB_CUDA(cudaEventCreateWithFlags(&copied[k], cudaEventDisableTiming));
      PPLAB_CUDA(cudaMallocHost(&pinned[k], chunk_bytes));
      PPLAB_CUDA(cudaMalloc(&dev[k], chunk_bytes));
    }
  }
  ~staging() {  // at thread exit; errors no longer matter
    for (int k = 0; k < 2; ++k) {
      cudaFreeHost(pinned[k]);
      cudaFree(dev[k]);
      cudaFree(scratch[k]);
    }
    cudaFree(answers);
  }
  void need_scratch(std::size_t bytes) {  // zero-filled, as rungs expect
    if (bytes <= scratch_bytes) return;
    for (int k = 0; k < 2; ++k) {
      cudaFree(scratch[k]);
      PPLAB_CUDA(cudaMalloc(&scratch[k], bytes));
      PPLAB_CUDA(cudaMemset(scratch[k], 0, bytes));
    }
    scratch_bytes = bytes;
  }
  void need_answers(std::size_t count) {
    if (count <= answer_slots) return;
    cudaFree(answers);
    PPLAB_CUDA(cudaMalloc(&answers, count * sizeof(scalar)));
    answer_slots = count;
  }
};

staging& stage() {
  static thread_local staging s;
  return s;
}

// Combines per-chunk answers on the host, in chunk order.
scalar combine_answers(const reduce_problem& p, const std::vector<scalar>& parts) {
  return visit_dtype(p.type, [&](auto tag) {
    using T = decltype(tag);
    const auto fold = [&](auto op_tag) {
      constexpr op O = decltype(op_tag)::value;
      using A = acc_t<T, O>;
      A acc = identity<T, O>();
      for (const scalar& s : parts) acc = combine<T, O>(acc, s.as<A>());
      return acc;
    };
    switch (p.what) {
    case op::sum:
      return scalar::of(fold(pplab::sum));
    case op::mean:
      return scalar::of(double(fold(pplab::sum)) / double(p.n));
    case op::product:
      return scalar::of(fold(pplab::product));
    case op::min:
      return scalar::of(fold(pplab::min));
    default:
      return scalar::of(fold(pplab::max));
    }
  });
}

}  // namespace

scalar run_reduce_on_device(const reduce_rung& r, const reduce_problem& p, const void* host_data) {
  require_backend(backend::cuda);
  staging& s = stage();
  const std::size_t elem = size_of(p.type);
  const std::size_t per_chunk = chunk_bytes / elem;
  const std::size_t chunks = p.n ? (p.n + per_chunk - 1) / per_chunk : 1;
  const op chunk_op = p.what == op::mean ? op::sum : p.what;
  std::size_t scratch = 0;
  for (std::size_t c = 0; c < chunks; ++c)
    if (r.scratch_bytes)
      scratch = std::max(
          scratch, r.scratch_bytes({p.type, chunk_op, std::min(per_chunk, p.n - c * per_chunk)}));
  s.need_scratch(std::max<std::size_t>(scratch, 256));
  s.need_answers(chunks);
  PPLAB_CUDA(cudaMemset(s.answers, 0xab, chunks * sizeof(scalar)));  // poison: the rung must write
  for (std::size_t c = 0; c < chunks; ++c) {
    const int k = int(c % 2);
    const std::size_t first = c * per_chunk, len = p.n ? std::min(per_chunk, p.n - first) : 0;
    PPLAB_CUDA(cudaEventSynchronize(s.copied[k]));  // the pinned buffer's last copy is done
    const char* src = static_cast<const char*>(host_data) + first * elem;
    char* dst = static_cast<char*>(s.pinned[k]);
    const std::size_t bytes = len * elem;
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t off = 0; off < std::ptrdiff_t(bytes); off += 1 << 20)
      std::memcpy(dst + off, src + off, std::min<std::size_t>(1 << 20, bytes - std::size_t(off)));
    if (bytes)
      PPLAB_CUDA(
          cudaMemcpyAsync(s.dev[k], s.pinned[k], bytes, cudaMemcpyHostToDevice, s.stream[k]));
    PPLAB_CUDA(cudaEventRecord(s.copied[k], s.stream[k]));
    PPLAB_CUDA(cudaMemsetAsync(s.scratch[k], 0, 256, s.stream[k]));  // the zeroed head rungs expect
    r.run({{p.type, chunk_op, len}, s.dev[k], s.answers + c, s.scratch[k], s.stream[k]});
  }
  for (int k = 0; k < 2; ++k) PPLAB_CUDA(cudaStreamSynchronize(s.stream[k]));
  std::vector<scalar> parts(chunks);
  PPLAB_CUDA(cudaMemcpy(parts.data(), s.answers, chunks * sizeof(scalar), cudaMemcpyDeviceToHost));
  if (chunks == 1 && p.what != op::mean) return parts[0];
  return combine_answers(p, parts);
}

}  // namespace pplab::detail

namespace pplab {

scalar reduce_device(dtype t, const void* device_data, std::size_t n, op o) {
  if (n > 0 && device_data == nullptr)
    fail(errc::invalid_argument, "reduce: device data is null but n = " + std::to_string(n));
  if (o == op::mean && n == 0)
    fail(errc::invalid_argument, "reduce: the mean of an empty input is undefined");
  detail::require_backend(backend::cuda);
  cudaPointerAttributes attr{};
  if (n && (cudaPointerGetAttributes(&attr, device_data) != cudaSuccess ||
            (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged))) {
    cudaGetLastError();
    fail(errc::invalid_argument, "reduce: the pointer is not device memory; pass host data "
                                 "through pplab::reduce(pplab::cuda, host_range, op) instead");
  }
  const detail::reduce_problem p{t, o, n};
  const detail::reduce_rung& r = detail::pick_reduce(backend::cuda, p);
  detail::staging& s = detail::stage();
  s.need_scratch(std::max<std::size_t>(r.scratch_bytes ? r.scratch_bytes(p) : 0, 256));
  s.need_answers(1);
  PPLAB_CUDA(cudaMemsetAsync(s.scratch[0], 0, 256, s.stream[0]));
  r.run({p, device_data, s.answers, s.scratch[0], s.stream[0]});
  scalar out;
  PPLAB_CUDA(cudaMemcpyAsync(&out, s.answers, sizeof out, cudaMemcpyDeviceToHost, s.stream[0]));
  PPLAB_CUDA(cudaStreamSynchronize(s.stream[0]));
  return out;
}

}  // namespace pplab
