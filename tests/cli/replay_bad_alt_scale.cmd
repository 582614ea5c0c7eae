replay
$DATA/an_small.csv
--compare
compute-scale:-1
