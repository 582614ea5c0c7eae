# examples/halo.csv with [calls] costs. Against the plain replay (predicted 797.169 us, MPI
# time 125.669/116.069/106.169/96.569 us) each rank spends 4.524 us more in MPI: 3 8-byte
# allreduces at 500 ns + 8 ns, and in each of the 3 iterations 1 us for its first Isend; the
# second Isend's 1 us passes while the first 64 KiB message still holds the rank's port.
replay
$EXAMPLES/halo.csv
--model
$DATA/calls.conf
