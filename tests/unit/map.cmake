# Unit tests of rank placement (replayer/map*.c).
add_executable(test_map ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_map.c)
target_link_libraries(test_map PRIVATE rt_map PkgConfig::CMOCKA)
target_compile_definitions(test_map PRIVATE RT_TEST_TMP="${CMAKE_CURRENT_BINARY_DIR}/tmp-map")
add_test(NAME unit.map COMMAND test_map)
set_tests_properties(unit.map PROPERTIES LABELS "unit")
