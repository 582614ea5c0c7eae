hist
$DATA/an_small.csv
--min
64X
