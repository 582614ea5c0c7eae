hist
$DATA/an_small.csv
--per-rank
--csv
$WORK/h.csv
