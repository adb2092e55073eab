// reduce/nccl/r05_joined_on_first_gpu: r03's combine without its host round trip. Each GPU's
// local rung writes its partial into a slot of its own memory; GPU 0's stream waits for the other
// GPUs' marks, and one thread on GPU 0 reads every slot over the GPUs' link (peer access) and
// joins them in GPU order, writing the answer where the call's output lies. The host enqueues and
// returns: no stream is waited for inside the call (r03 waits for every GPU, joins on the host,
// then copies the answer to GPU 0: a round trip of a sync and a copy on the critical path), no
// header goes up, no partial comes down, nothing is allocated but the local rungs' scratch.
// Same answers as r03 but for a mean, weighted here in double (r03: long double): the same bits
// every run for a given GPU count. One process whose GPUs reach each other's memory.
// GPU 0's rung is enqueued last (from one host thread the GPU enqueued last starts last): its join
// follows it in stream order, and the other GPUs' partials are there by then.
// Prediction (2 x H200, data on the GPUs, against r03 in the same run): a whole call on 2^20 f32
// per GPU ~63 us -> ~35 us (one GPU alone ~24 us: the second GPU's later start, a cross-GPU wait
// and the join's launch above it); on 2^30 per GPU 1.033 ms -> ~1.00 ms (1.88x -> ~1.94x).
// Measured (2 x H200, bench/results/h200x2-2026-11-30-nccl-961c9ad.txt, 2026-11-30 section 7):
// first in GPU order, each call's scratch allocated: 2^30 per GPU 0.993 ms, 1.94x one GPU (r03
// 1.005); 2^20 per GPU 40 us (r03 48, one GPU 21). With GPU 0 last and every GPU's scratch kept
// between calls (nccl::kept_scratch, r01-r04 too), two runs: 0.983 and 0.985 ms, 1.97x (r03
// 0.998-1.000, 1.94-1.95x); 2^20 per GPU 31-33 us (r03 42-44). On a machine whose GPU 1 reads
// 1.8% slower than GPU 0 (the call waits for the slower): 0.993-0.998 ms, 1.88-1.89x GPU 0 alone.
#include <limits>

#include "core/nccl/world.hpp"
#include "reduce/nccl/reduce_nccl.hpp"
#include "reduce/reduce_common.hpp"

