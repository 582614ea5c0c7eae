pipeline
$DATA/an_small.csv
--model
$DATA/slow_gw.conf
--min-size
32K
--top
1
