# Pending calls as written back: an empty PEER for the receive from any source.
convert
$DATA/pending.csv
--to
csv
$WORK/p.csv
