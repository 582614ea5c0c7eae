gateways
$DATA/an_small.csv
--per-rank
