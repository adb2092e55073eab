# The cuda backend's folder (src/core/cuda/: the executor, the toolbox, the device queries) and
# every pattern's GPU rungs (C++20: see dependencies.cmake). The runtime is linked statically:
# never the driver library, which a machine without a GPU lacks.
list(APPEND PPLAB_SOURCES
  src/core/cuda/device.cu src/core/cuda/executor.cu src/core/cuda/register.cpp
  src/reduce/cuda/r00_cub.cu
  src/reduce/cuda/r01_interleaved_divergent.cu src/reduce/cuda/r02_strided_index.cu
  src/reduce/cuda/r03_sequential_addressing.cu src/reduce/cuda/r04_first_add_during_load.cu
  src/reduce/cuda/r05_unroll_last_warp.cu src/reduce/cuda/r06_complete_unroll.cu
  src/reduce/cuda/r07_grid_stride_cascade.cu src/reduce/cuda/r08_warp_shuffle.cu
  src/reduce/cuda/r09_vector_loads.cu src/reduce/cuda/r10_host_combine.cu
  src/reduce/cuda/r11_atomic_combine.cu src/reduce/cuda/r12_last_block_finishes.cu
  src/reduce/cuda/register.cu
  src/histogram/cuda/h00_cub.cu src/histogram/cuda/h01_racy_increment.cu
  src/histogram/cuda/h02_sectioned_atomics.cu src/histogram/cuda/h03_interleaved_atomics.cu
  src/histogram/cuda/h04_shared_privatized.cu src/histogram/cuda/h05_lane_sub_histograms.cu
  src/histogram/cuda/h06_cluster_distributed.cu src/histogram/cuda/h07_packed_16bit_counters.cu
  src/histogram/cuda/h08_merged_runs.cu src/histogram/cuda/h09_radix_partition.cu
  src/histogram/cuda/h10_block_multisplit.cu src/histogram/cuda/h11_partial_privatized.cu
  src/histogram/cuda/h12_sampled_choice.cu
  src/histogram/cuda/atomic_rates.cu src/histogram/cuda/register.cu
  src/matmul/cuda/m00_cublas.cu src/matmul/cuda/m01_naive.cu src/matmul/cuda/m02_coalesced.cu
  src/matmul/cuda/m03_tiled.cu src/matmul/cuda/m04_register_strip.cu
  src/matmul/cuda/m05_register_block.cu src/matmul/cuda/m06_vector_transposed.cu
  src/matmul/cuda/m07_warp_tiled.cu src/matmul/cuda/m08_double_buffered.cu
  src/matmul/cuda/m09_async_pipeline.cu src/matmul/cuda/m10_split_k.cu
  src/matmul/cuda/m11_by_shape.cu src/matmul/cuda/m12_padded_whole_tiles.cu
  src/matmul/cuda/m13_f64_tensor_cores.cu
  src/matmul/cuda/m14_f32_split_tf32.cu
  src/matmul/cuda/m15_wide_async.cu
  src/matmul/cuda/register.cu)

option(PPLAB_CUDA_RESOURCE_REPORT "Print registers, shared memory and spills of every kernel" OFF)

set(PPLAB_CUDA_FLAGS --expt-relaxed-constexpr -lineinfo -Xcompiler=-fopenmp)
if(PPLAB_CUDA_RESOURCE_REPORT)
  list(APPEND PPLAB_CUDA_FLAGS -Xptxas=-v)
endif()

function(pplab_add_cuda target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${PPLAB_CUDA_FLAGS}>)
  # cuBLAS (the matmul baseline) is a shared library: the installed libpplab keeps the path
  # it was linked from, as the build tree does.
  target_link_libraries(${target} PRIVATE CUDA::cudart_static CUDA::cublas)
  set_target_properties(${target} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endfunction()
