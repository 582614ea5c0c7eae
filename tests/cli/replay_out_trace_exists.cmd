# --out-trace refuses an existing archive without --force
replay
$DATA/an_small.csv
--out-trace
$WORK/sim
