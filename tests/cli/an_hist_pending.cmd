# Pending calls: rank 3's 1 MiB send counts (posted, as psmpi counts sends), rank 4's 4 KiB
# MPI_Bcast as root does not (it never completed).
hist
--coll
--by-call
$DATA/pending.csv
