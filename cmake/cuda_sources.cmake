# How the cuda backend's sources are built (its module: cmake/modules.cmake; src/core/cuda/: the
# executor, the toolbox, the device queries; each pattern lists its GPU rungs in its own
# sources.cmake), C++20 (see dependencies.cmake). The runtime is linked statically: never the
# driver library, which a machine without a GPU lacks.

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
