pipeline
$DATA/an_small.csv
