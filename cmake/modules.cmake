# The backends that bring their own libraries are modules (src/core/modules.hpp), and so are the
# host's vendor libraries (OpenBLAS, OpenCV: the `vendors` module). pplab_add_module (after the
# patterns) gathers a backend's own folder (src/core/<backend>/), the patterns' folders for it
# (or their vendors_sources) and its generated entry (cmake/module.cpp.in). With a shared
# libpplab the module is a library of its own, libpplab_<name>.so beside libpplab.so, which
# libpplab loads on first use and which links the libraries; with a static libpplab it is linked
# in.
set(PPLAB_MODULE_CORE_cuda src/core/cuda/device.cu src/core/cuda/executor.cu src/core/cuda/exports.cpp)
set(PPLAB_MODULE_CORE_nccl src/core/nccl/world.cpp src/core/nccl/array.cpp
  src/core/nccl/executor.cpp src/core/nccl/exports.cpp)
set(PPLAB_MODULE_CORE_mpi src/core/mpi/world.cpp src/core/mpi/executor.cpp src/core/mpi/exports.cpp)

get_target_property(pplab_library_type pplab TYPE)
if(pplab_library_type STREQUAL "SHARED_LIBRARY")
  set(PPLAB_SHARED_MODULES ON)
else()
  set(PPLAB_SHARED_MODULES OFF)
endif()

# The libraries a module's backend needs, on `target` (the module, or a static libpplab).
function(pplab_module_links target b)
  if(b STREQUAL "cuda")
    pplab_add_cuda(${target})
    if(PPLAB_HAVE_NPP)
      target_link_libraries(${target} PRIVATE CUDA::nppif CUDA::nppc)
    endif()
  elseif(b STREQUAL "nccl")
    target_link_libraries(${target} PRIVATE NCCL::NCCL CUDA::cudart_static)
    # Its rungs' own kernels (.cu files) are built as the cuda backend's.
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${PPLAB_CUDA_FLAGS}>)
    if(PPLAB_HAVE_MPI)  # one process per GPU under mpirun: the mpi backend's plumbing
      target_link_libraries(${target} PRIVATE MPI::MPI_CXX)
      if(PPLAB_SHARED_MODULES)
        target_link_libraries(${target} PRIVATE pplab_mpi)  # its agreement on errors
      endif()
      set_source_files_properties(${PROJECT_SOURCE_DIR}/src/core/nccl/world.cpp PROPERTIES
                                  COMPILE_DEFINITIONS PPLAB_HAVE_MPI)
    endif()
    if(PPLAB_SHARED_MODULES)
      target_link_libraries(${target} PRIVATE pplab_cuda)  # the local GPU's machinery
    endif()
  elseif(b STREQUAL "mpi" AND PPLAB_SHARED_MODULES)
    # pplab::mpi's users call pplab/mpi.hpp, which speaks MPI's types.
    target_link_libraries(${target} PUBLIC MPI::MPI_CXX)
  elseif(b STREQUAL "mpi")
    target_link_libraries(${target} PRIVATE MPI::MPI_CXX)
  else()  # vendors: the host's baselines
    if(PPLAB_HAVE_OPENBLAS)
      target_link_libraries(${target} PRIVATE ${PPLAB_OPENBLAS_TARGET})
    endif()
    if(PPLAB_HAVE_OPENCV)
      target_include_directories(${target} SYSTEM PRIVATE ${PPLAB_OPENCV_INCLUDE_DIR})
      target_link_libraries(${target} PRIVATE ${PPLAB_OPENCV_IMGPROC_LIB} ${PPLAB_OPENCV_CORE_LIB})
    endif()
  endif()
endfunction()

function(pplab_add_module b)
  set(PPLAB_MODULE ${b})
  set(PPLAB_MODULE_INCLUDES "")
  set(PPLAB_MODULE_DECLS "")
  set(PPLAB_MODULE_ADDS "")
  if(PPLAB_MODULE_CORE_${b})  # a backend's own folder
    set(PPLAB_MODULE_DECLS "void add_core_${b}_exports(module_exports&);\n")
    set(PPLAB_MODULE_ADDS "    add_core_${b}_exports(e);\n")
  endif()
  foreach(p IN LISTS PPLAB_MODULE_${b}_PATTERNS)
    string(APPEND PPLAB_MODULE_INCLUDES "#include \"${p}/rung.hpp\"\n")
    string(APPEND PPLAB_MODULE_DECLS "void register_${p}_${b}(std::vector<${p}_rung>&);\n")
    string(APPEND PPLAB_MODULE_ADDS "    e.add(\"register_${p}_${b}\", &register_${p}_${b});\n")
  endforeach()
  foreach(f IN LISTS PPLAB_MODULE_${b}_EXPORTS)
    string(APPEND PPLAB_MODULE_DECLS "void ${f}(module_exports&);\n")
    string(APPEND PPLAB_MODULE_ADDS "    ${f}(e);\n")
  endforeach()
  set(entry ${PROJECT_BINARY_DIR}/modules/${b}_module.cpp)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/module.cpp.in ${entry} @ONLY)
  list(TRANSFORM PPLAB_MODULE_CORE_${b} PREPEND ${PROJECT_SOURCE_DIR}/ OUTPUT_VARIABLE core)
  set(sources ${core} ${PPLAB_MODULE_${b}_SOURCES} ${entry})
  string(TOUPPER ${b} B)
  if(PPLAB_SHARED_MODULES)
    add_library(pplab_${b} SHARED ${sources})
    add_library(pplab::${b} ALIAS pplab_${b})
    set_target_properties(pplab_${b} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
                          EXPORT_NAME ${b})
    target_include_directories(pplab_${b} PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_include_directories(pplab_${b} SYSTEM PRIVATE
      $<TARGET_PROPERTY:nlohmann_json::nlohmann_json,INTERFACE_INCLUDE_DIRECTORIES>)
    target_compile_definitions(pplab_${b} PRIVATE ${PPLAB_DEFINITIONS})
    target_link_libraries(pplab_${b} PUBLIC pplab PRIVATE pplab_warnings pplab_cpu_flags)
    pplab_module_links(pplab_${b} ${b})
    # Every symbol resolved when the module is linked, not when a program loads it; and nothing of
    # the static libraries it links (the CUDA runtime) exported, to stand in for another copy.
    target_link_options(pplab_${b} PRIVATE -Wl,--no-undefined -Wl,--exclude-libs,ALL)
    # libpplab finds it beside itself (core/modules.cpp), by this name.
    set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/core/modules.cpp APPEND PROPERTY
                 COMPILE_DEFINITIONS "PPLAB_MODULE_${B}_FILE=\"$<TARGET_SONAME_FILE_NAME:pplab_${b}>\"")
    # Built with libpplab, so that a build of the command line has every module it was made with.
    add_dependencies(pplab_modules pplab_${b})
  else()
    target_sources(pplab PRIVATE ${sources})
    pplab_module_links(pplab ${b})
    set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/core/modules.cpp APPEND PROPERTY
                 COMPILE_DEFINITIONS PPLAB_MODULE_${B}_LINKED)
  endif()
endfunction()
