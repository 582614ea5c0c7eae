replay
$DATA/an_small.csv
--out-trace
$WORK/sim
