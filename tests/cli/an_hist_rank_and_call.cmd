hist
$DATA/an_small.csv
--per-rank
--by-call
