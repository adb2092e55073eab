#pragma once
// What the one-process matmul rungs (m01, m02) share: C's rows split over the GPUs (GPU g computes
// the rows part_of(m, g, G) from A's same rows) and B gathered whole on every GPU. The arrays are
// split by bytes (core/nccl/array.hpp): a GPU's rows of A and C are used in place when they lie in
// its own slice (the lab's matrices are split by whole rows), else fetched over NVLink.
#include <deque>
#include <vector>

#include "core/nccl/array.hpp"
#include "matmul/matmul_common.hpp"
#include "matmul/rung.hpp"

namespace pplab::detail::matmul_nccl {

// m01 and m02 take arrays split over the GPUs of one process (m03 the blocks of a job's process).
inline bool in_one_process(const matmul_problem& p) {
  return one_float_product(p) && !nccl::job_of_processes();
}

// B whole on every GPU: every GPU's slice of B broadcast from it to the others, one group of G
// ncclBroadcast calls on each member's stream `on` (its `stream`, or its `side` stream to overlap
// the broadcast with work on `stream`). The buffers are allocated on each member's `stream`, which
// must outlive the broadcast: work on `stream` that reads them waits for `landed` (when given).
inline std::vector<nccl::device_buffer> whole_b_everywhere(const nccl::gpu_array& b,
                                                           cudaStream_t nccl::member::*on,
                                                           std::deque<nccl::stream_mark>* landed) {
  const std::vector<nccl::member>& ms = nccl::members();
  std::vector<nccl::device_buffer> whole;
  nccl::each([&](const nccl::member& m) {
    whole.emplace_back(m, b.bytes);
    if (on == &nccl::member::stream) return;
    nccl::stream_mark allocated;  // the side stream waits for the allocation on `stream`
    allocated.record(m.stream);
    allocated.wait_in(m.*on);
  });
  PPLAB_NCCL(ncclGroupStart());
  for (std::size_t root = 0; root < ms.size(); ++root) {
    const nccl::slice& s = b.slices[root];
    if (!s.bytes) continue;
    for (std::size_t i = 0; i < ms.size(); ++i)
      PPLAB_NCCL(ncclBroadcast(s.data, whole[i].as<char>() + s.offset, s.bytes, ncclUint8,
                               int(root), ms[i].comm, ms[i].*on));
  }
  PPLAB_NCCL(ncclGroupEnd());
  if (landed) {
    landed->clear();  // each mark made with its GPU current (an event belongs to one device)
    nccl::each([&](const nccl::member& m) { landed->emplace_back().record(m.*on); });
  }
  return whole;
}

// Rows [first, first + count) of a matrix with leading dimension ld and `cols` columns of `e`
// bytes, stored in array x: a pointer into member i's own slice when they lie in it, else a
// copy in `copy` (fetched when `fetch`; else left for the caller to fill and write back).
inline char* rows_of(const nccl::gpu_array& x, std::size_t i, std::size_t first, std::size_t count,
                     std::size_t ld, std::size_t cols, std::size_t e, nccl::device_buffer& copy,
                     bool fetch) {
  const nccl::member& m = nccl::members()[i];
  const std::size_t lo = first * ld * e, bytes = count ? ((count - 1) * ld + cols) * e : 0;
  const nccl::slice& s = x.slices[i];
  if (lo >= s.offset && lo + bytes <= s.offset + s.bytes)
    return static_cast<char*>(s.data) + (lo - s.offset);
  copy = nccl::device_buffer(m, count * ld * e);
  if (fetch && bytes) nccl::read_range(x, lo, copy.get(), bytes, m);
  return copy.as<char>();
}

// After the rows were computed in a copy: the copy written back into the array.
inline void write_rows_back(nccl::gpu_array& x, std::size_t i, std::size_t first, std::size_t count,
                            std::size_t ld, std::size_t cols, std::size_t e,
                            const nccl::device_buffer& copy) {
  if (copy.get() && count)
    nccl::write_range(x, first * ld * e, copy.get(), ((count - 1) * ld + cols) * e,
                      nccl::members()[i]);
}

}  // namespace pplab::detail::matmul_nccl
