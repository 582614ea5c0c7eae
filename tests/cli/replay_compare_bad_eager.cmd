replay
$DATA/an_small.csv
--compare
eager:-1
