pipeline
$DATA/an_small.csv
--top
-3
