# examples/halo.csv with the costs of replay_calls and per-algorithm costs of MPI_Allreduce:
# its 3 8-byte allreduces are MPICH's recursive doubling (the recorded choice), 2 us each
# instead of the function's 508 ns, so each rank spends 3 x 1.492 us = 4.476 us more in MPI
# than in replay_calls: 120.119 us per rank on average against 115.643 us. Under ring (a
# schedule of its own on 4 ranks: twice the messages) each costs ring's 3 us.
replay
$EXAMPLES/halo.csv
--model
$DATA/alg_costs.conf
--compare
coll:allreduce=ring
