# SimGrid's v actions carry every count: the reader gives the coll_peer rows of the uneven
# ones (those retrace wrote from vcounts_blocking.csv: the same rows, zeros left out) and
# none for the alltoallv of equal blocks; the CSV says the trace records per-peer counts.
convert
$DATA/ti/vcounts/v.ti
--to
csv
$WORK/v.csv
