# The other engine's options, with --engine mpi: a usage error like any other
replay
--engine
mpi
$DATA/an_small.csv
--eager=0
