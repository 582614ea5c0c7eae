# A call that never returned counts until the trace's last event (1400 ns): rank 0's MPI_Recv
# from 1000 ns takes 0.400 us, rank 4's MPI_Bcast entered at 1400 ns none; a pending call's
# collective is not a completed one (collective calls 0).
profile
$DATA/pending.csv
