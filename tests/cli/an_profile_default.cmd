profile
$DATA/an_small.csv
