replay
$DATA/an_small.csv
--eager
12Q
