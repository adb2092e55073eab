// reduce/cuda/r10_host_combine: the reduction notes' second way to combine the blocks: "if there
// are only a small number of sums, the host can simply transfer the data back and add them
// together". r09's kernel (vector_partials) writes one partial per resident block; they are copied
// to pinned host memory and combined on the CPU in block order, and the answer is copied back.
// Deterministic, but the stream must stop twice for the host: a round trip of ~15 us that shows
// below 2^26 elements.
// Measured (H200, bench/results/h200-2026-11-21.json): f32 sum of 2^28 on the device, 0.2668 ms,
// 4024 GB/s (84% of theoretical); 2^24: 0.0426 ms.
#include <mutex>

#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::reduce_cuda {
namespace {

constexpr unsigned B = 256;
constexpr int unroll = 4;
constexpr std::size_t max_blocks = 64 * 256;

// Pinned host memory for the partials and the answer, one buffer per thread that calls.
struct pinned {
  void* p = nullptr;
  pinned() { PPLAB_CUDA(cudaMallocHost(&p, max_blocks * max_acc_bytes + sizeof(scalar))); }
  ~pinned() { cudaFreeHost(p); }
};

struct rung {
  template <class T, op O>
  static void run(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                  cudaStream_t s) {
    using A = acc_t<T, O>;
    static thread_local pinned host;
    static const std::size_t resident = resident_blocks(vector_partials<T, O, B, unroll>, B);
    const std::size_t blocks =
        n ? std::min(resident, ceil_div(n, B * (16 / sizeof(T)) * unroll)) : 0;
    A* partials = static_cast<A*>(scratch);
    A* back = static_cast<A*>(host.p);
    if (blocks) {
      vector_partials<T, O, B, unroll><<<unsigned(blocks), B, 0, s>>>(in, n, partials);
      PPLAB_CUDA_LAUNCHED();
      PPLAB_CUDA(cudaMemcpyAsync(back, partials, blocks * sizeof(A), cudaMemcpyDeviceToHost, s));
      PPLAB_CUDA(cudaStreamSynchronize(s));
    }
    A v = identity<T, O>();
    for (std::size_t b = 0; b < blocks; ++b) v = combine<T, O>(v, back[b]);
    scalar* answer =
        reinterpret_cast<scalar*>(static_cast<char*>(host.p) + max_blocks * max_acc_bytes);
    *answer = answer_of(v, mean_n ? op::mean : op::sum, mean_n);
    PPLAB_CUDA(cudaMemcpyAsync(out, answer, sizeof(scalar), cudaMemcpyHostToDevice, s));
    PPLAB_CUDA(cudaStreamSynchronize(s));  // the pinned answer is reused by the next call
  }
};

}  // namespace

extern const reduce_rung r10_host_combine{
    .info = {.step = 10, .summary = "block partials combined on the host"},
    .can_run = supports<dtypes::all>,
    .scratch_bytes = [](const reduce_problem&) { return max_blocks * max_acc_bytes; },
    .run = [](const reduce_call& c) { dispatch<rung, dtypes::all>(c); },
};

}  // namespace pplab::detail::reduce_cuda