namespace pplab::detail::reduce_nccl {
namespace {

struct join_args {
  const scalar* slot[nccl::most_peer_gpus];  // GPU k's partial, in GPU k's memory
  std::uint64_t n[nccl::most_peer_gpus];     // the elements behind it (0: none, its slot unread)
  int gpus;
  op what;
  scalar nothing;  // the answer when no GPU has an element: the op's identity
  scalar* out;
};

template <class A> __device__ scalar::kind kind_of() {
  if constexpr (std::is_floating_point_v<A>) return scalar::kind::f64;
  else if constexpr (std::is_signed_v<A>) return scalar::kind::i64;
  else return scalar::kind::u64;
}
template <class A> __device__ A value_of(const scalar& s) {
  if constexpr (std::is_floating_point_v<A>) return A(s.f);
  else if constexpr (std::is_signed_v<A>) return A(s.i);
  else return A(s.u);
}
template <class A> __device__ void put(scalar& s, A v) {
  s.k = kind_of<A>();
  if constexpr (std::is_floating_point_v<A>) s.f = v;
  else if constexpr (std::is_signed_v<A>) s.i = v;
  else s.u = v;
}

// A partial's accumulator is a double, a 64-bit signed or an unsigned integer (reduce_cuda's
// store): the host's combine on that accumulator is the combine of every dtype that widens to it
// (min and max are exact in the wider type).
template <class A, op O> __device__ scalar join_as(const join_args& a) {
  A acc{};
  bool any = false;
  for (int k = 0; k < a.gpus; ++k) {
    if (!a.n[k]) continue;
    const A v = value_of<A>(*a.slot[k]);
    acc = any ? combine<A, O>(acc, v) : v;
    any = true;
  }
  scalar s = a.nothing;
  if (any) put(s, acc);
  return s;
}

template <op O> __device__ scalar join_kind(const join_args& a, scalar::kind k) {
  if (k == scalar::kind::f64) return join_as<double, O>(a);
  if (k == scalar::kind::i64) return join_as<std::int64_t, O>(a);
  return join_as<std::uint64_t, O>(a);
}

__global__ void join_in_gpu_order(join_args a) {
  scalar s = a.nothing;
  if (a.what == op::mean) {  // each slot holds its GPU's mean: weighted by the counts
    double total = 0;
    std::uint64_t all = 0;
    for (int k = 0; k < a.gpus; ++k)
      if (a.n[k]) total += a.slot[k]->f * double(a.n[k]), all += a.n[k];
    s.k = scalar::kind::f64;
    s.f = all ? total / double(all) : std::numeric_limits<double>::quiet_NaN();
  } else {
    // The accumulator's kind, the same on every GPU: that of the identity.
    switch (a.what) {
    case op::product:
      s = join_kind<op::product>(a, a.nothing.k);
      break;
    case op::min:
      s = join_kind<op::min>(a, a.nothing.k);
      break;
    case op::max:
      s = join_kind<op::max>(a, a.nothing.k);
      break;
    default:
      s = join_kind<op::sum>(a, a.nothing.k);
    }
  }
  *a.out = s;
}

// Kept between calls: two scalars per GPU from its stream-ordered pool (open to the other GPUs):
// its partial, and on GPU 0 a place for an answer whose output lies elsewhere.
scalar* slots(std::size_t k) {
  static const std::vector<scalar*> kept = [] {
    std::vector<scalar*> s;
    nccl::each([&](const nccl::member& m) {
      void* p = nullptr;
      PPLAB_CUDA(cudaMallocAsync(&p, 2 * sizeof(scalar), m.stream));
      PPLAB_CUDA(cudaStreamSynchronize(m.stream));
      s.push_back(static_cast<scalar*>(p));
    });
    return s;
  }();
  return kept[k];
}

bool can_run(const reduce_problem& p) {
  return !p.exact && !is_arg(p.what) && !is_moments(p.what) && !skips_nan(p.what) &&
         nccl::peers_reach_each_other();
}

void run(const reduce_call& c) {
  const std::vector<nccl::member>& ms = nccl::members();
  // Written: GPU k's partial is in its slot. Joined: GPU 0 has read them all (a slot is written
  // again by the next call only behind it).
  static nccl::member_marks& written = *new nccl::member_marks;
  static nccl::member_marks& joined = *new nccl::member_marks;
  const nccl::gpu_array& in = nccl::array_at(c.in);
  const std::size_t e = size_of(c.p.type);
  join_args a{};
  a.gpus = int(ms.size()), a.what = c.p.what;
  visit_reduce(c.p.type, c.p.what, [&](auto tag, auto otag) {
    a.nothing = scalar::of(identity<decltype(tag), decltype(otag)::value>());
  });
  nccl::each_agreed(
      [&](std::size_t k, const nccl::member& m) {
        const reduce_problem q{c.p.type, c.p.what, in.slices[k].bytes / e};
        a.n[k] = q.n, a.slot[k] = slots(k);
        if (q.n == 0) return;
        const reduce_rung& r = default_rung<reduce_rung>(backend::cuda, q);
        nccl::device_buffer own_scratch;
        void* scratch = nccl::kept_scratch(k, r.scratch(q), own_scratch);
        r.run({q, in.slices[k].data, slots(k), scratch, m.stream});
        if (k != 0) written.record(k);
      },
      nccl::visit::first_last);
  nccl::gpu_array& out = nccl::array_at(static_cast<void*>(c.out));
  const bool in_place = out.slices[0].bytes >= sizeof(scalar);
  a.out = in_place ? static_cast<scalar*>(out.slices[0].data) : slots(0) + 1;
  // GPU 0, enqueued last, joins right behind its own partial; the others' are done or nearly.
  nccl::each([&](std::size_t k, const nccl::member& m) {
    if (k == 0) {
      for (std::size_t j = 1; j < ms.size(); ++j)
        if (a.n[j]) written[j].wait_in(m.stream);
      join_in_gpu_order<<<1, 1, 0, m.stream>>>(a);
      PPLAB_CUDA(cudaGetLastError());
      if (!in_place) nccl::write_range(out, 0, a.out, sizeof(scalar), m);
      joined.record(0);
    } else {
      joined[0].wait_in(m.stream);
    }
  });
}

}  // namespace

extern const reduce_rung r05_joined_on_first_gpu{
    .info = {.step = 5,
             .summary = "one process: GPU 0 reads the partials over the link and joins them in "
                        "GPU order (r03 without the host round trip)"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::reduce_nccl
