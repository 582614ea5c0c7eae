# all_kinds.csv's Ineighbor_alltoall runs on MPI_COMM_WORLD, whose neighbour lists the trace
# does not hold: at wire level it is left out, with a note.
hist
--level
wire
--max
1K
$DATA/all_kinds.csv
