info
$DATA/mpi_library.csv
