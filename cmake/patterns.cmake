# A pattern is a module, src/<name>/ (docs/architecture.md). pplab_add_pattern(name) adds to
# PPLAB_SOURCES the pattern's own sources and those of each backend folder this build has, as
# src/<name>/sources.cmake lists them, and writes the file that joins those folders' register
# hooks into the pattern's ladder (cmake/ladder.cpp.in): no file of the core names a pattern, and
# a backend the build lacks needs no stand-in (a pattern whose backend folder gives more than
# rungs lists a stand-in for it in <backend>_absent_sources). Its lab case is
# src/lab/<name>_case.cpp; pplab_write_patterns() then writes the list of the patterns and their
# cases (cmake/patterns.cpp.in) that the lab, `pplab list` and `pplab info` walk.
set(PPLAB_BACKENDS seq cpu cuda nccl mpi)

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
    set(${b}_sources "")
    set(${b}_absent_sources "")
  endforeach()
  include(${PROJECT_SOURCE_DIR}/src/${name}/sources.cmake)
  set(all ${pattern_sources})
  set(PPLAB_LADDER_DECLS "")
  set(PPLAB_LADDER_CALLS "")
  foreach(b IN LISTS PPLAB_BACKENDS)
    pplab_backend_built(${b} built)
    if(built)
      list(APPEND all ${${b}_sources})
      if(${b}_sources)
        string(APPEND PPLAB_LADDER_DECLS "void register_${name}_${b}(std::vector<${name}_rung>&);\n")
        string(APPEND PPLAB_LADDER_CALLS "    register_${name}_${b}(all);\n")
      endif()
    else()
      list(APPEND all ${${b}_absent_sources})
    endif()
  endforeach()
  set(PPLAB_PATTERN ${name})
  set(ladder ${PROJECT_BINARY_DIR}/ladders/${name}_ladder.cpp)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/ladder.cpp.in ${ladder} @ONLY)
  list(TRANSFORM all PREPEND ${PROJECT_SOURCE_DIR}/src/)
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
