# Build options and the flags every target shares.
option(PPLAB_NATIVE "Build for this machine's CPU (-march=native); OFF for portable packages" ON)
option(PPLAB_OPENBLAS "Build the OpenBLAS baseline rung (m00) when OpenBLAS is found" ON)
option(PPLAB_OPENCV "Build the OpenCV baseline rungs of the convolution (c00) when OpenCV is found" ON)
# The CUDA backend: AUTO builds it where it can run (nvcc found and a GPU answering nvidia-smi), so
# a machine without a GPU does not spend its first build on kernels it cannot run; ON builds it
# wherever nvcc is found (CI, to keep the GPU code compiling; a machine that builds for another).
# The environment's PPLAB_CUDA sets the default.
if(DEFINED ENV{PPLAB_CUDA})
  set(pplab_cuda_default $ENV{PPLAB_CUDA})
else()
  set(pplab_cuda_default AUTO)
endif()
set(PPLAB_CUDA ${pplab_cuda_default} CACHE STRING
    "CUDA backend: AUTO (nvcc found and a GPU present), ON (nvcc found) or OFF")
set_property(CACHE PPLAB_CUDA PROPERTY STRINGS AUTO ON OFF)
set(PPLAB_NCCL AUTO CACHE STRING "nccl backend: AUTO (when CUDA and NCCL are found), ON or OFF")
set_property(CACHE PPLAB_NCCL PROPERTY STRINGS AUTO ON OFF)
set(PPLAB_PYTHON AUTO CACHE STRING
    "Python package: AUTO (when a Python with NumPy, its development files and pybind11 are found), ON or OFF")
set_property(CACHE PPLAB_PYTHON PROPERTY STRINGS AUTO ON OFF)
set(PPLAB_MPI AUTO CACHE STRING "mpi backend: AUTO (when MPI is found), ON or OFF")
set_property(CACHE PPLAB_MPI PROPERTY STRINGS AUTO ON OFF)
# Inside another project (add_subdirectory, FetchContent) pplab builds its libraries alone, and
# leaves the parent's BUILD_SHARED_LIBS and build type as the parent set them.
option(PPLAB_BUILD_APP "Build the pplab command line" ${PROJECT_IS_TOP_LEVEL})
option(PPLAB_BUILD_TESTS "Build the tests" ${PROJECT_IS_TOP_LEVEL})
if(PROJECT_IS_TOP_LEVEL)
  option(BUILD_SHARED_LIBS "Build libpplab as a shared library" ON)
endif()
set(PPLAB_DEPS_DIR "" CACHE PATH
    "Folder with header-only dependencies and googletest sources, for machines without the packages")

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
if(PROJECT_IS_TOP_LEVEL AND NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

add_library(pplab_warnings INTERFACE)
target_compile_options(pplab_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unknown-pragmas -ffp-contract=off>
  # A switch over an enumeration names every enumerator (no default): a new backend, op or dtype
  # fails the build where it is not handled.
  $<$<COMPILE_LANGUAGE:CXX>:-Werror=switch>)

add_library(pplab_cpu_flags INTERFACE)
if(PPLAB_NATIVE)
  target_compile_options(pplab_cpu_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()
install(TARGETS pplab_warnings pplab_cpu_flags EXPORT pplabTargets)
