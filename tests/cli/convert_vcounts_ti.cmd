# The v actions carry the per-peer counts of the coll_peer rows (rank 0's alltoallv sends
# 0 100 0 300 and receives 0 10 0 1000; the gatherv's root receives 8 16 0 24, ...); the
# alltoallv of equal blocks splits its totals.
convert
$DATA/vcounts_blocking.csv
--to
ti
$WORK/v.ti
