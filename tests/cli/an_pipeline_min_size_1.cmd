pipeline
$DATA/an_small.csv
--min-size
1
--top
1
