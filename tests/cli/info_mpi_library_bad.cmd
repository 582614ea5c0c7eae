info
$DATA/mpi_library_bad.csv
