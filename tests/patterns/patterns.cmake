# The example patterns (examples/patterns) under mpiexec: output, traced calls, replay.
foreach(case ${rt_patterns} errors)
  add_test(NAME mpi.pattern.${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/patterns/patterns_check.sh $<TARGET_FILE:retrace>
            ${CMAKE_BINARY_DIR}/patterns ${CMAKE_CURRENT_BINARY_DIR}/patterns-work/${case}
            ${case})
  set_tests_properties(mpi.pattern.${case} PROPERTIES
    LABELS "mpi;patterns" TIMEOUT 120 RESOURCE_LOCK mpi)
endforeach()
