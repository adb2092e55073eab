# A pattern is a module, src/<name>/ (docs/architecture.md). pplab_add_pattern(name) adds to
# PPLAB_SOURCES the pattern's own sources and those of each host backend folder (seq, cpu), as
# src/<name>/sources.cmake lists them: a folder's rungs in ladder order (<backend>_rungs, the
# names of their files, each of which defines its rung's record) and its other files
# (<backend>_sources). The folders of the backends that are modules of their own (cuda, nccl,
# mpi: cmake/modules.cmake) go to that module's sources, and the calls into the host's vendor
# libraries (vendors_sources, whose rungs the cpu folder lists) to the vendors module. It writes
# each folder's register hook, which adds its records in order (cmake/folder_ladder.cpp.in), and
# the file that joins the folders' hooks into the pattern's ladder (cmake/ladder.cpp.in): no file of
# the core names a pattern, and a backend the build lacks needs no stand-in. What a backend folder
# gives beyond rungs, it gives through its module's table: the folder names a function that adds
# it (<backend>_exports), and the core reaches it through forwarders that answer with or without
# the module (<backend>_forward_sources, always compiled). Its lab case is
# src/lab/<name>_case.cpp; pplab_write_patterns() then writes the list of the patterns and their
# cases (cmake/patterns.cpp.in) that the lab, `pplab list` and `pplab info` walk.
set(PPLAB_BACKENDS seq cpu cuda nccl mpi)
set(PPLAB_MODULE_BACKENDS cuda nccl mpi)

function(pplab_backend_built backend out)
  if(backend STREQUAL "seq" OR backend STREQUAL "cpu")
    set(${out} ON PARENT_SCOPE)
  elseif(backend STREQUAL "cuda")
    set(${out} ${PPLAB_HAVE_CUDA} PARENT_SCOPE)
  elseif(backend STREQUAL "nccl")
    set(${out} ${PPLAB_HAVE_NCCL} PARENT_SCOPE)
  else()
    set(${out} ${PPLAB_HAVE_MPI} PARENT_SCOPE)
  endif()
endfunction()

