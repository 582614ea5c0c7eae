replay
$DATA/an_small.csv
--compare
speed:2
