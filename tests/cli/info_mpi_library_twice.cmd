info
$DATA/mpi_library_twice.csv
