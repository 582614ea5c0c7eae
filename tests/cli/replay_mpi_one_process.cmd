# --engine mpi without mpiexec: one process for a trace of 4 ranks ("1 process", not "1 processes")
replay
--engine
mpi
$DATA/an_small.csv
