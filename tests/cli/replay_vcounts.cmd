# vcounts.csv replayed: the messages and gateway crossings of its per-peer counts, the
# same as retrace gateways --level wire counts (49, 7648 bytes; 32, 3284 bytes).
replay
$DATA/vcounts.csv
