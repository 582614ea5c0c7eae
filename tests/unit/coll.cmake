# Unit tests of replayer/ collective schedules (rt_coll).
add_executable(test_coll ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_coll.c)
target_link_libraries(test_coll PRIVATE rt_coll PkgConfig::CMOCKA)
add_test(NAME unit.coll COMMAND test_coll)
set_tests_properties(unit.coll PROPERTIES LABELS "unit")
