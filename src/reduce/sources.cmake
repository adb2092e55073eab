# The reduction module: its own sources and each backend folder's, relative to src/ (read by
# pplab_add_pattern in cmake/patterns.cmake, which compiles the folders of the backends built).
set(pattern_sources reduce/api.cpp reduce/policy.cpp reduce/partials.cpp)
set(seq_sources reduce/seq/r01_sequential_loop.cpp reduce/seq/register.cpp)
set(cpu_sources reduce/cpu/r01_omp_reduction_clause.cpp reduce/cpu/r02_partition_tree_combine.cpp
  reduce/cpu/r03_simd_accumulators.cpp reduce/cpu/register.cpp)
set(cuda_sources reduce/cuda/r00_cub.cu
  reduce/cuda/r01_interleaved_divergent.cu reduce/cuda/r02_strided_index.cu
  reduce/cuda/r03_sequential_addressing.cu reduce/cuda/r04_first_add_during_load.cu
  reduce/cuda/r05_unroll_last_warp.cu reduce/cuda/r06_complete_unroll.cu
  reduce/cuda/r07_grid_stride_cascade.cu reduce/cuda/r08_warp_shuffle.cu
  reduce/cuda/r09_vector_loads.cu reduce/cuda/r10_host_combine.cu
  reduce/cuda/r11_atomic_combine.cu reduce/cuda/r12_last_block_finishes.cu
  reduce/cuda/rows.cu reduce/cuda/register.cu)
# The cuda folder also reduces the rows of a matrix on the GPU (pplab::reduce_rows_device),
# through the module's table (its exports hook; the core's forwarder to it).
set(cuda_exports add_reduce_cuda_exports)
set(cuda_forward_sources reduce/cuda_forward.cpp)
set(nccl_sources reduce/nccl/reduce_nccl.cpp reduce/nccl/r01_allreduce_partials.cpp
  reduce/nccl/r02_device_order.cpp reduce/nccl/r03_partials_to_host.cpp reduce/nccl/register.cpp)
set(mpi_sources reduce/mpi/reduce_mpi.cpp reduce/mpi/r01_root_gathers.cpp
  reduce/mpi/r02_tree_reduce.cpp reduce/mpi/r03_allreduce.cpp reduce/mpi/r04_ordered_allgather.cpp
  reduce/mpi/register.cpp)
