// histogram/cuda/h06_cluster_distributed: bins past one block's shared memory, kept in shared
// memory anyway: a thread-block cluster (Hopper) holds one histogram spread over the shared
// memory of its C blocks, block r owning slots [r x part, (r + 1) x part). A thread bins its
// element and adds one to the owner's counter through distributed shared memory
// (cluster.map_shared_rank: an atomic on another SM of the same GPC, over the SM-to-SM
// network, no L2). The cluster synchronizes after zeroing (no block counts into a part not yet
// zeroed) and before the flush (no block leaves while others still count into its part); each
// block then adds its part into the global 64-bit counts, one atomic per nonzero slot.
// C is the smallest power of two whose parts fit 96 KiB (65536 bins: C = 4, 64 KiB each, three
// blocks of 512 threads per SM); up to 16 blocks (a non-portable cluster size), so bins up to
// about 900 000. The owner is found by a multiply-high instead of a division. Windows of at most
// 2^22 / C elements per thread keep a cluster's 32-bit counters from wrapping.
// What limits it: the distributed-shared-memory atomic rate ((C - 1) / C of the atomics are
// remote), and one cluster's blocks must be resident together.
// Measured (H200, bench/results/h200-2026-11-23-histogram-f907169.json): f32 65536 bins 3.00 ms,
// 358 GB/s = 3.7x CUB, no faster than h03's L2 atomics (3.02 ms): 90 G atomics/s, so distributed-
// shared-memory atomics run at about the L2 rate, 40x below local shared atomics. Kept as the
// measured answer; h07 does it locally.
#include <cooperative_groups.h>

#include "histogram/cuda/histogram_cuda.cuh"

namespace pplab::detail::histogram_cuda {
namespace {

namespace cg = cooperative_groups;
constexpr unsigned B = 512;
constexpr int unroll = 4;
constexpr std::size_t part_budget = std::size_t(96) << 10;
constexpr unsigned max_cluster = 16;

struct layout {
  unsigned blocks = 1, part = 0, magic = 0;  // part slots per block; owner = umulhi(s, magic) >> 8
};

layout layout_for(std::size_t nslots) {
  layout l;
  const std::size_t limit = std::min(part_budget, max_shared_per_block());
  while (ceil_div(nslots, l.blocks) * 4 > limit && l.blocks < max_cluster) l.blocks *= 2;
  if (ceil_div(nslots, l.blocks) * 4 > max_shared_per_block()) return {0, 0, 0};
  l.part = unsigned(ceil_div(nslots, l.blocks));
  // s / part for every slot s < 2^24 with part < 2^16: s x magic / 2^40 with magic = ceil(2^40 /
  // part) errs by less than s / 2^40 < 1 / part, never enough to reach the next whole number.
  l.magic = unsigned(ceil_div(std::size_t(1) << 40, l.part));
  return l;
}

template <class T, class Bin>
__global__ void cluster_distributed(const T* __restrict__ x, std::size_t n, Bin bin,
                                    count_t* counts, unsigned nslots, layout l) {
  extern __shared__ unsigned part[];
  const cg::cluster_group cluster = cg::this_cluster();
  for (unsigned i = threadIdx.x; i < l.part; i += blockDim.x) part[i] = 0;
  cluster.sync();
  for_each_vectorized<T, unroll, load::readonly>(
      x, n, global_thread(), grid_threads(), [&](T v, std::size_t) {
        const unsigned s = unsigned(bin(v));
        const unsigned owner = __umulhi(s, l.magic) >> 8;
        atomicAdd(cluster.map_shared_rank(part, owner) + (s - owner * l.part), 1u);
      });
  cluster.sync();
  const unsigned first = cluster.block_rank() * l.part;
  for (unsigned i = threadIdx.x; i < l.part && first + i < nslots; i += blockDim.x)
    if (const unsigned v = part[i]) atomicAdd(&counts[first + i], count_t(v));
}

struct rung {
  template <class T, class Bin>
  static void run(const T* x, std::size_t n, Bin bin, const histogram_call& c, cudaStream_t s) {
    const std::size_t nslots = slots(c.p);
    const layout l = layout_for(nslots);
    const std::size_t shared = std::size_t(l.part) * 4;
    const auto kernel = cluster_distributed<T, Bin>;
    PPLAB_CUDA(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
    if (l.blocks > 8)
      PPLAB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchConfig_t config{};
    cudaLaunchAttribute cluster_dim{};
    cluster_dim.id = cudaLaunchAttributeClusterDimension;
    cluster_dim.val.clusterDim.x = l.blocks;
    cluster_dim.val.clusterDim.y = cluster_dim.val.clusterDim.z = 1;
    config.attrs = &cluster_dim;
    config.numAttrs = 1;
    config.blockDim = dim3(B);
    config.dynamicSmemBytes = shared;
    config.stream = s;
    config.gridDim = dim3(l.blocks);
    int clusters = 0;
    PPLAB_CUDA(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
    const std::size_t per_cluster = std::size_t(l.blocks) * B * unroll * (16 / sizeof(T));
    const std::size_t wanted = std::max<std::size_t>(1, ceil_div(n, per_cluster));
    config.gridDim =
        dim3(unsigned(std::min<std::size_t>(std::max(clusters, 1), wanted)) * l.blocks);
    // Each thread counts at most 2^22 / C elements per launch: at most 2^31 per cluster.
    in_windows(n, std::size_t(config.gridDim.x) * B / l.blocks,
               [&](std::size_t at, std::size_t len) {
                 PPLAB_CUDA(cudaLaunchKernelEx(&config, kernel, x + at, len, bin, counts_of(c),
                                               unsigned(nslots), l));
               });
  }
};

// Only where one block cannot hold the slots (h05's ground) and a cluster of 16 can.
bool can_run(const histogram_problem& p) {
  return counts_even_bins(p) && slots(p) * 4 > max_shared_per_block() &&
         slots(p) < (std::size_t(1) << 24) && layout_for(slots(p)).blocks > 0;
}
void run(const histogram_call& c) { dispatch<rung, dtypes::all>(c); }

}  // namespace

extern const histogram_rung h06_cluster_distributed{
    .info = {.step = 6,
             .summary = "bins past one block: one histogram over a cluster's shared memory"},
    .can_run = can_run,
    .run = run,
};

}  // namespace pplab::detail::histogram_cuda
