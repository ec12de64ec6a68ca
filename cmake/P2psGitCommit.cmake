# SPDX-License-Identifier: MIT
# Run at every build (cmake -P, from src/common/CMakeLists.txt): writes OUT, a header
# defining P2PS_GIT_COMMIT, the commit the tools' --version names:
#   - COMMIT when given (a packager building from a tarball that knows its commit);
#   - else the 12-digit commit of SRC's checkout, with "-dirty" when tracked files
#     differ from it, when SRC is the top of a git checkout (not a folder inside
#     another project's repository);
#   - else "unknown".
# OUT is rewritten only when its text changes, so that an unchanged commit rebuilds
# nothing.
set(commit "unknown")
if(COMMIT)
  set(commit "${COMMIT}")
else()
  find_program(git_exe git)
  if(git_exe)
    execute_process(COMMAND ${git_exe} -C ${SRC} rev-parse --show-toplevel
      OUTPUT_VARIABLE top RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0)
      file(REAL_PATH "${top}" top)
      file(REAL_PATH "${SRC}" src_real)
    endif()
    if(rc EQUAL 0 AND top STREQUAL src_real)
      execute_process(COMMAND ${git_exe} -C ${SRC} rev-parse --short=12 HEAD
        OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(rc EQUAL 0 AND head)
        set(commit "${head}")
        # Without optional locks: status never writes the index of a tree being built.
        execute_process(COMMAND ${CMAKE_COMMAND} -E env GIT_OPTIONAL_LOCKS=0
          ${git_exe} -C ${SRC} status --porcelain --untracked-files=no
          OUTPUT_VARIABLE changed RESULT_VARIABLE rc ERROR_QUIET)
        if(rc EQUAL 0 AND changed)
          string(APPEND commit "-dirty")
        endif()
      endif()
    endif()
  endif()
endif()
set(text "/* Written by cmake/P2psGitCommit.cmake at build time. */\n#define P2PS_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
