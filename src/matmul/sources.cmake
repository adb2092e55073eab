# The matmul module: its own sources, relative to src/, and each backend folder's rungs in ladder
# order (<backend>_rungs: the names of their files, src/matmul/<backend>/<name>.cpp or .cu, each
# defining its rung's record) and other files (<backend>_sources). Read by pplab_add_pattern
# (cmake/patterns.cmake), which compiles the folders of the backends built and writes each
# folder's register hook from its list.
set(pattern_sources matmul/api.cpp matmul/policy.cpp)
set(seq_rungs m01_triple_loop)
set(cpu_rungs m01_loop_order_ikj m02_cache_tiled m03_packed_microkernel m04_matrix_times_vector
  m05_vector_times_matrix m06_small_products m07_tall_times_tiny)
# OpenBLAS, the baseline (m00): its rung in the cpu folder, its call in the vendors module
# (cmake/modules.cmake), which alone links OpenBLAS.
if(PPLAB_HAVE_OPENBLAS)
  list(APPEND cpu_rungs m00_openblas)
  set(vendors_sources matmul/vendors/openblas_gemm.cpp)
  set(vendors_exports add_matmul_vendors_exports)
endif()
# Only the multiply-add kernels may fuse a*b+c into one FMA; everywhere else rounding is as
# written.
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/matmul/cpu/m01_loop_order_ikj.cpp
  ${PROJECT_SOURCE_DIR}/src/matmul/cpu/m02_cache_tiled.cpp
  ${PROJECT_SOURCE_DIR}/src/matmul/cpu/m03_packed_microkernel.cpp
  ${PROJECT_SOURCE_DIR}/src/matmul/cpu/m04_matrix_times_vector.cpp
  ${PROJECT_SOURCE_DIR}/src/matmul/cpu/m05_vector_times_matrix.cpp
  ${PROJECT_SOURCE_DIR}/src/matmul/cpu/m06_small_products.cpp
  ${PROJECT_SOURCE_DIR}/src/matmul/cpu/m07_tall_times_tiny.cpp
  PROPERTIES COMPILE_OPTIONS "-ffp-contract=fast")
set(cuda_rungs m00_cublas m01_naive m02_coalesced m03_tiled_w8 m03_tiled_w16 m03_tiled_w32
  m04_register_strip m05_register_block m06_vector_transposed m07_warp_tiled_8x16
  m07_warp_tiled_8x8 m08_double_buffered m08_double_buffered_64x64 m09_async_pipeline
  m10_split_k m12_padded_whole_tiles m13_f64_tensor_cores m14_f32_split_tf32 m15_wide_async
  m16_f32_split_tf32_wgmma m17_matrix_times_vector m18_vector_times_matrix
  m19_stack_one_launch m20_f32_split_tf32_wgmma_fused)
set(nccl_rungs m01_rows_broadcast_b m02_broadcast_overlapped m03_summa)
set(mpi_rungs m01_summa m02_summa_overlapped)
set(mpi_sources matmul/mpi/summa.cpp)
