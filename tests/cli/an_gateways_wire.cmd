gateways
$DATA/an_small.csv
--level
wire
