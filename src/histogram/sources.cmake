# The histogram module: its own sources, relative to src/, and each backend folder's rungs in
# ladder order (<backend>_rungs: the names of their files, src/histogram/<backend>/<name>.cpp or
# .cu, each defining its rung's record) and other files (<backend>_sources). Read by
# pplab_add_pattern (cmake/patterns.cmake), which compiles the folders of the backends built and
# writes each folder's register hook from its list.
set(pattern_sources histogram/api.cpp histogram/policy.cpp histogram/two_d.cpp histogram/n_d.cpp)
set(seq_rungs h01_sequential)
set(cpu_rungs h01_shared_atomic h02_private_per_thread h03_sub_histograms h04_partition_then_count)
set(cpu_sources histogram/cpu/byte_store_floor.cpp)
set(cuda_rungs h00_cub h01_racy_increment h02_sectioned_atomics h03_interleaved_atomics
  h04_shared_privatized h05_lane_sub_histograms h06_cluster_distributed h07_packed_16bit_counters
  h08_merged_runs h09_radix_partition h10_block_multisplit h11_partial_privatized
  h12_sampled_choice h13_weighted_fixed_point h14_edges_in_shared
  h15_weighted_global_fixed_point h16_edges_lookup_table h17_edges_float_table
  h18_edges_cell_records h19_weighted_partitioned)
# The cuda folder also gives the lab the GPU's atomic rates and CUB's RGBA histogram, through the
# module's table (its exports hook; the core's forwarders to them, with or without the module).
set(cuda_sources histogram/cuda/atomic_rates.cu histogram/cuda/exports.cpp
  histogram/cuda/points_2d.cu histogram/cuda/points_nd.cu)
set(cuda_exports add_histogram_cuda_exports)
set(cuda_forward_sources histogram/cuda_forward.cpp)
set(nccl_rungs h01_allreduce h02_reduce_scatter h03_shares_added_from_peers
  h04_added_on_first_gpu)
set(mpi_rungs h01_reduce_to_root h02_allreduce h03_reduce_scatter)
