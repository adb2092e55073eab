# Writes OUT with the commit the build is made from (and "+dirty" when the tracked files differ
# from it), rewriting it only when that changes: the lab's records name the code they measured.
execute_process(COMMAND git rev-parse --short HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(DEFINED ENV{PPLAB_SOURCE_COMMIT})
  # A copy of the tree without its history (a GPU machine): the caller names the commit.
  set(commit "$ENV{PPLAB_SOURCE_COMMIT}")
elseif(NOT commit)
  set(commit unknown)
elseif(dirty)
  set(commit "${commit}+dirty")
endif()
set(content "#pragma once\n#define PPLAB_GIT \"${commit}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUT} "${content}")
endif()
