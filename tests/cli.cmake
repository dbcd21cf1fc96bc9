# CTest registration of the clscan program's tests (tests/test_cli.sh, and
# tests/test_cli_select.sh for the selection commands, tests/test_cli_segments.sh for offsets,
# key types and batched rows, tests/test_cli_args.sh for --arg), for inclusion from
# tests/CMakeLists.txt with include(cli.cmake). The test needs bash and the clscan_cli target.
if(TARGET clscan_cli)
  find_program(CLSCAN_BASH bash)
  if(CLSCAN_BASH)
    add_test(NAME cli COMMAND ${CLSCAN_BASH} ${CMAKE_CURRENT_LIST_DIR}/test_cli.sh
                                $<TARGET_FILE:clscan_cli>)
    set_tests_properties(cli PROPERTIES TIMEOUT 300 LABELS "cli")
    add_test(NAME cli_select COMMAND ${CLSCAN_BASH} ${CMAKE_CURRENT_LIST_DIR}/test_cli_select.sh
                                       $<TARGET_FILE:clscan_cli>)
    set_tests_properties(cli_select PROPERTIES TIMEOUT 300 LABELS "cli")
    add_test(NAME cli_segments COMMAND ${CLSCAN_BASH} ${CMAKE_CURRENT_LIST_DIR}/test_cli_segments.sh
                                         $<TARGET_FILE:clscan_cli>)
    set_tests_properties(cli_segments PROPERTIES TIMEOUT 300 LABELS "cli;segments")
    add_test(NAME cli_args COMMAND ${CLSCAN_BASH} ${CMAKE_CURRENT_LIST_DIR}/test_cli_args.sh
                                     $<TARGET_FILE:clscan_cli>)
    set_tests_properties(cli_args PROPERTIES TIMEOUT 300 LABELS "cli;args")
  endif()
endif()
