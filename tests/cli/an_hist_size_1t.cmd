hist
$DATA/an_small.csv
--min
1t
--max
1T
