# The convolution module: its own sources and each backend folder's, relative to src/ (read by
# pplab_add_pattern in cmake/patterns.cmake, which compiles the folders of the backends built).
set(pattern_sources convolution/api.cpp convolution/policy.cpp)
set(seq_sources convolution/seq/c01_direct_loop.cpp convolution/seq/c02_interior_apart.cpp
  convolution/seq/register.cpp)
set(cpu_sources convolution/cpu/c01_rows_openmp.cpp convolution/cpu/c02_register_blocked.cpp
  convolution/cpu/c03_separable.cpp convolution/cpu/c04_u8_channels.cpp convolution/cpu/register.cpp)
# OpenCV, the baseline (c00): its rungs registered with the cpu folder, their calls in the vendors
# module (cmake/modules.cmake), which alone links OpenCV.
if(PPLAB_HAVE_OPENCV)
  list(APPEND cpu_sources convolution/cpu/c00_opencv.cpp)
  set(vendors_sources convolution/vendors/opencv_filters.cpp)
  set(vendors_exports add_convolution_vendors_exports)
endif()
# The register-blocked interior and the separable passes are the multiply-add kernels: they may
# fuse a*b+c into one FMA.
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/convolution/cpu/c02_register_blocked.cpp
  ${PROJECT_SOURCE_DIR}/src/convolution/cpu/c03_separable.cpp
  ${PROJECT_SOURCE_DIR}/src/convolution/cpu/c04_u8_channels.cpp PROPERTIES COMPILE_OPTIONS "-ffp-contract=fast")
set(cuda_sources convolution/cuda/c01_naive_global.cu convolution/cuda/c02_constant_mask.cu
  convolution/cuda/c03_input_tile.cu convolution/cuda/c04_output_tile.cu
  convolution/cuda/c05_halo_from_cache.cu convolution/cuda/c06_register_strip.cu
  convolution/cuda/c07_separable.cu convolution/cuda/c08_u8_channels.cu convolution/cuda/c09_split_tf32.cu
  convolution/cuda/c10_u8_planes.cu convolution/cuda/c11_split_tf32_whole_mask.cu
  convolution/cuda/c12_split_tf32_wgmma.cu
  convolution/cuda/register.cu)
# NPP's FilterBorder, the cuda baseline (c00), where the toolkit has NPP (cmake/dependencies.cmake).
if(PPLAB_HAVE_NPP)
  list(APPEND cuda_sources convolution/cuda/c00_npp.cu)
endif()
set(mpi_sources convolution/mpi/c01_row_slabs.cpp)
set(nccl_sources convolution/nccl/c01_row_slabs.cpp)
