# --repeat and --timeout belong to --engine mpi: said so, not "unknown option"
replay
$DATA/an_small.csv
--repeat
3
