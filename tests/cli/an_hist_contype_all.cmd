hist
$DATA/an_small.csv
--contype
all
--min
4K
--max
64M
