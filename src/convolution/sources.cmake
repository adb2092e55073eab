# The convolution module: its own sources, relative to src/, and each backend folder's rungs in
# ladder order (<backend>_rungs: the names of their files, src/convolution/<backend>/<name>.cpp or
# .cu, each defining its rung's record) and other files (<backend>_sources). Read by
# pplab_add_pattern (cmake/patterns.cmake), which compiles the folders of the backends built and
# writes each folder's register hook from its list.
set(pattern_sources convolution/api.cpp convolution/policy.cpp convolution/kernels.cpp
  convolution/scipy_order.cpp convolution/scipy_correlate.cpp)
set(seq_rungs c01_direct_loop c02_interior_apart)
set(cpu_rungs c01_rows_openmp c02_register_blocked c03_separable c04_u8_channels)
# OpenCV, the baseline (c00): its rungs in the cpu folder, their calls in the vendors module
# (cmake/modules.cmake), which alone links OpenCV.
if(PPLAB_HAVE_OPENCV)
  list(APPEND cpu_rungs c00_opencv_filter2d c00_opencv_sepfilter2d)
  set(vendors_sources convolution/vendors/opencv_filters.cpp)
  set(vendors_exports add_convolution_vendors_exports)
endif()
# The register-blocked interior and the separable passes are the multiply-add kernels: they may
# fuse a*b+c into one FMA.
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/convolution/cpu/c02_register_blocked.cpp
  ${PROJECT_SOURCE_DIR}/src/convolution/cpu/c03_separable.cpp
  ${PROJECT_SOURCE_DIR}/src/convolution/cpu/c04_u8_channels.cpp PROPERTIES COMPILE_OPTIONS "-ffp-contract=fast")
# NPP's FilterBorder, the cuda baseline (c00), where the toolkit has NPP (cmake/dependencies.cmake).
if(PPLAB_HAVE_NPP)
  list(APPEND cuda_rungs c00_npp c00_npp_u8)
  list(APPEND cuda_sources convolution/cuda/npp_filter.cu)
endif()
# The cuda folder also gives the API SciPy's pass into integers (scipy_order.cu) and SciPy's
# correlate of any rank (scipy_correlate.cu; a block a tile: scipy_correlate_tiled.cu), through the
# module's table (its exports hook; the core's forwarder to it, with or without the module).
list(APPEND cuda_sources convolution/cuda/scipy_order.cu convolution/cuda/scipy_correlate.cu
  convolution/cuda/scipy_correlate_tiled.cu convolution/cuda/exports.cpp)
set(cuda_exports add_convolution_cuda_exports)
set(cuda_forward_sources convolution/cuda_forward.cpp)
list(APPEND cuda_rungs c01_naive_global c02_constant_mask c03_input_tile c04_output_tile
  c05_halo_from_cache c06_register_strip c07_separable c08_u8_channels c09_split_tf32
  c10_u8_planes c11_split_tf32_whole_mask c12_split_tf32_wgmma c13_line_pass
  c14_line_pass_pipelined c15_separable_lines)
set(mpi_rungs c01_row_slabs)
set(nccl_rungs c01_row_slabs)
