hist
$DATA/an_small.csv
--contype=openib
--min
64
--max
4M
