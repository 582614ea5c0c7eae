# Neighbourhood collectives at wire level: one message per neighbour block (MPI_PROC_NULL
# slots send nothing). neighbor_allgather: each rank sends twice to its partner in the other
# module and once to the rank on its node: 8 crossings, 4 messages inside the modules.
# neighbor_alltoallv on the graph (world 3 -> 2, 3 -> 1, 2 -> 1, 1 -> 3): 3 crossings,
# 3 -> 2 inside module 1.
gateways
$DATA/neighbors.csv
--level
wire
