# Unit tests of the real-MPI replay's machine and placement (replayer/mpi/mpi_place.c): the
# parts that need no MPI, so no mpiexec either.
rt_unit_test(mpirun rt_mpirun unit/test_mpirun.c)
