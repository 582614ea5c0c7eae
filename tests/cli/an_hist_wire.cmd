hist
$DATA/an_small.csv
--level
wire
