# The histogram module: its own sources and each backend folder's, relative to src/ (read by
# pplab_add_pattern in cmake/patterns.cmake, which compiles the folders of the backends built).
set(pattern_sources histogram/api.cpp histogram/policy.cpp)
set(seq_sources histogram/seq/h01_sequential.cpp)
set(cpu_sources histogram/cpu/h01_shared_atomic.cpp histogram/cpu/h02_private_per_thread.cpp
  histogram/cpu/h03_sub_histograms.cpp histogram/cpu/h04_partition_then_count.cpp
  histogram/cpu/byte_store_floor.cpp histogram/cpu/register.cpp)
set(cuda_sources histogram/cuda/h00_cub.cu histogram/cuda/h01_racy_increment.cu
  histogram/cuda/h02_sectioned_atomics.cu histogram/cuda/h03_interleaved_atomics.cu
  histogram/cuda/h04_shared_privatized.cu histogram/cuda/h05_lane_sub_histograms.cu
  histogram/cuda/h06_cluster_distributed.cu histogram/cuda/h07_packed_16bit_counters.cu
  histogram/cuda/h08_merged_runs.cu histogram/cuda/h09_radix_partition.cu
  histogram/cuda/h10_block_multisplit.cu histogram/cuda/h11_partial_privatized.cu
  histogram/cuda/h12_sampled_choice.cu
  histogram/cuda/atomic_rates.cu histogram/cuda/register.cu)
# The cuda folder also gives the lab the GPU's atomic rates and CUB's RGBA histogram, through the
# module's table (its exports hook; the core's forwarders to them, with or without the module).
set(cuda_exports add_histogram_cuda_exports)
set(cuda_forward_sources histogram/cuda_forward.cpp)
set(nccl_sources histogram/nccl/h01_allreduce.cpp histogram/nccl/h02_reduce_scatter.cpp
  histogram/nccl/register.cpp)
set(mpi_sources histogram/mpi/h01_reduce_to_root.cpp histogram/mpi/h02_allreduce.cpp
  histogram/mpi/h03_reduce_scatter.cpp histogram/mpi/register.cpp)
