# retrace calibrate under mpiexec (tests/calib/calib_check.sh): one test per placement and
# one for the errors. MPI runs one at a time (RESOURCE_LOCK mpi): 2 cores.
foreach(case shm net gw single errors)
  add_test(NAME mpi.calibrate.${case}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/calib/calib_check.sh $<TARGET_FILE:retrace>
            ${PROJECT_SOURCE_DIR}/examples ${CMAKE_CURRENT_BINARY_DIR}/calib-work/${case} ${case})
  set_tests_properties(mpi.calibrate.${case} PROPERTIES
    LABELS "mpi;calibrate" TIMEOUT 120 RESOURCE_LOCK mpi)
endforeach()
# The same under Open MPI's mpirun (label openmpi): retrace runs retrace-openmpi there.
if(TARGET retrace_openmpi)
  foreach(case openmpi openmpi_errors)
    add_test(NAME mpi.calibrate.${case}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/calib/calib_check.sh $<TARGET_FILE:retrace>
              ${PROJECT_SOURCE_DIR}/examples ${CMAKE_CURRENT_BINARY_DIR}/calib-work/${case} ${case}
              ${OMPI_VERSION})
    set_tests_properties(mpi.calibrate.${case} PROPERTIES
      LABELS "mpi;openmpi;calibrate" TIMEOUT 120 RESOURCE_LOCK mpi)
  endforeach()
endif() # else tests/mpi/CMakeLists.txt says that the Open MPI tests are skipped
# calibrate --from on a run of the allreduce pattern recorded under mpiexec.mpich.
add_test(NAME mpi.calibrate.from
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/calib/calib_check.sh $<TARGET_FILE:retrace>
          ${PROJECT_SOURCE_DIR}/examples ${CMAKE_CURRENT_BINARY_DIR}/calib-work/from from
          $<TARGET_FILE:pattern_allreduce>)
set_tests_properties(mpi.calibrate.from PROPERTIES
  LABELS "mpi;calibrate" TIMEOUT 120 RESOURCE_LOCK mpi)
