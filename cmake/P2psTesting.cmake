# SPDX-License-Identifier: MIT
# How p2pscope registers its tests (CONTRIBUTING.md says the same in short).
#
# Every test goes through p2ps_add_test (a cmocka executable) or p2ps_add_cli_test (a
# script or tool run), which:
#   - require LABELS naming at least one kind: unit (cases on constructed data), cli (a
#     command line end to end), fixture (real captures and dumps), vm (guest captures),
#     fuzz (libFuzzer seeds). Further labels may follow; the area (the tests/<area>/
#     folder) is added by itself, so `ctest -L host` or `ctest -L cli` select either way;
#   - give the test P2PS_SOURCE_DIR, P2PS_BINARY_DIR, P2PS_TOOLS_DIR and P2PS_SHARED_DIR;
#   - make exit status 77 mean "skipped" (SKIP_RETURN_CODE): ctest counts and lists it
#     under "The following tests did not run", and scripts/test.sh repeats the list.
# The top CMakeLists.txt checks at the end that no test was registered another way.
#
# The shared reference folder (P2PS_SHARED_DIR, by default ../shared beside the checkout)
# holds public data that is not committed (pciutils' test dumps, raw GPU-host captures).
# A test that reads it says so, and the `shared` label is added:
#   - a cmocka test takes its paths from p2ps_test_shared_path() (tests/support/p2ps_test.h)
#     and main returns p2ps_test_exit(cmocka_run_group_tests(...)): a missing file skips
#     its case and the run exits 77;
#   - a script that needs the folder as a whole: NEEDS_SHARED rel-path...; ctest runs it
#     through tests/support/need-shared.sh, which reports the missing path and exits 77
#     before the script starts;
#   - a script that needs it for some checks only: READS_SHARED; the script sources
#     tests/support/p2ps_test.sh, guards those checks with p2ps_need_shared and ends with
#     p2ps_test_exit;
#   - one test per shared file: p2ps_shared_glob.
# Under CI=true a missing file fails instead of skipping (CI always has the folder), and
# a glob that matches nothing fails configuring, so no run passes having tested nothing.

set(P2PS_SHARED_DIR "${PROJECT_SOURCE_DIR}/../shared" CACHE PATH
  "Shared reference folder with the public test data (pciutils dumps, raw captures)")
cmake_path(NORMAL_PATH P2PS_SHARED_DIR OUTPUT_VARIABLE P2PS_SHARED_DIR_NORMAL)
set(P2PS_TEST_KINDS unit cli fixture vm fuzz)

# Tools the tests drive (scripts/deps.txt, scripts/deps.d/). python3 runs most of the
# scripts and is required. Without lspci (or p2p-bench, which is built only where CMake
# finds nvcc) the tests that need it are registered all the same with UNAVAILABLE: they
# report SKIPPED with the reason, or fail under CI=true, and are never left out unseen.
find_program(P2PS_PYTHON3 python3 REQUIRED)
find_program(P2PS_LSPCI lspci PATHS /usr/bin /usr/sbin /bin /sbin)
set(P2PS_TEST_SKIP_STATUS 77)

# Labels of one test: the caller's (one of them a kind), the area, and `shared` when asked.
function(_p2ps_test_labels out name labels shared)
  set(kind_found OFF)
  foreach(l ${labels})
    if(l IN_LIST P2PS_TEST_KINDS)
      set(kind_found ON)
    endif()
  endforeach()
  if(NOT kind_found)
    message(FATAL_ERROR "test ${name}: LABELS must name one of ${P2PS_TEST_KINDS} "
      "(got '${labels}'); see cmake/P2psTesting.cmake")
  endif()
  file(RELATIVE_PATH area ${PROJECT_SOURCE_DIR}/tests ${CMAKE_CURRENT_SOURCE_DIR})
  string(REGEX REPLACE "/.*" "" area "${area}")
  if(area AND NOT area MATCHES "^\\.\\." AND NOT area IN_LIST labels)
    list(APPEND labels ${area})
  endif()
  if(shared)
    list(APPEND labels shared)
  endif()
  list(REMOVE_DUPLICATES labels)
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()

function(_p2ps_test_properties name labels)
  set_property(GLOBAL APPEND PROPERTY P2PS_REGISTERED_TESTS ${name})
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "P2PS_SOURCE_DIR=${PROJECT_SOURCE_DIR};P2PS_BINARY_DIR=${PROJECT_BINARY_DIR};P2PS_TOOLS_DIR=${PROJECT_BINARY_DIR}/tools;P2PS_SHARED_DIR=${P2PS_SHARED_DIR_NORMAL};CMOCKA_MESSAGE_OUTPUT=STDOUT"
    SKIP_RETURN_CODE ${P2PS_TEST_SKIP_STATUS}
    LABELS "${labels}")
endfunction()

