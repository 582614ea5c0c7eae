profile
$DATA/an_small.csv
--csv
$WORK/p.csv
