hist
$DATA/an_small.csv
