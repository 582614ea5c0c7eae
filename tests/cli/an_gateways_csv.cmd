gateways
$DATA/an_small.csv
--csv
$WORK/g.csv
