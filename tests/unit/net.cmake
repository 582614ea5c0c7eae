# Unit tests of the network model (replayer/net_*.c).
add_executable(test_net ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_net.c)
target_link_libraries(test_net PRIVATE rt_net PkgConfig::CMOCKA)
target_compile_definitions(test_net PRIVATE
  RT_TEST_TMP="${CMAKE_CURRENT_BINARY_DIR}/tmp-net"
  RT_EXAMPLES="${PROJECT_SOURCE_DIR}/examples")
add_test(NAME unit.net COMMAND test_net)
set_tests_properties(unit.net PROPERTIES LABELS "unit")
