// reduce/cuda/r12_last_block_finishes: one launch, deterministic. Each block writes its partial,
// makes it visible to the whole GPU (__threadfence), then takes a ticket from a counter; the
// block that draws the last ticket knows every partial is written and reduces them, in block
// order with a fixed tree, then puts the counter back to zero for the next launch. No second
// launch, no host round trip, no order-dependent atomics: the same bits on every run of the
// same n on the same GPU. The grid is sized to the GPU (every block resident), so the last
// block's pass over the partials is a few thousand loads.
// What limits it: DRAM bandwidth, like r09, minus r09's second launch.
#include "reduce/cuda/per_block.cuh"

namespace pplab::detail::gpu_reduce {
namespace {

constexpr unsigned B = 256;
constexpr int unroll = 4;
constexpr std::size_t max_blocks = 64 * 256;

template <class T, op O>
__global__ void __launch_bounds__(B)
    last_block(const T* __restrict__ in, std::size_t n, acc_t<T, O>* partial, unsigned* tickets,
               scalar* out, std::size_t mean_n) {
  using A = acc_t<T, O>;
  const std::size_t threads = std::size_t(gridDim.x) * B;
  A v = thread_reduce_vec<T, O, unroll>(in, n, std::size_t(blockIdx.x) * B + threadIdx.x, threads);
  v = block_reduce<T, O, B>(v);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = v;
    __threadfence();  // the partial is visible GPU-wide before the ticket is taken
    last = atomicAdd(tickets, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  v = identity<T, O>();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += B) v = combine<T, O>(v, __ldcg(partial + b));
  v = block_reduce<T, O, B>(v);
  if (threadIdx.x == 0) {
    store(out, v, mean_n);
    *tickets = 0;
  }
}

struct rung {
  template <class T, op O>
  static void run(const T* in, std::size_t n, void* scratch, scalar* out, std::size_t mean_n,
                  cudaStream_t s) {
    using A = acc_t<T, O>;
    static const std::size_t resident = resident_blocks(last_block<T, O>, B);
    const std::size_t blocks =
        std::min({resident, max_blocks, std::max<std::size_t>(1, ceil_div(n, B * (16 / sizeof(T)) * unroll))});
    auto* tickets = static_cast<unsigned*>(scratch);  // zero on arrival, zero on leaving
    auto* partials = reinterpret_cast<A*>(static_cast<char*>(scratch) + 256);
    last_block<T, O><<<unsigned(blocks), B, 0, s>>>(in, n, partials, tickets, out, mean_n);
    PPLAB_CUDA_LAUNCHED();
  }
};

}  // namespace

std::size_t r12_scratch(const reduce_problem&) { return 256 + max_blocks * 8; }
void r12_run(const reduce_call& c) { dispatch<rung, dtypes::all>(c); }

}  // namespace pplab::detail::gpu_reduce
