gateways
$DATA/an_small.csv
