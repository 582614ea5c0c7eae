info
$DATA/mpi_library_early.csv
