// The nccl reduction rungs' shared parts (see reduce_nccl.hpp).
#include "reduce/nccl/reduce_nccl.hpp"

#include "reduce/reduce_common.hpp"
#include "reduce/rung.hpp"

namespace pplab::detail::reduce_nccl {

// Pinned host memory, kept: small copies from and to it run asynchronously (a copy from
// pageable memory holds this thread until it is staged). Reused safely: each call waits for its
// GPUs before it returns. One partial per GPU of this process, then the answer.
partial* pinned_partials() {
  static partial* slots = [] {
    void* p = nullptr;
    PPLAB_CUDA(cudaMallocHost(&p, (nccl::members().size() + 1) * sizeof(partial)));
    return static_cast<partial*>(p);
  }();
  return slots;
}

std::vector<nccl::device_buffer> local_partials(const reduce_call& c, bool back_to_host) {
  const nccl::gpu_array& in = nccl::array_at(c.in);
  const std::size_t e = size_of(c.p.type);
  std::vector<nccl::device_buffer> out(nccl::members().size());
  // From this thread, GPU after GPU: the cuda rungs only enqueue. (One thread per GPU,
  // started per call, measured slower on 2 H200s: 236 us against 61 us for a whole call of
  // 2^20 values per GPU; a pool of threads kept between calls is the next step.)
  nccl::each_agreed([&](std::size_t k, const nccl::member& m) {
    const reduce_problem q{c.p.type, c.p.what, in.slices[k].bytes / e};
    partial& head = pinned_partials()[k];
    head.n = q.n, head.type = q.type, head.what = q.what;
    // An empty slice weighs nothing: the identity (a mean of nothing: 0 with weight 0).
    visit_reduce(q.type, q.what, [&](auto tag, auto otag) {
      head.value = scalar::of(identity<decltype(tag), decltype(otag)::value>());
    });
    out[k] = nccl::device_buffer(m, sizeof(partial));
    PPLAB_CUDA(cudaMemcpyAsync(out[k].get(), &head, sizeof head, cudaMemcpyHostToDevice, m.stream));
    if (q.n == 0) return;
    const reduce_rung& r = default_rung<reduce_rung>(backend::cuda, q);
    nccl::device_buffer own_scratch;
    void* scratch = nccl::kept_scratch(k, r.scratch(q), own_scratch);
    // The value goes first in a partial: the cuda rung writes it in place.
    r.run({q, in.slices[k].data, out[k].as<scalar>(), scratch, m.stream});
    // Into the slot the header came from: its copy in is ahead of this copy out on the stream.
    if (back_to_host)
      PPLAB_CUDA(
          cudaMemcpyAsync(&head, out[k].get(), sizeof head, cudaMemcpyDeviceToHost, m.stream));
  });
  return out;
}

void write_answer(const reduce_call& c, const void* answer, std::size_t bytes) {
  nccl::gpu_array& out = nccl::array_at(static_cast<void*>(c.out));
  const nccl::member& first = nccl::members().front();
  PPLAB_CUDA(cudaSetDevice(first.device));
  nccl::write_range(out, 0, answer, bytes, first);
}

void put_answer(const reduce_call& c, const partial& all) {
  scalar& s = pinned_partials()[nccl::members().size()].value;
  s = reduce_parts::answer(c.p, all);
  write_answer(c, &s, sizeof s);
}

}  // namespace pplab::detail::reduce_nccl
