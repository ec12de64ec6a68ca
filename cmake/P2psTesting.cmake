# p2ps_add_test(NAME name SOURCES a.c b.c LIBS lib... [ARGS ...] [LABELS ...])
# Builds one cmocka test executable and registers it with ctest. Tests get the
# source tree and the shared reference folder through the environment so that
# fixture paths never depend on the working directory.
function(p2ps_add_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;ARGS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE PkgConfig::CMOCKA ${T_LIBS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} ${T_ARGS})
  set_tests_properties(${T_NAME} PROPERTIES
    ENVIRONMENT "P2PS_SOURCE_DIR=${PROJECT_SOURCE_DIR};P2PS_BINARY_DIR=${PROJECT_BINARY_DIR};CMOCKA_MESSAGE_OUTPUT=STDOUT"
    LABELS "${T_LABELS}")
endfunction()

# p2ps_add_cli_test(NAME name COMMAND sh-script-or-exe args...)
# Registers a shell-driven test of a command-line tool. The script receives the
# tool directory in P2PS_TOOLS_DIR.
function(p2ps_add_cli_test)
  cmake_parse_arguments(T "" "NAME" "COMMAND;LABELS" ${ARGN})
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES
    ENVIRONMENT "P2PS_SOURCE_DIR=${PROJECT_SOURCE_DIR};P2PS_BINARY_DIR=${PROJECT_BINARY_DIR};P2PS_TOOLS_DIR=${PROJECT_BINARY_DIR}/tools"
    LABELS "${T_LABELS}")
endfunction()
