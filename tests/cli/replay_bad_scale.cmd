replay
$DATA/an_small.csv
--compute-scale
1.5x
