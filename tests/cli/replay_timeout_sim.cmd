replay
$DATA/an_small.csv
--timeout=5
