info
--threads
0
$DATA/an_small.csv
