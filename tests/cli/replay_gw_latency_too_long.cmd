replay
$DATA/an_small.csv
--model
$DATA/gw_latency_too_long.conf
