# Unit tests of the built-in engine (replayer/sim_*.c): exact replay times of hand-made traces.
add_executable(test_sim ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sim.c
                        ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_sim_coll.c)
target_link_libraries(test_sim PRIVATE rt_sim PkgConfig::CMOCKA)
target_compile_options(test_sim PRIVATE -Werror)
target_compile_definitions(test_sim PRIVATE RT_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/sim")
add_test(NAME unit.sim COMMAND test_sim)
set_tests_properties(unit.sim PROPERTIES LABELS "unit")
