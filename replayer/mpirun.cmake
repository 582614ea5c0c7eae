# rt_mpirun: the real-MPI replay engine (`retrace replay --engine mpi`, docs/replay.md).
add_library(rt_mpirun STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/mpi_load.c
  ${CMAKE_CURRENT_SOURCE_DIR}/mpi_cvar.c
  ${CMAKE_CURRENT_SOURCE_DIR}/mpi_coll.c
  ${CMAKE_CURRENT_SOURCE_DIR}/mpi_run.c
  ${CMAKE_CURRENT_SOURCE_DIR}/mpi_exec.c)
target_include_directories(rt_mpirun PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(rt_mpirun PUBLIC rt_coll rt_formats MPI::MPI_C)
# GCC 12 takes MPICH's MPI_STATUSES_IGNORE ((MPI_Status *)1) for an array of size 0.
target_compile_options(rt_mpirun PRIVATE -Wno-stringop-overflow)