# p2ps_add_test(NAME name SOURCES a.c b.c LIBS lib... LABELS kind... [ARGS ...])
# Builds one cmocka test executable and registers it with ctest. A source that asks for
# files outside the repository (p2ps_test_shared_path, p2ps_test_need_file) must end
# main with p2ps_test_exit(), or its skipped cases would pass: configuring checks that.
function(p2ps_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;ARGS;LABELS" ${ARGN})
  set(shared OFF)
  set(needs_exit OFF)
  set(has_exit OFF)
  foreach(src ${T_SOURCES})
    if(src MATCHES "^\\$<")
      continue() # generator expressions (object libraries) hold no test code
    endif()
    cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    file(READ ${src} text)
    if(text MATCHES "p2ps_test_shared_path\\(")
      set(shared ON)
    endif()
    if(text MATCHES "p2ps_test_(shared_path|need_file|need)\\(")
      set(needs_exit ON)
    endif()
    if(text MATCHES "return p2ps_test_exit\\(")
      set(has_exit ON)
    endif()
  endforeach()
  if(needs_exit AND NOT has_exit)
    message(FATAL_ERROR "test ${T_NAME} may skip cases (p2ps_test_shared_path or "
      "p2ps_test_need*): main must return p2ps_test_exit(cmocka_run_group_tests(...))")
  endif()
  _p2ps_test_labels(labels ${T_NAME} "${T_LABELS}" ${shared})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE PkgConfig::CMOCKA ${T_LIBS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} ${T_ARGS})
  _p2ps_test_properties(${T_NAME} "${labels}")
endfunction()

# p2ps_add_cli_test(NAME name COMMAND sh-script-or-exe args... LABELS kind...
#                   [NEEDS_SHARED rel-path...] [READS_SHARED] [UNAVAILABLE what why])
# Registers a test run by a script or tool (tools in P2PS_TOOLS_DIR). NEEDS_SHARED: the
# paths, relative to the shared folder, without which the test cannot run at all.
# READS_SHARED: the script checks for shared files itself (tests/support/p2ps_test.sh).
# UNAVAILABLE: a tool the test needs was not built or found when configuring (the caller
# decides, e.g. NOT TARGET p2p-bench): tests/support/unavailable.sh runs instead of COMMAND
# (which may then name the missing target) and reports the test skipped with what and why.
function(p2ps_add_cli_test)
  cmake_parse_arguments(T "READS_SHARED" "NAME" "COMMAND;LABELS;NEEDS_SHARED;UNAVAILABLE"
    ${ARGN})
  set(command ${T_COMMAND})
  set(shared ${T_READS_SHARED})
  if(T_NEEDS_SHARED)
    set(shared ON)
    set(command sh ${PROJECT_SOURCE_DIR}/tests/support/need-shared.sh ${T_NEEDS_SHARED} --
      ${T_COMMAND})
  endif()
  if(T_UNAVAILABLE)
    list(LENGTH T_UNAVAILABLE n)
    if(NOT n EQUAL 2)
      message(FATAL_ERROR "test ${T_NAME}: UNAVAILABLE takes what and why")
    endif()
    set(command sh ${PROJECT_SOURCE_DIR}/tests/support/unavailable.sh ${T_UNAVAILABLE})
  endif()
  _p2ps_test_labels(labels ${T_NAME} "${T_LABELS}" ${shared})
  add_test(NAME ${T_NAME} COMMAND ${command})
  _p2ps_test_properties(${T_NAME} "${labels}")
endfunction()

# p2ps_glob_fixtures(VAR pattern...): file(GLOB) over committed fixtures that fails
# configuring when nothing matches (a moved fixture folder would otherwise register no
# test at all, and the run would pass).
function(p2ps_glob_fixtures var)
  file(GLOB found ${ARGN})
  if(NOT found)
    message(FATAL_ERROR "no fixture matches ${ARGN}")
  endif()
  list(SORT found)
  set(${var} "${found}" PARENT_SCOPE)
endfunction()

# p2ps_shared_glob(VAR DIR rel-dir PATTERN glob STANDIN test-name LABELS kind...)
# The files matching PATTERN in the shared folder's REL-DIR, one test each for the caller
# to register (with NEEDS_SHARED rel-dir). When the folder is absent, VAR is empty and the
# test STANDIN is registered in their place: it reports the folder missing (skipped, or
# failed under CI=true). A folder that is present but matches nothing fails configuring.
function(p2ps_shared_glob var)
  cmake_parse_arguments(G "" "DIR;PATTERN;STANDIN" "LABELS" ${ARGN})
  set(dir ${P2PS_SHARED_DIR_NORMAL}/${G_DIR})
  set(found "")
  if(IS_DIRECTORY ${dir})
    file(GLOB found ${dir}/${G_PATTERN})
    if(NOT found)
      message(FATAL_ERROR "${dir}: no file matches ${G_PATTERN}")
    endif()
    list(SORT found)
  else()
    message(STATUS "${dir} absent: ${G_STANDIN} stands in for its tests (skipped)")
    p2ps_add_cli_test(NAME ${G_STANDIN} LABELS ${G_LABELS} NEEDS_SHARED ${G_DIR}
      COMMAND sh -c "echo '${dir} appeared after configuring: configure again'; exit 1")
  endif()
  set(${var} "${found}" PARENT_SCOPE)
endfunction()

# p2ps_check_test_registration(dir...): fails configuring when a test under these
# folders was registered with plain add_test() instead of p2ps_add_test /
# p2ps_add_cli_test (it would lack a kind label and the skip rules).
function(p2ps_check_test_registration)
  get_property(registered GLOBAL PROPERTY P2PS_REGISTERED_TESTS)
  foreach(dir ${ARGN})
    get_property(names DIRECTORY ${dir} PROPERTY TESTS)
    foreach(name ${names})
      if(NOT name IN_LIST registered)
        message(FATAL_ERROR "test ${name} (${dir}) was not registered with p2ps_add_test "
          "or p2ps_add_cli_test (cmake/P2psTesting.cmake)")
      endif()
    endforeach()
    get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
    if(subdirs)
      p2ps_check_test_registration(${subdirs})
    endif()
  endforeach()
endfunction()