function(pplab_add_pattern name)
  set(pattern_sources "")
  foreach(b IN LISTS PPLAB_BACKENDS)
    set(${b}_rungs "")
    set(${b}_sources "")
    set(${b}_exports "")
    set(${b}_forward_sources "")
  endforeach()
  set(vendors_sources "")
  set(vendors_exports "")
  include(${PROJECT_SOURCE_DIR}/src/${name}/sources.cmake)
  set(all ${pattern_sources})
  list(TRANSFORM all PREPEND ${PROJECT_SOURCE_DIR}/src/)
  # The host's vendor libraries' calls (rungs registered by the cpu folder): the vendors module.
  if(vendors_sources)
    list(TRANSFORM vendors_sources PREPEND ${PROJECT_SOURCE_DIR}/src/)
    set(PPLAB_MODULE_vendors_SOURCES ${PPLAB_MODULE_vendors_SOURCES} ${vendors_sources}
        PARENT_SCOPE)
    set(PPLAB_MODULE_vendors_EXPORTS ${PPLAB_MODULE_vendors_EXPORTS} ${vendors_exports}
        PARENT_SCOPE)
  endif()
  set(PPLAB_LADDER_DECLS "")
  set(PPLAB_LADDER_CASES "")
  foreach(b IN LISTS PPLAB_BACKENDS)
    list(TRANSFORM ${b}_forward_sources PREPEND ${PROJECT_SOURCE_DIR}/src/ OUTPUT_VARIABLE forward)
    list(APPEND all ${forward})
    pplab_backend_built(${b} built)
    if(NOT built OR NOT ${b}_rungs)
      continue()
    endif()
    # The folder's rungs, in the order listed: each its file and its record (core/registry.hpp),
    # added by the hook written here (cmake/folder_ladder.cpp.in). A cuda rung is a .cu file; a
    # rung of another GPU backend (nccl) is a .cu file where it has kernels of its own.
    set(PPLAB_FOLDER_DECLS "")
    set(PPLAB_FOLDER_RECORDS "")
    foreach(r IN LISTS ${b}_rungs)
      set(ext .cpp)
      if(b STREQUAL "cuda" OR EXISTS ${PROJECT_SOURCE_DIR}/src/${name}/${b}/${r}.cu)
        set(ext .cu)
      endif()
      list(APPEND ${b}_sources ${name}/${b}/${r}${ext})
      string(APPEND PPLAB_FOLDER_DECLS "extern const ${name}_rung ${r};\n")
      string(APPEND PPLAB_FOLDER_RECORDS "      {&${name}_${b}::${r}, \"${name}/${b}/${r}\"},\n")
    endforeach()
    set(PPLAB_PATTERN ${name})
    set(PPLAB_BACKEND ${b})
    set(hook ${PROJECT_BINARY_DIR}/ladders/${name}_${b}.cpp)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/folder_ladder.cpp.in ${hook} @ONLY)
    list(TRANSFORM ${b}_sources PREPEND ${PROJECT_SOURCE_DIR}/src/ OUTPUT_VARIABLE folder)
    list(APPEND folder ${hook})
    set(fill "register_${name}_${b}(v)")
    if(b IN_LIST PPLAB_MODULE_BACKENDS)
      set(fill "add_module_rungs(backend::${b}, \"register_${name}_${b}\", v)")
      set(PPLAB_MODULE_${b}_SOURCES ${PPLAB_MODULE_${b}_SOURCES} ${folder} PARENT_SCOPE)
      set(PPLAB_MODULE_${b}_PATTERNS ${PPLAB_MODULE_${b}_PATTERNS} ${name} PARENT_SCOPE)
      set(PPLAB_MODULE_${b}_EXPORTS ${PPLAB_MODULE_${b}_EXPORTS} ${${b}_exports} PARENT_SCOPE)
    else()
      list(APPEND all ${folder})
      string(APPEND PPLAB_LADDER_DECLS "void register_${name}_${b}(std::vector<${name}_rung>&);\n")
    endif()
    string(APPEND PPLAB_LADDER_CASES "  case backend::${b}: {\n"
      "    static const std::vector<${name}_rung> v = [] {\n"
      "      std::vector<${name}_rung> v;\n      ${fill};\n      return v;\n    }();\n"
      "    return v;\n  }\n")
  endforeach()
  set(PPLAB_PATTERN ${name})
  set(ladder ${PROJECT_BINARY_DIR}/ladders/${name}_ladder.cpp)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/ladder.cpp.in ${ladder} @ONLY)
  set(PPLAB_SOURCES ${PPLAB_SOURCES} ${all} ${ladder} PARENT_SCOPE)
  set(PPLAB_LAB_SOURCES ${PPLAB_LAB_SOURCES} ${PROJECT_SOURCE_DIR}/src/lab/${name}_case.cpp
      PARENT_SCOPE)
  set(PPLAB_PATTERNS ${PPLAB_PATTERNS} ${name} PARENT_SCOPE)
endfunction()

# After the last pplab_add_pattern: the file that lists them, added to PPLAB_LAB_SOURCES.
function(pplab_write_patterns)
  set(PPLAB_PATTERN_INCLUDES "")
  set(PPLAB_PATTERN_DECLS "")
  set(PPLAB_PATTERN_ENTRIES "")
  foreach(name IN LISTS PPLAB_PATTERNS)
    string(APPEND PPLAB_PATTERN_INCLUDES "#include \"${name}/rung.hpp\"\n")
    string(APPEND PPLAB_PATTERN_DECLS
      "void run_${name}_case(session&);\nstd::vector<std::string> planned_${name}(const settings&);\n")
    string(APPEND PPLAB_PATTERN_ENTRIES
      "      {\"${name}\", &infos_of<detail::${name}_rung>, &run_${name}_case, &planned_${name}},\n")
  endforeach()
  set(file ${PROJECT_BINARY_DIR}/ladders/patterns.cpp)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/patterns.cpp.in ${file} @ONLY)
  set(PPLAB_LAB_SOURCES ${PPLAB_LAB_SOURCES} ${file} PARENT_SCOPE)
endfunction()
