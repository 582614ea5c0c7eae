# By hand, default model (o 100 ns; shm L 300 ns, 10 GB/s; gw two hops of L 3 us, 10 GB/s:
# 2 x 3.1 us for 1000 bytes), one message injected at a time per rank, a send done when the
# port is free again, a receive o after its message arrives.
# neighbor_allgather on the 2 x 2 grid, 1000 bytes per block: rank 0 sends to 2 twice (its
# -1 and +1 neighbours in the periodic dimension, across the gateway: port 0-6.3 us, arrives
# 6.3; 6.3-12.6, arrives 12.6), then to 1 (shm, 12.6-13.1, arrives 13.1); the MPI_PROC_NULL
# slot sends nothing. Every rank does the same, so rank 0 receives from 2 at 6.4 and 12.7 us
# and from 1 at 13.2 us: all leave at 13.2 us. 5.9 us of computation (recorded 4.1 to 10 us):
# Ineighbor_alltoallv starts at 19.1 us; Wait is entered 0.1 us later, at 19.2 us.
# On the graph (world 3 -> 2, 3 -> 1, 2 -> 1, 1 -> 3): world 3 sends to 2 (shm, 19.1-19.6)
# then to 1 (gw, 19.6-25.9, arrives 25.9); 2 sends to 1 (gw, 19.1-25.4); 1 sends to 3 (gw,
# 19.1-25.4). Ends: world 3 at 25.9 (its send; its receive from 1 at 25.5), world 2 at 25.4
# (its send; the receive from 3 at 19.7), world 1 at 26.0 (receives at 25.5 and 26.0),
# world 0 (no neighbours) at once: its Wait ends when entered, 19.2 us.
# MPI time: 13.2 us + the Wait; computation 5.9 + 0.1 us. Crossings: 8 + 3 messages.
replay
$DATA/neighbors.csv
