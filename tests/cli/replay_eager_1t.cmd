replay
$DATA/an_small.csv
--eager
1T
