// The histogram rung the API runs, per backend and bin count (measured in docs/histogram.md): on
// the cpu, sub-histograms for bytes, a private copy per thread for wider values up to 2^16 bins
// (and within their memory budget), the partition-then-count pass beyond; on the GPU, see the
// cuda case.
#include "core/run.hpp"
#include "histogram/binning.hpp"
#include "histogram/rung.hpp"

namespace pplab::detail {

std::vector<std::string_view> policy(backend b, const histogram_problem& p) {
  switch (b) {
  case backend::seq:
    return {"histogram/seq/h01_sequential"};
  case backend::cpu:
    // Weights: private copies of double sums (the other rungs count).
    if (p.weighted) return {"histogram/cpu/h02_private_per_thread"};
    // Bytes: h03's sixteen sub-histograms, a run of one value spread over them (2^26 bytes on
    // the 2-core EPYC, AVX2: 1.74x h02 uniform, 1.59x all one value). Wider values wait on
    // their binning, not on a run's chain of increments, and h03's copies cost more than they
    // save there (f32, 2^24 values: h02 1.11x h03 at 1024 bins, 1.24x with 90% in one, 1.24x
    // at 2^16 bins; on the AVX-512 machine 1.54x at 2^16). Past 2^16 bins h04's partition
    // (2^20 bins: 2.03x h02).
    if (size_of(p.type) == 1)
      return {"histogram/cpu/h03_sub_histograms", "histogram/cpu/h04_partition_then_count"};
    if (p.bins <= (std::size_t(1) << 16))
      return {"histogram/cpu/h02_private_per_thread", "histogram/cpu/h04_partition_then_count"};
    return {"histogram/cpu/h04_partition_then_count"};
  case backend::cuda:
    // Lane sub-histograms wherever the slots fit one block's shared memory (h05's can_run);
    // packed 16-bit counters up to twice that (h07: 65536 bins); beyond, a partition by bucket
    // then counts in shared memory: no hot counter can stall it (90% of the values in one bin:
    // h03 serializes on one L2 address) and its counts never leave shared memory. The block-local
    // multi-split (h10, up to 2^22 bins) at 2^20 bins: 1.16x the radix sort's partition (h09)
    // and 1.07x global atomics (h03); h09 past 2^22 bins. A cluster's shared memory (h06) and
    // global atomics (h03) where 64 KiB of shared memory per block is not available. Before h10,
    // for the dtypes it takes, h12 looks at a sample first: when a few hot slots hold most of the
    // data, their shared counters (h11) beat the partition (90% in one of 2^20 bins: 1.93x h10).
    // Weights or an array of edges: the rungs that take them; for float32 data against an array
    // of edges h18's one record a cell (1.83x h17 at 1024 edges), while it fits a block. Weights
    // past one block's shared memory: h19's partition, then sums in shared memory (1.97x h15's
    // L2 atomics at 65536 bins, the same bits), where its scratch (the records) fits; h15 else.
    if (p.weighted || p.edge_array)
      return {"histogram/cuda/h18_edges_cell_records",
              "histogram/cuda/h17_edges_float_table",
              "histogram/cuda/h16_edges_lookup_table",
              "histogram/cuda/h14_edges_in_shared",
              "histogram/cuda/h13_weighted_fixed_point",
              "histogram/cuda/h19_weighted_partitioned",
              "histogram/cuda/h15_weighted_global_fixed_point"};
    return {"histogram/cuda/h05_lane_sub_histograms", "histogram/cuda/h07_packed_16bit_counters",
            "histogram/cuda/h12_sampled_choice",      "histogram/cuda/h10_block_multisplit",
            "histogram/cuda/h09_radix_partition",     "histogram/cuda/h06_cluster_distributed",
            "histogram/cuda/h03_interleaved_atomics"};
  case backend::nccl:
    // In one process whose GPUs reach each other's memory, no collective: up to 2^16 slots GPU 0
    // adds them all (512 KiB of counts a GPU cross the link in ~1.3 us, about one cross-GPU wait,
    // which h04 saves), past that each GPU adds its own share; else one in-place all-reduce of
    // the counts (the reduce-scatter, with the answer gathered again, moves as much;
    // docs/nccl.md).
    if (slots(p) <= (std::size_t(1) << 16))
      return {"histogram/nccl/h04_added_on_first_gpu", "histogram/nccl/h03_shares_added_from_peers",
              "histogram/nccl/h01_allreduce"};
    return {"histogram/nccl/h03_shares_added_from_peers", "histogram/nccl/h01_allreduce"};
  case backend::mpi:
    // One in-place all-reduce of the counts (every combine gives the same counts). For 8 MiB of
    // counts on 2 ranks: 1.9 ms, against 3.2 ms for h01 and 64 ms for h03's reduce-scatter
    // (Open MPI 4.1.4, docs/mpi.md): also for many bins.
    return {"histogram/mpi/h02_allreduce"};
  }
  unknown_backend(b);
}

std::string tune_key(const histogram_problem& p) {
  return std::string(name_of(p.type)) + (p.natural ? " natural" : " bins~" + size_class(p.bins)) +
         (f32_edge_binner::needed(p) ? " f32-edges" : "") + (p.edge_array ? " edge-array" : "") +
         (p.weighted ? " weights-" + std::string(name_of(p.weight_type)) : "") + " n~" +
         size_class(p.n);
}

}  // namespace pplab::detail
