# The matmul module: its own sources and each backend folder's, relative to src/ (read by
# pplab_add_pattern in cmake/patterns.cmake, which compiles the folders of the backends built).
set(pattern_sources matmul/api.cpp matmul/policy.cpp)
set(seq_sources matmul/seq/m01_triple_loop.cpp)
set(cpu_sources matmul/cpu/m01_loop_order_ikj.cpp matmul/cpu/m02_cache_tiled.cpp
  matmul/cpu/m03_packed_microkernel.cpp matmul/cpu/register.cpp)
# OpenBLAS, the baseline (m00): its rung registered with the cpu folder, its call in the vendors
# module (cmake/modules.cmake), which alone links OpenBLAS.
if(PPLAB_HAVE_OPENBLAS)
  list(APPEND cpu_sources matmul/cpu/m00_openblas.cpp)
  set(vendors_sources matmul/vendors/openblas_gemm.cpp)
  set(vendors_exports add_matmul_vendors_exports)
endif()
# Only the multiply-add kernels may fuse a*b+c into one FMA; everywhere else rounding is as
# written.
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/matmul/cpu/m01_loop_order_ikj.cpp
  ${PROJECT_SOURCE_DIR}/src/matmul/cpu/m02_cache_tiled.cpp
  ${PROJECT_SOURCE_DIR}/src/matmul/cpu/m03_packed_microkernel.cpp
  PROPERTIES COMPILE_OPTIONS "-ffp-contract=fast")
set(cuda_sources matmul/cuda/m00_cublas.cu matmul/cuda/m01_naive.cu matmul/cuda/m02_coalesced.cu
  matmul/cuda/m03_tiled.cu matmul/cuda/m04_register_strip.cu
  matmul/cuda/m05_register_block.cu matmul/cuda/m06_vector_transposed.cu
  matmul/cuda/m07_warp_tiled.cu matmul/cuda/m08_double_buffered.cu
  matmul/cuda/m09_async_pipeline.cu matmul/cuda/m10_split_k.cu
  matmul/cuda/m12_padded_whole_tiles.cu
  matmul/cuda/m13_f64_tensor_cores.cu matmul/cuda/m14_f32_split_tf32.cu
  matmul/cuda/m15_wide_async.cu matmul/cuda/m16_f32_split_tf32_wgmma.cu
  matmul/cuda/register.cu)
set(nccl_sources matmul/nccl/m01_rows_broadcast_b.cpp matmul/nccl/m02_broadcast_overlapped.cpp
  matmul/nccl/m03_summa.cpp matmul/nccl/register.cpp)
set(mpi_sources matmul/mpi/summa.cpp matmul/mpi/m01_summa.cpp matmul/mpi/m02_summa_overlapped.cpp
  matmul/mpi/register.cpp)
