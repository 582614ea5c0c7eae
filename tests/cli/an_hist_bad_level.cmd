hist
$DATA/an_small.csv
--level
bytes
