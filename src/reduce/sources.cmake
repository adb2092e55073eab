# The reduction module: its own sources, relative to src/, and each backend folder's rungs in
# ladder order (<backend>_rungs: the names of their files, src/reduce/<backend>/<name>.cpp or .cu,
# each defining its rung's record) and other files (<backend>_sources). Read by pplab_add_pattern
# (cmake/patterns.cmake), which compiles the folders of the backends built and writes each
# folder's register hook from its list.
set(pattern_sources reduce/api.cpp reduce/policy.cpp reduce/partials.cpp reduce/views.cpp
  reduce/exact.cpp)
set(seq_rungs r01_sequential_loop r02_exact_long_accumulator r03_exact_bins
  r04_moments_in_blocks)
set(cpu_rungs r01_omp_reduction_clause r02_partition_tree_combine r03_simd_accumulators
  r04_exact_bins_per_thread r05_moments_in_blocks)
set(cuda_rungs r00_cub cub_float_sum r01_interleaved_divergent r02_strided_index
  r03_sequential_addressing r04_first_add_during_load r05_unroll_last_warp r06_complete_unroll
  r07_grid_stride_cascade r08_warp_shuffle r09_vector_loads r10_host_combine r11_atomic_combine
  r12_last_block_finishes r13_exact_windows)
# The cuda folder also reduces the rows of a matrix on the GPU (pplab::reduce_rows_device),
# through the module's table (its exports hook, in rows.cu; the core's forwarder to it).
set(cuda_sources reduce/cuda/rows.cu)
set(cuda_exports add_reduce_cuda_exports)
set(cuda_forward_sources reduce/cuda_forward.cpp)
set(nccl_rungs r01_allreduce_partials r02_device_order r03_partials_to_host
  r04_exact_totals_to_host r05_joined_on_first_gpu)
set(nccl_sources reduce/nccl/reduce_nccl.cpp)
set(mpi_rungs r01_root_gathers r02_tree_reduce r03_allreduce r04_ordered_allgather
  r05_exact_totals r06_moments_allgather)
set(mpi_sources reduce/mpi/reduce_mpi.cpp)
